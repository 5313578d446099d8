import * as z from 'zod/mini';
import { boundedIntegerParameter } from '../api/integer-parameter';

/** Ids are positive integers below 2^53; anything else names no record. */
export const transcriptionPathParams = z.object({
  id: z
    .pipe(
      z.string().check(
        z.regex(/^[1-9]\d{0,15}$/, 'must be a positive integer'),
        z.meta({ description: 'The `transcriptionRecordId`', integer: { minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, examples: [1] }),
      ),
      z.transform(Number),
    )
    .check(z.refine(Number.isSafeInteger, 'must be a positive integer')),
});

/** `?days=` 1..366 (a leap year), default 30 (contract section 4). */
export const usageQuery = z.object({ days: boundedIntegerParameter('days', 1, 366, 30) });
