import { endpoint } from '../../shared/http/endpoint';
import { changes } from '../../shared/transcriptions/change-feed';
import { changeFeedQuery } from '../../shared/transcriptions/parameters';

/** The change feed (docs/sync.md): the caller's record changes since a cursor, in commit order, each record once. */
export const handler = endpoint('GET /api/transcriptions/changes', {
  query: changeFeedQuery,
  response: 'changeFeedPageSchema',
  docs: {
    summary: 'The changes of your records since a cursor',
    description:
      'Without `cursor`: from the beginning, every live record and the tombstones kept (a new device, a reinstall). With the `cursor` of the previous answer: exactly the changes committed since, each record once at its latest state, in commit order, at most `limit` and at most 1 MB of JSON. `hasMore: false`: up to date; keep the cursor in every case. A cursor older than RECORD_TOMBSTONE_RETENTION_SECONDS answers 410 `CURSOR_EXPIRED` when records changed since: walk again without a cursor and drop the local records that walk does not bring (docs/sync.md).',
    errors: ['CURSOR_EXPIRED'],
  },
  run: ({ query, caller }, ctx) => changes(ctx, caller, query),
});
