import * as z from 'zod';
import { languageTagSchema, textField } from '../http/fields';
import { boundedIntegerParameter } from '../http/pagination';

/** Contract section 4: title 1..200 characters, text up to 100 000, duration 0..86 400 s. */
export const TITLE_MAX = 200;
export const TEXT_MAX = 100_000;
export const DURATION_MAX_SECONDS = 86_400;

const fields = {
  recordTitle: textField(1, TITLE_MAX).meta({ examples: ['Weekly team meeting'] }),
  // An empty text is a recording in which nothing was said: it still counts as usage.
  text: textField(0, TEXT_MAX).meta({ examples: ['Good morning, everyone. Let us start with the release plan.'] }),
  language: languageTagSchema,
  durationSeconds: z.number().int('must be a whole number of seconds').min(0).max(DURATION_MAX_SECONDS).meta({ examples: [1800] }),
};

export const newTranscriptionBody = z.object(fields);
export type NewTranscription = z.output<typeof newTranscriptionBody>;

/** PATCH: any of the four fields, at least one. */
export const transcriptionPatchBody = z
  .object({
    recordTitle: fields.recordTitle.optional(),
    text: fields.text.optional(),
    language: fields.language.optional(),
    durationSeconds: fields.durationSeconds.optional(),
  })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), {
    message: 'give at least one of recordTitle, text, language, durationSeconds',
  });
export type TranscriptionPatch = z.output<typeof transcriptionPatchBody>;

/** Ids are positive integers below 2^53; anything else names no record. */
export const transcriptionPathParams = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'must be a positive integer')
    .meta({ description: 'The `transcriptionRecordId`', examples: ['1'] })
    .transform(Number)
    .refine(Number.isSafeInteger, 'must be a positive integer'),
});

/** `?days=` 1..366 (a leap year), default 30 (contract section 4). */
export const usageQuery = z.object({ days: boundedIntegerParameter('days', 1, 366, 30) });
