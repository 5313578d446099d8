import * as z from 'zod/mini';
import { languageTagSchema, textField } from '../fields';
import { GENERAL_EVENT_TYPES, LOGIN_EVENT_TYPE } from './event-types';
import type { GeneralEventType } from './event-types';

const isGeneralType = (value: string): value is GeneralEventType => (GENERAL_EVENT_TYPES as readonly string[]).includes(value);

/** Contract section 4: what `eventValue` may be for each type. */
export const EVENT_VALUE_RULES: Record<GeneralEventType, z.ZodMiniType<string>> = {
  translation_on: z.enum(['true', 'false'], 'must be "true" or "false" for translation_on'),
  voice_provider: textField(1, 64).check(z.refine((value) => value.trim().length > 0, 'must not be blank')),
  language_choice: languageTagSchema,
  ambient_sound: z.enum(['enabled', 'disabled'], 'must be "enabled" or "disabled" for ambient_sound'),
  subtitle_layout: z.enum(['top', 'bottom'], 'must be "top" or "bottom" for subtitle_layout'),
  volume_detection: z.enum(['auto', 'manual'], 'must be "auto" or "manual" for volume_detection'),
};

export const eventBody = z.pipe(
  z
    .object({
      // The enum and the value rules are checked below (with messages that say which rule broke); stated here for the API reference.
      eventType: z.string().check(z.meta({ enum: [...GENERAL_EVENT_TYPES], examples: ['subtitle_layout'] })),
      eventValue: z.string().check(
        z.meta({
          description:
            'Per type: translation_on `true`/`false`; voice_provider 1 to 64 characters; language_choice like `zh-CN`; ' +
            'ambient_sound `enabled`/`disabled`; subtitle_layout `top`/`bottom`; volume_detection `auto`/`manual`',
          examples: ['bottom'],
        }),
      ),
    })
    .check(z.superRefine((event, ctx) => {
    if (event.eventType === LOGIN_EVENT_TYPE) {
      ctx.addIssue({ code: 'custom', path: ['eventType'], message: 'login events are recorded with POST /api/behavior/login' });
      return;
    }
    if (!isGeneralType(event.eventType)) {
      ctx.addIssue({ code: 'custom', path: ['eventType'], message: `must be one of ${GENERAL_EVENT_TYPES.join(', ')}` });
      return;
    }
    const value = z.safeParse(EVENT_VALUE_RULES[event.eventType], event.eventValue);
    if (!value.success) ctx.addIssue({ code: 'custom', path: ['eventValue'], message: value.error.issues[0]!.message });
  })),
  z.transform((event: { eventType: string; eventValue: string }) => event as { eventType: GeneralEventType; eventValue: string }),
);
export type GeneralEventInput = z.output<typeof eventBody>;

/** `location`: free text (seed 4.12), 1..200 characters (contract section 4). */
export const loginBody = z.object({
  location: textField(1, 200).check(
    z.refine((value) => value.trim().length > 0, 'must not be blank'),
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
