import * as z from 'zod/mini';
import { exportPage } from '../../shared/accounts/export-service';
import { endpoint } from '../../shared/http/endpoint';

/** Everything the service holds about the caller, in pages of at most 1 MB. */
export const handler = endpoint('GET /api/users/me/export', {
  query: z.object({
    cursor: z.optional(
      z.string().check(z.maxLength(2048, 'cursor is too long'), z.meta({ description: 'The `nextCursor` of the previous page; only valid for the account it came from' })),
    ),
  }),
  response: 'exportPageSchema',
  docs: {
    summary: 'Export all your data',
    description:
      'Pages of at most 1 MB of JSON. The first holds the profile, the devices and the sessions, then records (full text, oldest first) and events (by type, oldest first) follow through `nextCursor` until it is null. Holds every field the API shows you, and no hash, token material or internal key.',
  },
  run: ({ query, caller }, ctx) => exportPage(ctx, caller, query.cursor),
});
