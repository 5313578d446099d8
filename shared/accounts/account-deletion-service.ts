import { performance } from 'node:perf_hooks';
import type { AccountRef } from '../db/account-guard';
import { endAccount, purgeAccountData } from '../db/account-deletion';
import { findUserForToken } from '../db/users-repository';
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
 * up as a new user with a new id, whose data the purge never touches.
 */
export async function deleteAccount(ctx: ServiceContext, account: AccountRef): Promise<AccountDeletion> {
  const user = await findUserForToken(ctx.db, account);
  if (!user) throw new UnauthorizedError('Unauthorized');
  await endAccount(ctx.db, user, account, isoSeconds(ctx.clock.now()));
  // Counted once the account has ended: the purge that follows may be finished by the job.
  ctx.metrics.count('AccountsDeleted');
  // Monotonic time: the budget must not move with the wall clock (or a test's clock).
  const budgetEnds = performance.now() + Math.min(ctx.config.ACCOUNT_PURGE_BUDGET_MS, ctx.remainingTimeMs() - PURGE_SAFETY_MARGIN_MS);
  const { finished, deletedItems } = await purgeAccountData(ctx.db, user.userId, () => budgetEnds - performance.now());
  if (!finished) ctx.log.info('account purge left to the job', { userId: user.userId, deletedItems });
  return { purgeFinished: finished };
}
