import * as z from 'zod/mini';
import { languageTagSchema, notBlank, textField } from '../fields';
import { GENERAL_EVENT_TYPES, LOGIN_EVENT_TYPE } from '../api/event-types';
import type { GeneralEventType } from '../api/event-types';

/** Contract section 4: what `eventValue` may be for each type. */
export const EVENT_VALUE_RULES: Record<GeneralEventType, z.ZodMiniType<string>> = {
  translation_on: z.enum(['true', 'false'], 'must be "true" or "false" for translation_on'),
  voice_provider: textField(1, 64).check(notBlank()),
  language_choice: languageTagSchema,
  ambient_sound: z.enum(['enabled', 'disabled'], 'must be "enabled" or "disabled" for ambient_sound'),
  subtitle_layout: z.enum(['top', 'bottom'], 'must be "top" or "bottom" for subtitle_layout'),
  volume_detection: z.enum(['auto', 'manual'], 'must be "auto" or "manual" for volume_detection'),
};

// The range (5 minutes ahead at most, 30 days back at most) is checked against the clock by the service.
const occurredAt = z.optional(
  z.string().check(
    z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/, 'must be ISO 8601 UTC, like 2026-01-29T10:30:00Z'),
    z.meta({
      format: 'date-time',
      description:
        'When the choice was made (ISO 8601 UTC, milliseconds allowed): at most 5 minutes in the future, at most 30 days ago. Default: when the service receives it. ' +
        'The value with the latest occurredAt becomes the type\'s lastValue, so an event queued offline does not override a later one.',
      examples: ['2026-01-29T10:30:00Z'],
    }),
  ),
);

/**
 * One general event: its type and the value that type's rule allows. A discriminated union, so the
 * API reference states each type's rule (a `oneOf` with `eventType` as its discriminator) and a
 * generated client refuses `subtitle_layout: "left"` at compile time.
 */
const generalEventOptions = GENERAL_EVENT_TYPES.map((eventType) =>
  z.object({ eventType: z.literal(eventType), eventValue: EVENT_VALUE_RULES[eventType], occurredAt }),
) as [GeneralEventSchema, ...GeneralEventSchema[]];
type GeneralEventSchema = z.ZodMiniObject<{
  eventType: z.ZodMiniLiteral<GeneralEventType>;
  eventValue: z.ZodMiniType<string>;
  occurredAt: typeof occurredAt;
}>;

export const eventBody = z
  .discriminatedUnion('eventType', generalEventOptions, {
    // No option's `eventType` matched: say which types there are (and where logins go).
    error: (issue) => {
      if (issue.code !== 'invalid_union') return undefined;
      return (issue.input as { eventType?: unknown } | undefined)?.eventType === LOGIN_EVENT_TYPE
        ? 'login events are recorded with POST /api/behavior/login'
        : `must be one of ${GENERAL_EVENT_TYPES.join(', ')}`;
    },
  })
  .check(z.meta({ discriminator: { propertyName: 'eventType' }, examples: [{ eventType: 'subtitle_layout', eventValue: 'bottom' }] }));
export type GeneralEventInput = z.output<typeof eventBody>;

/** `location`: free text (seed 4.12), 1..200 characters (contract section 4). */
export const loginBody = z.object({
  location: textField(1, 200).check(
    notBlank(),
    z.meta({ description: 'Free text', examples: ['Shanghai, China'] }),
  ),
});

/**
 * The most events one batch takes: a few days of an app's interface choices (about a dozen a
 * day) queued while offline. With the account check, the idempotency record and one statistics
 * item per type, a batch stays far inside DynamoDB's 100 items per transaction.
 */
export const MAX_EVENTS_PER_BATCH = 50;

/** `POST /api/behavior/events/batch`: general events as `POST /api/behavior/events` takes them, oldest first. */
export const eventBatchBody = z.object({
  events: z.array(eventBody).check(
    z.minLength(1, 'must hold at least one event'),
    z.maxLength(MAX_EVENTS_PER_BATCH, `must hold at most ${MAX_EVENTS_PER_BATCH} events`),
    z.meta({ description: `1 to ${MAX_EVENTS_PER_BATCH} events, in the order they happened (the last of a type becomes its lastValue)` }),
  ),
});
export type EventBatchInput = z.output<typeof eventBatchBody>;
