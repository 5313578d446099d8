import type { AccountRef } from '../db/account-guard';
import { endAccount, purgeAccountData } from '../db/account-deletion';
import { findUserForToken } from '../db/users-repository';
import { UnauthorizedError } from '../errors';
import { isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';

/**
 * Deletes the caller's account and everything it owns (contract section 4): first the account
 * ends atomically (tokens fail, e-mail and phone are free), then its data and serials are
 * removed. After this, the same e-mail or phone signs up as a new user with a new id.
 */
export async function deleteAccount(ctx: ServiceContext, account: AccountRef): Promise<void> {
  const user = await findUserForToken(ctx.db, account);
  if (!user) throw new UnauthorizedError('Unauthorized');
  await endAccount(ctx.db, user, account, isoSeconds(ctx.clock.now()));
  // Counted once the account has ended: the purge that follows may be finished by the job.
  ctx.metrics.count('AccountsDeleted');
  await purgeAccountData(ctx.db, user.userId);
}
