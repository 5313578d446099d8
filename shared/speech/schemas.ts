import * as z from 'zod/mini';
import { languageTagSchema } from '../fields';
import { SPEECH_PROVIDER_NAMES } from '../config';

/** A lower-case UUID, as the app makes them (`crypto.randomUUID()`). */
const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The session ids the service makes (UUIDs): the path parameter of renew and end. */
export const speechSessionParams = z.object({
  sessionId: z.string().check(z.regex(LOWER_UUID, 'must be a session id (a lower-case UUID)'), z.describe('The session, as its start answered it')),
});

/** Seconds the app has streamed since the start, from a monotonic clock; fractions are rounded up. */
const elapsedSeconds = z.number().check(z.minimum(0), z.maximum(7 * 86_400), z.describe('Seconds streamed since the start, by the app’s monotonic clock (rounded up to whole seconds)'));

export const startSpeechBody = z.object({
  provider: z.enum(SPEECH_PROVIDER_NAMES).check(z.describe('azure, deepgram, aws (Amazon Transcribe) or tencent: one this deployment configures')),
  language: languageTagSchema,
  clientSessionId: z.string().check(
    z.regex(LOWER_UUID, 'must be a lower-case UUID'),
    z.describe('A UUID (lower case) the app makes per session: a repeated start with the same body answers the same session (200, `Idempotent-Replayed: true`); with another body 409 `CLIENT_SESSION_ID_REUSED`'),
  ),
  sampleRate: z.optional(z.union([z.literal(8000), z.literal(16000)]).check(z.describe('Hz; 16000 unless given'))),
});

export const renewSpeechBody = z.object({ elapsedSeconds });

export const endSpeechBody = z.object({
  elapsedSeconds,
  clientRecordId: z.optional(z.string().check(z.regex(LOWER_UUID, 'must be a lower-case UUID'), z.describe('The `clientRecordId` of the record the session produced (it need not exist yet)'))),
});
