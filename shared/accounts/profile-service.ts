import type { AccountRef } from '../db/account-guard';
import { accountSubject, clearLoginFailures, lockLogin, reserveLoginAttempt } from '../db/login-failures-repository';
import { readAccountSessions, sessionIdsOf } from '../db/sessions-repository';
import { writeAtomically } from '../db/transactions';
import {
  IdentityChangedError,
  changeIdentity,
  findUserForToken,
  findUserIdByIdentity,
  replacePasswordInSession,
  updateProfileSettings,
} from '../db/users-repository';
import type { UserRecord } from '../db/users-repository';
import { keys } from '../db/keys';
import { AccountExistsError, CodeInvalidError, InvalidCredentialsError, LoginLockedError, ServiceUnavailableError, UnauthorizedError, ValidationError } from '../errors';
import { LOGIN_LOCK_POLICY, publicUser } from '../identity/account-service';
import type { PublicUser } from '../identity/account-service';
import { hashingParameters, hashPassword, verifyPassword } from '../identity/passwords';
import { openSession } from '../identity/session-service';
import type { IssuedTokens } from '../identity/session-service';
import type { Target } from '../identity/targets';
import { checkCodeOrSpent } from '../identity/verification-service';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { canonicalTimeZone } from '../time-zones';

/** Rounds of a change that met a concurrent change of the same profile; more means something is wrong. */
const CHANGE_ROUNDS = 3;

async function currentUserOf(ctx: ServiceContext, caller: AccountRef): Promise<UserRecord> {
  const user = await findUserForToken(ctx.db, caller);
  if (!user) throw new UnauthorizedError('Unauthorized');
  return user;
}

/**
 * Sets the person's time zone and locale (PATCH /api/users/me). A zone must be one the runtime's
 * ICU knows by its IANA name; null sets it back to UTC.
 */
export async function updateSettings(
  ctx: ServiceContext,
  caller: AccountRef,
  changes: { timeZone?: string | null; locale?: string | null },
): Promise<PublicUser> {
  let timeZone = changes.timeZone;
  if (typeof timeZone === 'string') {
    timeZone = canonicalTimeZone(timeZone);
    if (timeZone === undefined) {
      const message = 'must be an IANA time zone name such as Asia/Shanghai or America/New_York';
      throw new ValidationError(`Invalid request: body.timeZone ${message}`, [{ path: 'body.timeZone', message }]);
    }
  }
  for (let round = 0; round < CHANGE_ROUNDS; round++) {
    const user = await currentUserOf(ctx, caller);
    const updatedAt = isoSeconds(ctx.clock.now());
    const settings = { timeZone, locale: changes.locale };
    try {
      await updateProfileSettings(ctx.db, caller, user, settings, updatedAt);
    } catch (error) {
      if (error instanceof IdentityChangedError) continue;
      throw error;
    }
    return publicUser({ ...user, ...(timeZone === undefined ? {} : { timeZone }), ...(changes.locale === undefined ? {} : { locale: changes.locale }), updatedAt });
  }
  throw new ServiceUnavailableError('The account kept changing during the request; try again.');
}

/**
 * Links or changes the account's e-mail or phone (PUT /api/users/me/email|phone). The code proves
 * the new target, as at sign-in (expiry, five tries, single use); it is spent in the transaction
 * that claims the new target and frees the old one, so a failure leaves the old one working.
 */
export async function changeTarget(ctx: ServiceContext, caller: AccountRef, target: Target, code: string): Promise<PublicUser> {
  const spendCode = await checkCodeOrSpent(ctx, target.value, code);
  if (spendCode === 'spent') {
    // The right code, already used: if another account claimed the target with it, that is what
    // this request lost to (two accounts racing for one target); otherwise it is simply used.
    const holder = await findUserIdByIdentity(ctx.db, target.kind, target.value);
    if (holder !== undefined && holder !== caller.userId) throw new AccountExistsError('An account with this e-mail address or phone number already exists.');
    ctx.metrics.count('CodeVerificationsFailed');
    throw new CodeInvalidError('The verification code is invalid or has expired.');
  }
  for (let round = 0; round < CHANGE_ROUNDS; round++) {
    const user = await currentUserOf(ctx, caller);
    const from = user[target.kind];
    if (from === target.value) {
      // Already this account's: nothing to move; the code is spent all the same.
      await writeAtomically(ctx.db, [spendCode]);
      return publicUser(user);
    }
    const updatedAt = isoSeconds(ctx.clock.now());
    try {
      await changeIdentity(ctx.db, caller, target.kind, from, target.value, user.locale, updatedAt, [spendCode]);
      return publicUser({ ...user, [target.kind]: target.value, updatedAt });
    } catch (error) {
      if (!(error instanceof IdentityChangedError)) throw error;
    }
  }
  throw new ServiceUnavailableError('The account kept changing during the request; try again.');
}

export interface PasswordChanged {
  /** Set when the caller's own token had to be replaced (a token from before sessions). */
  tokens?: IssuedTokens;
}

/**
 * Sets or changes the password from a signed-in session (PUT /api/users/me/password). An account
 * with a password must confirm it, under the same lock as password login; one created by code sets
 * its first password without. Every other session ends; the caller's stays.
 */
export async function changePassword(
  ctx: ServiceContext,
  caller: AccountRef,
  currentPassword: string | undefined,
  newPassword: string,
  clientName: string,
): Promise<PasswordChanged> {
  const user = await currentUserOf(ctx, caller);
  if (user.passwordHash !== null) {
    if (currentPassword === undefined) {
      const message = 'is required: the account has a password';
      throw new ValidationError(`Invalid request: body.currentPassword ${message}`, [{ path: 'body.currentPassword', message }]);
    }
    const subject = accountSubject(user.userId);
    const now = epochSeconds(ctx.clock.now());
    // Counted before scrypt runs, as at login: parallel guesses cannot outrun the lock.
    const attempt = await reserveLoginAttempt(ctx.db, subject, now, LOGIN_LOCK_POLICY);
    if (!attempt.reserved) throw new LoginLockedError('Too many failed attempts. Try again later.', attempt.retryAfterSeconds);
    if (!(await verifyPassword(currentPassword, user.passwordHash))) {
      if (attempt.attemptsInWindow >= LOGIN_LOCK_POLICY.maxFailures) {
        await lockLogin(ctx.db, subject, now, LOGIN_LOCK_POLICY);
        ctx.metrics.count('LoginLockouts');
      }
      throw new InvalidCredentialsError('The current password is wrong.');
    }
    await clearLoginFailures(ctx.db, subject);
  }
  const newHash = await hashPassword(newPassword, hashingParameters(ctx.config));
  const ending = sessionIdsOf(await readAccountSessions(ctx.db, user.userId)).filter((sessionId) => sessionId !== caller.sessionId);
  const updatedAt = isoSeconds(ctx.clock.now());
  // A token from before sessions names no session to keep: the version rises, ending every token
  // of the account, and the caller gets a session of its own in the answer.
  const replaceCaller = caller.sessionId === undefined;
  await writeAtomically(ctx.db, [
    replacePasswordInSession(ctx.db, caller, user.passwordHash, newHash, updatedAt, ending, replaceCaller),
    ...ending.map((sessionId) => ({ item: { Delete: { TableName: ctx.db.tableName, Key: keys.session(user.userId, sessionId) } } })),
  ]);
  if (!replaceCaller) return {};
  return { tokens: await openSession(ctx, { userId: user.userId, tokenVersion: user.tokenVersion + 1 }, clientName) };
}
