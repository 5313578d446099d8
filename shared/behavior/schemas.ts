import * as z from 'zod';
import { languageTagSchema, textField } from '../http/fields';

/** The types of seed 2.5 recorded through POST /api/behavior/events, in the seed's order. */
export const GENERAL_EVENT_TYPES = [
  'translation_on',
  'voice_provider',
  'language_choice',
  'ambient_sound',
  'subtitle_layout',
  'volume_detection',
] as const;
export type GeneralEventType = (typeof GENERAL_EVENT_TYPES)[number];
export type EventType = GeneralEventType | 'login';

const isGeneralType = (value: string): value is GeneralEventType => (GENERAL_EVENT_TYPES as readonly string[]).includes(value);

/** Contract section 4: what `eventValue` may be for each type. */
export const EVENT_VALUE_RULES: Record<GeneralEventType, z.ZodType<string>> = {
  translation_on: z.enum(['true', 'false'], 'must be "true" or "false" for translation_on'),
  voice_provider: textField(1, 64).refine((value) => value.trim().length > 0, 'must not be blank'),
  language_choice: languageTagSchema,
  ambient_sound: z.enum(['enabled', 'disabled'], 'must be "enabled" or "disabled" for ambient_sound'),
  subtitle_layout: z.enum(['top', 'bottom'], 'must be "top" or "bottom" for subtitle_layout'),
  volume_detection: z.enum(['auto', 'manual'], 'must be "auto" or "manual" for volume_detection'),
};

export const eventBody = z
  .object({ eventType: z.string(), eventValue: z.string() })
  .superRefine((event, ctx) => {
    if (event.eventType === 'login') {
      ctx.addIssue({ code: 'custom', path: ['eventType'], message: 'login events are recorded with POST /api/behavior/login' });
      return;
    }
    if (!isGeneralType(event.eventType)) {
      ctx.addIssue({ code: 'custom', path: ['eventType'], message: `must be one of ${GENERAL_EVENT_TYPES.join(', ')}` });
      return;
    }
    const value = EVENT_VALUE_RULES[event.eventType].safeParse(event.eventValue);
    if (!value.success) ctx.addIssue({ code: 'custom', path: ['eventValue'], message: value.error.issues[0]!.message });
  })
  .transform((event) => event as { eventType: GeneralEventType; eventValue: string });
export type GeneralEventInput = z.output<typeof eventBody>;

/** `location`: free text (seed 4.12), 1..200 characters (contract section 4). */
export const loginBody = z.object({
  location: textField(1, 200).refine((value) => value.trim().length > 0, 'must not be blank'),
});
