import { createHash } from 'node:crypto';
import type { AppContext } from '../../context';
import { assertAccountCurrent } from '../../db/account-guard';
import { claimIdempotencyKey, findLiveIdempotencyRecord, IdempotentReplay } from '../../db/idempotency-repository';
import { IdempotencyKeyReusedError, UnauthorizedError } from '../../errors';
import { epochSeconds } from '../../ports/clock';
import { IDEMPOTENCY_WINDOW_SECONDS, idempotencyKey } from '../idempotency';
import { Reply } from '../response';
import type { EndpointMiddleware } from './invocation';

const fingerprint = (scope: string, request: unknown) => createHash('sha256').update(JSON.stringify([scope, request])).digest('hex');

/**
 * Runs a write operation at most once per Idempotency-Key (per account and operation) within 24
 * hours. A repeat answers the stored first response (with `Idempotent-Replayed: true`) and writes
 * nothing; the same key with a different request is refused (422), as the IETF Idempotency-Key
 * draft advises, rather than silently answering for another request. The key is claimed in the
 * operation's own transaction (`context.remember`, which the handler adds to it), so there is no
 * in-between state: of concurrent repeats exactly one does the work and the others replay its
 * response.
 *
 * `before` finds a stored response and throws IdempotentReplay, as the transaction of a
 * concurrent repeat does; `onError` answers both the same way. A replay thus skips the handler
 * and still goes through the response middleware and the request log.
 */
function idempotency(app: Pick<AppContext, 'db' | 'clock'>, scope: string): EndpointMiddleware {
  return {
    before: async ({ event, context }) => {
      const key = idempotencyKey(event.headers ?? {});
      if (key === undefined) return;
      const account = context.caller;
      if (!account) throw new UnauthorizedError('Unauthorized');
      const requestHash = (context.requestHash = fingerprint(scope, context.body));
      const now = epochSeconds(app.clock.now());
      const stored = await findLiveIdempotencyRecord(app.db, account.userId, scope, key, now);
      if (stored) {
        // A replay writes nothing, so no transaction checks the account: a read's rule applies.
        await assertAccountCurrent(app.db, account);
        throw new IdempotentReplay(stored);
      }
      context.remember = (response) => [
        claimIdempotencyKey(
          app.db,
          account.userId,
          scope,
          key,
          { requestHash, response: response as Record<string, unknown>, expiresAt: now + IDEMPOTENCY_WINDOW_SECONDS },
          now,
        ),
      ];
    },
    onError: async (request) => {
      if (!(request.error instanceof IdempotentReplay)) return;
      const { record } = request.error;
      if (record.requestHash !== request.context.requestHash) {
        request.error = new IdempotencyKeyReusedError('This Idempotency-Key was already used for a different request.');
        return;
      }
      request.response = new Reply(record.response, { 'Idempotent-Replayed': 'true' });
    },
  };
}

/**
 * An endpoint's `idempotency`: honours Idempotency-Key for one operation; `scope` names it (a key
 * is scoped to one operation, so reusing it on another does no harm). Given to `endpoint()` by the
 * handlers that take the header, so the other functions do not bundle this module.
 */
export const idempotentIn = (scope: string) => (app: Pick<AppContext, 'db' | 'clock'>) => idempotency(app, scope);
export type Idempotency = ReturnType<typeof idempotentIn>;
