import { createHash } from 'node:crypto';
import { assertAccountCurrent } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { claimIdempotencyKey, findLiveIdempotencyRecord, IdempotentReplay } from '../db/idempotency-repository';
import type { IdempotencyRecord } from '../db/idempotency-repository';
import type { Remember } from '../db/transactions';
import { IdempotencyKeyReusedError, ValidationError } from '../errors';
import { epochSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { headerValue } from './headers';
import { Reply } from './response';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** A repeat within this window returns the first response (contract section 4). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** Visible ASCII, as the IETF draft's examples and Stripe's keys are; long enough for any UUID scheme. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, checked; undefined when the header is absent. */
export function idempotencyKey(headers: Record<string, string | undefined>): string | undefined {
  const value = headerValue(headers, IDEMPOTENCY_HEADER);
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    const message = 'must be 1 to 255 visible ASCII characters';
    throw new ValidationError(`Invalid request: header.${IDEMPOTENCY_HEADER} ${message}`, [
      { path: `header.${IDEMPOTENCY_HEADER}`, message },
    ]);
  }
  return value;
}

interface IdempotentCall {
  account: AccountRef;
  /** The operation; a key is scoped to one operation, so reusing it on another does no harm. */
  scope: string;
  key: string | undefined;
  /** The validated request; a repeat must match it. */
  request: unknown;
}


const fingerprint = (scope: string, request: unknown) =>
  createHash('sha256').update(JSON.stringify([scope, request])).digest('hex');

function replay<T>(record: IdempotencyRecord, requestHash: string): Reply<T> {
  if (record.requestHash !== requestHash) {
    throw new IdempotencyKeyReusedError('This Idempotency-Key was already used for a different request.');
  }
  return new Reply(record.response as T, { 'Idempotent-Replayed': 'true' });
}

/**
 * Runs a write operation at most once per Idempotency-Key (per account and operation) within 24
 * hours. A repeat answers the stored first response (with `Idempotent-Replayed: true`) and writes
 * nothing; the same key with a different request is refused (422), as the IETF
 * Idempotency-Key draft advises, rather than silently answering for another request. The key is
 * claimed in the operation's own transaction (`remember`), so there is no in-between state: of
 * concurrent repeats exactly one does the work and the others replay its response.
 */
async function idempotently<T extends object>(
  ctx: ServiceContext,
  call: IdempotentCall,
  perform: (remember: Remember<T>) => Promise<T>,
): Promise<T | Reply<T>> {
  const { key } = call;
  if (key === undefined) return perform(() => []);
  const userId = call.account.userId;
  const requestHash = fingerprint(call.scope, call.request);
  const now = epochSeconds(ctx.clock.now());
  const stored = await findLiveIdempotencyRecord(ctx.db, userId, call.scope, key, now);
  if (stored) {
    // A replay writes nothing, so no transaction checks the account: a read's rule applies.
    await assertAccountCurrent(ctx.db, call.account);
    return replay(stored, requestHash);
  }
  try {
    return await perform((response) => [
      claimIdempotencyKey(
        ctx.db,
        userId,
        call.scope,
        key,
        { requestHash, response: response as Record<string, unknown>, expiresAt: now + IDEMPOTENCY_WINDOW_SECONDS },
        now,
      ),
    ]);
  } catch (error) {
    if (error instanceof IdempotentReplay) return replay(error.record, requestHash);
    throw error;
  }
}

/**
 * An endpoint's `idempotency`: runs the operation through `idempotently` with the request's
 * Idempotency-Key, caller and validated body. Given to `endpoint()` by the handlers that take the
 * header, so the other functions do not bundle this module.
 */
export type Idempotency = <T extends object>(
  ctx: ServiceContext,
  /** What of the request it reads (the endpoint's input has these). */
  input: { caller: AccountRef; headers: Record<string, string | undefined>; body: unknown },
  perform: (remember: Remember<T>) => Promise<T>,
) => Promise<T | Reply<T>>;

/** Idempotency-Key honoured for one operation; `scope` names it (a key is scoped to one operation). */
export function idempotentIn(scope: string): Idempotency {
  return (ctx, input, perform) =>
    idempotently(ctx, { account: input.caller, scope, key: idempotencyKey(input.headers), request: input.body }, perform);
}
