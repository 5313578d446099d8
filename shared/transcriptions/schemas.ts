import * as z from 'zod/mini';
import { atLeastOneOf, languageTagSchema, textField } from '../fields';
import { ISO_SECONDS_PATTERN } from '../ports/clock';

// Request bodies. The path and query schemas are in parameters.ts, so that the functions that
// only read or delete do not build these at cold start.

/** Contract section 4: title 1..200 characters, text up to 100 000, duration 0..86 400 s. */
export const TITLE_MAX = 200;
export const TEXT_MAX = 100_000;
export const DURATION_MAX_SECONDS = 86_400;

const fields = {
  recordTitle: textField(1, TITLE_MAX).check(z.meta({ examples: ['Weekly team meeting'] })),
  // An empty text is a recording in which nothing was said: it still counts as usage.
  text: textField(0, TEXT_MAX).check(z.meta({ examples: ['Good morning, everyone. Let us start with the release plan.'] })),
  language: languageTagSchema,
  durationSeconds: z
    .number()
    .check(z.int('must be a whole number of seconds'), z.gte(0), z.lte(DURATION_MAX_SECONDS), z.meta({ examples: [1800] })),
  // Its range (5 minutes ahead at most, 366 days back at most) depends on the clock: checked by the service.
  startedAt: z.optional(
    z.string().check(
      z.regex(ISO_SECONDS_PATTERN, 'must be ISO 8601 UTC at second precision, like 2026-01-29T10:30:00Z'),
      z.meta({
        format: 'date-time',
        description: 'When the recording began (a device that was offline syncs later); at most 5 minutes ahead, at most 366 days back. Default: now',
        examples: ['2026-01-29T10:30:00Z'],
        beyondSchema: '`startedAt` must be a real moment (no leap second), at most 5 minutes ahead of the server\'s clock and at most 366 days back',
      }),
    ),
  ),
};

/** A UUID in canonical lower-case form, as `crypto.randomUUID()` makes them. */
export const CLIENT_RECORD_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const newTranscriptionBody = z.object({
  ...fields,
  // Unique in the account while the record or its tombstone exists: a repeat of the create answers the record (docs/sync.md).
  clientRecordId: z.optional(
    z.string().check(
      z.regex(CLIENT_RECORD_ID_PATTERN, 'must be a UUID in canonical lower-case form, like 6f1c2a9e-5b7d-4c1e-9f0a-6d2b8e4c7a15'),
      z.meta({
        format: 'uuid',
        description:
          'An id of the app’s choice (a UUID, lower case) that makes the create safe to repeat for as long as the record or its tombstone exists: the same id with the same body answers the record (200, `Idempotent-Replayed: true`) and writes nothing; with another body 409 `CLIENT_RECORD_ID_REUSED`; once the record is deleted 410 `RECORD_DELETED`',
        examples: ['6f1c2a9e-5b7d-4c1e-9f0a-6d2b8e4c7a15'],
      }),
    ),
  ),
});
export type NewTranscription = z.output<typeof newTranscriptionBody>;

/** PATCH: any of the five fields, at least one. */
const patchFields = {
  recordTitle: z.optional(fields.recordTitle),
  text: z.optional(fields.text),
  language: z.optional(fields.language),
  durationSeconds: z.optional(fields.durationSeconds),
  startedAt: fields.startedAt,
};
export const transcriptionPatchBody = z.object(patchFields).check(...atLeastOneOf(Object.keys(patchFields)));
export type TranscriptionPatch = z.output<typeof transcriptionPatchBody>;
