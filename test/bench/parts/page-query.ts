// `?limit=&cursor=` of every list, in zod/mini, with what it imports; first use: one query parsed.
import * as z from 'zod/mini';
import { pageQuerySchema } from '../../../shared/http/pagination';

export const firstUse = () => z.safeParse(pageQuerySchema, { limit: '20' });
