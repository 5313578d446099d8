import { readOperations } from './fixtures';
import type { SeededAccount } from './fixtures';
import type { Bench, RequestSpec } from './harness';
import { READ_COST_OPERATIONS } from './read-cost';
import { REFRESH_OPERATION } from './refresh';
import { PAGE_LIMIT, SEARCH_OPERATION, SEARCH_QUERIES } from './search';
import { REPLACED_READS, SUMMARY_OPERATION } from './summary';
import { FEED_PAGE } from './sync';

/**
 * Every request `npm run bench` times, one entry each, from the lists and constants its parts time:
 * the overhead and throughput reads (`readOperations`: every GET route that reads the table, with
 * its fixture), refresh, the read-cost reads, the app open (the summary and the four reads it
 * replaces), the search pages, the sync part's feed and list pages and the account deletion.
 * test/integration/bench-operations.test.ts calls each once and wants what the bench wants (the
 * handler timers stop on anything but 200), so a new route, or a new required parameter, cannot
 * make `npm run bench` crash unseen. Left out: the login timing (identity), which times a refused
 * login on purpose and checks that answer itself.
 */
export interface TimedOperation {
  /** The bench part that times it (`--only` names). */
  part: 'overhead' | 'refresh' | 'read-cost' | 'summary' | 'search' | 'sync' | 'deletion';
  id: string;
  /** The request as the part makes it, for a typical seeded account (TYPICAL_ACCOUNT). */
  request(bench: Bench, account: SeededAccount): Promise<RequestSpec>;
  /** What the part goes on with: its handler timers stop on anything but 200, the deletion's call on anything but a 2xx. */
  accepts?: '2xx';
}

const plain = (query?: Record<string, string>) => async (_bench: Bench, account: SeededAccount) => ({ account, ...(query ? { query } : {}) });

export function timedOperations(): TimedOperation[] {
  return [
    ...readOperations().operations.map((operation) => ({ part: 'overhead' as const, id: operation.id, request: async (_bench: Bench, account: SeededAccount) => operation.spec(account) })),
    {
      part: 'refresh',
      id: REFRESH_OPERATION,
      // A session of its own, as refresh.ts signs its pool in.
      request: async (bench) => {
        const email = `timed-refresh-${process.pid}-${Date.now()}@example.com`;
        await bench.call('POST /api/verify-code/send', { body: { type: 'email', target: email } });
        const code = bench.outbox.list(email)[0]!.code;
        const { refreshToken } = await bench.call<{ refreshToken: string }>('POST /api/verify-code/verify', { body: { target: email, verifyCode: code } });
        return { body: { refreshToken } };
      },
    },
    ...READ_COST_OPERATIONS.map((id) => ({ part: 'read-cost' as const, id, request: plain() })),
    { part: 'summary', id: SUMMARY_OPERATION, request: plain() },
    ...REPLACED_READS.map((read) => ({ part: 'summary' as const, id: read.id, request: plain(read.query) })),
    ...SEARCH_QUERIES.map((search) => ({ part: 'search' as const, id: SEARCH_OPERATION, request: plain({ q: search.q, limit: String(PAGE_LIMIT) }) })),
    { part: 'sync', id: 'GET /api/transcriptions/changes', request: plain({ limit: String(FEED_PAGE) }) },
    { part: 'sync', id: 'GET /api/transcriptions', request: plain({ limit: String(FEED_PAGE) }) },
    // Deletion deletes the account it is given: one of its own.
    { part: 'deletion', id: 'DELETE /api/users/me', request: async (bench) => ({ account: await bench.signUp('timed-delete') }), accepts: '2xx' },
  ];
}
