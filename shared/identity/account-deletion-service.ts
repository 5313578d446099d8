import { performance } from 'node:perf_hooks';
import type { AccountRef } from '../db/account-guard';
import { endAccount, purgeAccountData } from '../db/account-deletion';
import { recordRevocationWrite } from '../db/apple-revocations-repository';
import { findSocialIdentity } from '../db/social-identities-repository';
import type { GuardedWrite } from '../db/transactions';
import { findUserAndIdentitiesForToken } from '../db/users-repository';
import { UnauthorizedError } from '../errors';
import { isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';

/**
 * Time a deletion request keeps for itself after its purge: the purge checks the time before each
 * step (shared/db/account-deletion.ts PURGE_STEP_ITEMS), so the last step and the answer fit in
 * this much, with room for a slow DynamoDB call, before the function times out.
 */
export const PURGE_SAFETY_MARGIN_MS = 2_000;

/** What the caller learns: the account is gone either way; the purge may go on in the job. */
export interface AccountDeletion {
  purgeFinished: boolean;
}

/**
 * Deletes the caller's account and everything it owns (contract section 4): first the account
 * ends atomically (tokens fail, e-mail and phone are free), then its data and serials are
 * removed for ACCOUNT_PURGE_BUDGET_MS at most, and never past the invocation's remaining time less a
 * margin, and the
 * scheduled job (functions/jobs/resume-account-purges.ts) removes the rest. The answer therefore
 * takes a bounded time however much the account holds. After this, the same e-mail or phone signs
 * up as a new user with a new id, whose data the purge never touches. An Apple identity's token is
 * recorded for revocation with the deletion (`appleRevocation` below); `revokeApple: false` when
 * Apple itself told us the account is gone (its `account-delete` notification).
 */
export async function deleteAccount(ctx: ServiceContext, account: AccountRef, options: { revokeApple?: boolean } = {}): Promise<AccountDeletion> {
  const found = await findUserAndIdentitiesForToken(ctx.db, account);
  if (!found) throw new UnauthorizedError('Unauthorized');
  const { user, socialSubjects } = found;
  const requestedAt = isoSeconds(ctx.clock.now());
  const revocation = options.revokeApple === false ? [] : await appleRevocation(ctx, user.userId, socialSubjects.apple, requestedAt);
  await endAccount(ctx.db, user, account, requestedAt, revocation);
  // Counted once the account has ended: the purge that follows may be finished by the job.
  ctx.metrics.count('AccountsDeleted');
  if (revocation.length > 0) ctx.log.info('apple token revocation recorded', { userId: user.userId });
  // Monotonic time: the budget must not move with the wall clock (or a test's clock).
  const budgetEnds = performance.now() + Math.min(ctx.config.ACCOUNT_PURGE_BUDGET_MS, ctx.remainingTimeMs() - PURGE_SAFETY_MARGIN_MS);
  const { finished, deletedItems } = await purgeAccountData(ctx.db, user.userId, () => budgetEnds - performance.now());
  if (!finished) ctx.log.info('account purge left to the job', { userId: user.userId, deletedItems });
  return { purgeFinished: finished };
}

/**
 * The revocation of the account's Apple token, recorded in the deletion's own transaction (issue
 * 38, App Store Review Guideline 5.1.1(v)): the job functions/jobs/revoke-apple-tokens.ts calls
 * Apple, so the answer never waits for Apple and an Apple outage only delays it. Read only when the
 * profile names an Apple identity: other deletions cost no request more.
 */
async function appleRevocation(ctx: ServiceContext, userId: number, subject: string | undefined, requestedAt: string): Promise<GuardedWrite[]> {
  if (subject === undefined) return [];
  const identity = await findSocialIdentity(ctx.db, userId, 'apple', subject);
  if (!identity?.appleRefreshToken) return [];
  return [recordRevocationWrite(ctx.db, { userId, subject, clientId: identity.clientId, sealedToken: identity.appleRefreshToken, requestedAt })];
}
