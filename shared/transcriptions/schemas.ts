import * as z from 'zod/mini';
import { languageTagSchema, textField } from '../http/fields';
import { boundedIntegerParameter } from '../http/pagination';

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
};

export const newTranscriptionBody = z.object(fields);
export type NewTranscription = z.output<typeof newTranscriptionBody>;

/** PATCH: any of the four fields, at least one. */
export const transcriptionPatchBody = z
  .object({
    recordTitle: z.optional(fields.recordTitle),
    text: z.optional(fields.text),
    language: z.optional(fields.language),
    durationSeconds: z.optional(fields.durationSeconds),
  })
  .check(
    z.refine((patch) => Object.values(patch).some((value) => value !== undefined), {
      message: 'give at least one of recordTitle, text, language, durationSeconds',
    }),
  );
export type TranscriptionPatch = z.output<typeof transcriptionPatchBody>;

/** Ids are positive integers below 2^53; anything else names no record. */
export const transcriptionPathParams = z.object({
  id: z
    .pipe(
      z.string().check(
        z.regex(/^[1-9]\d{0,15}$/, 'must be a positive integer'),
        z.meta({ description: 'The `transcriptionRecordId`', examples: ['1'] }),
      ),
      z.transform(Number),
    )
    .check(z.refine(Number.isSafeInteger, 'must be a positive integer')),
});

/** `?days=` 1..366 (a leap year), default 30 (contract section 4). */
export const usageQuery = z.object({ days: boundedIntegerParameter('days', 1, 366, 30) });
