// The same request schema in zod/mini.
import * as z from 'zod/mini';

export const schema = z.object({
  recordTitle: z.string().check(z.minLength(1), z.maxLength(200)),
  durationSeconds: z.optional(z.number().check(z.int(), z.minimum(0))),
});

export const firstUse = () => z.safeParse(schema, { recordTitle: 'Standup', durationSeconds: 90 });
