/**
 * The event types of seed 2.5, in the seed's order. Kept apart from the request schemas, which
 * are built when their module is imported, so that functions without a request body (stats, the
 * lists) and the response schemas can name the types without building those schemas.
 */
export const GENERAL_EVENT_TYPES = [
  'translation_on',
  'voice_provider',
  'language_choice',
  'ambient_sound',
  'subtitle_layout',
  'volume_detection',
] as const;
export type GeneralEventType = (typeof GENERAL_EVENT_TYPES)[number];

/** Login events are stored with this type and recorded through POST /api/behavior/login only. */
export const LOGIN_EVENT_TYPE = 'login';
export type EventType = GeneralEventType | typeof LOGIN_EVENT_TYPE;
