// A request schema in classic zod, as the handlers write them.
import * as z from 'zod';

export const schema = z.object({ recordTitle: z.string().min(1).max(200), durationSeconds: z.number().int().min(0).optional() });
