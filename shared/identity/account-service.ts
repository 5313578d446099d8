import { accountSubject, clearLoginFailures, lockLogin, reserveLoginAttempt, targetSubject } from '../db/login-failures-repository';
import type { LockPolicy } from '../db/login-failures-repository';
import { allocateId } from '../db/id-allocator';
import { createUser, findUserByIdentity, findUserForToken, findUserIdByIdentity, replacePassword, upgradePasswordHash } from '../db/users-repository';
import type { TokenSubject, UserRecord } from '../db/users-repository';
import { AccountExistsError, CodeInvalidError, InvalidCredentialsError, LoginLockedError, UnauthorizedError } from '../errors';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { dummyPasswordHash, hashingParameters, hashPassword, needsRehash, verifyPassword } from './passwords';
import type { Target } from './targets';
import { firstSession, openSession } from './session-service';
import type { IssuedTokens } from './session-service';
import { checkCode } from './verification-service';
import type * as z from 'zod/mini';
import type { registeredUserSchema, sessionSchema, userSchema } from '../api/schemas';

/** Contract section 3: 5 failed logins in 15 minutes lock password login for 15 minutes. */
export const LOGIN_LOCK_POLICY: LockPolicy = { maxFailures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

/**
 * The mappers from the stored account to what the API answers of it (shared/api/schemas.ts): each
 * copies the fields its schema lists, in its order, and nothing else, so a password hash, a token
 * version or a session marker of the stored item cannot reach a client.
 */
export type PublicUser = z.output<typeof userSchema>;
/** A sign-in's answer: the token, the session's refresh token (shared/identity/session-service.ts) and the user. */
export type SignedIn = z.output<typeof sessionSchema>;

/** The stored fields `publicUser` answers: a read for it needs no more of the profile. */
export const PUBLIC_USER_FIELDS = ['userId', 'phone', 'email', 'timeZone', 'locale', 'createdAt', 'updatedAt'] as const;

/** Seed 2.1, as `GET /api/users/me` and the profile operations answer it. */
export const publicUser = (user: Pick<UserRecord, (typeof PUBLIC_USER_FIELDS)[number]>): PublicUser => ({
  userId: user.userId,
  phone: user.phone,
  email: user.email,
  timeZone: user.timeZone,
  locale: user.locale,
  createdAt: user.createdAt,
  updatedAt: user.updatedAt,
});

/** A sign-in's answer for the account it signed in to, whichever way it signed in. */
export const signedIn = (user: UserRecord, tokens: IssuedTokens): SignedIn => ({
  token: tokens.token,
  refreshToken: tokens.refreshToken,
  expiresIn: tokens.expiresIn,
  userId: user.userId,
  phone: user.phone,
  email: user.email,
});

const registeredUser = (user: UserRecord): z.output<typeof registeredUserSchema> => ({
  userId: user.userId,
  phone: user.phone,
  email: user.email,
  createdAt: user.createdAt,
});

async function newUser(ctx: ServiceContext, target: Target, passwordHash: string | null): Promise<UserRecord> {
  const now = isoSeconds(ctx.clock.now());
  return {
    userId: await allocateId(ctx.db, 'user'),
    email: target.kind === 'email' ? target.value : null,
    phone: target.kind === 'phone' ? target.value : null,
    passwordHash,
    tokenVersion: 0,
    timeZone: null,
    locale: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Signs in with a code, registering the target's account first when there is none (seed 4.2).
 * The code is spent in the same transaction that opens the session: a failure leaves both as they were.
 */
export async function signInWithCode(ctx: ServiceContext, target: Target, code: string, clientName: string): Promise<SignedIn> {
  const spendCode = await checkCode(ctx, target.value, code);
  // Two rounds at most: a racing sign-up may create the account between our read and our write,
  // and then this request signs in to that account instead.
  for (let round = 0; ; round++) {
    const existing = await findUserByIdentity(ctx.db, target.kind, target.value);
    if (existing) {
      const tokens = await openSession(ctx, existing, clientName, [spendCode]);
      ctx.metrics.count('SignIns', 'code');
      return signedIn(existing, tokens);
    }
    const user = await newUser(ctx, target, null);
    const session = firstSession(ctx, user, clientName);
    try {
      await createUser(ctx.db, user, [spendCode, session.write], session.profileExtras);
      ctx.metrics.count('AccountsCreated');
      ctx.metrics.count('SignIns', 'code');
      return signedIn(user, await session.issue());
    } catch (error) {
      if (!(error instanceof AccountExistsError) || round > 0) throw error;
    }
  }
}

/** Registers an account with a password; the code proves the caller owns the e-mail or phone. */
export async function register(ctx: ServiceContext, target: Target, code: string, password: string) {
  const spendCode = await checkCode(ctx, target.value, code);
  if ((await findUserIdByIdentity(ctx.db, target.kind, target.value)) !== undefined) {
    throw new AccountExistsError('An account with this e-mail address or phone number already exists.');
  }
  const user = await newUser(ctx, target, await hashPassword(password, hashingParameters(ctx.config)));
  await createUser(ctx.db, user, [spendCode]);
  ctx.metrics.count('AccountsCreated');
  return registeredUser(user);
}

/**
 * Password login. Unknown accounts and accounts without a password do the same scrypt work and
 * get the same answer as a wrong password; failures lock the account (or, for an unknown target,
 * the target) so that locking behaves identically for accounts that do not exist.
 */
export async function logInWithPassword(ctx: ServiceContext, target: Target, password: string, clientName: string): Promise<SignedIn> {
  const user = await findUserByIdentity(ctx.db, target.kind, target.value);
  const subject = user ? accountSubject(user.userId) : targetSubject(target.kind, target.value);
  const now = epochSeconds(ctx.clock.now());
  // The attempt is counted before scrypt runs: parallel guesses cannot outrun the lock.
  const attempt = await reserveLoginAttempt(ctx.db, subject, now, LOGIN_LOCK_POLICY);
  if (!attempt.reserved) {
    throw new LoginLockedError('Too many failed logins. Try again later or sign in with a code.', attempt.retryAfterSeconds);
  }
  const params = hashingParameters(ctx.config);
  const storedHash = user?.passwordHash ?? (await dummyPasswordHash(params));
  const matches = await verifyPassword(password, storedHash);
  if (!user?.passwordHash || !matches) {
    if (attempt.attemptsInWindow >= LOGIN_LOCK_POLICY.maxFailures) {
      await lockLogin(ctx.db, subject, now, LOGIN_LOCK_POLICY);
      ctx.metrics.count('LoginLockouts');
    }
    throw new InvalidCredentialsError('The phone number, e-mail address or password is wrong.');
  }
  await clearLoginFailures(ctx.db, subject);
  if (needsRehash(storedHash, params)) await upgradePasswordHash(ctx.db, user.userId, storedHash, await hashPassword(password, params));
  const tokens = await openSession(ctx, user, clientName);
  ctx.metrics.count('SignIns', 'password');
  return signedIn(user, tokens);
}

/**
 * Sets a new password with a code; every token issued before stops working, and so every session
 * ends: raising the token version ends their access tokens, and a session opened at an older
 * version can no longer be refreshed (the next sign-in removes what is left of them).
 */
export async function resetPassword(ctx: ServiceContext, target: Target, code: string, newPassword: string): Promise<void> {
  // The code first: a wrong one is answered before the account is looked up, whether or not one exists.
  const spendCode = await checkCode(ctx, target.value, code);
  const userId = await findUserIdByIdentity(ctx.db, target.kind, target.value);
  // No account: the same answer as a wrong code, so only the target's owner could tell the two apart.
  if (userId === undefined) throw new CodeInvalidError('The verification code is invalid or has expired.');
  // replacePassword is conditioned on the account still existing and not disabled: no need to read the profile.
  await replacePassword(ctx.db, userId, await hashPassword(newPassword, hashingParameters(ctx.config)), isoSeconds(ctx.clock.now()), [spendCode]);
  await clearLoginFailures(ctx.db, accountSubject(userId));
}

/** The caller's account, if the token that named it is still current (its session too). */
export async function currentUser(ctx: ServiceContext, token: TokenSubject): Promise<PublicUser> {
  const user = await findUserForToken(ctx.db, token);
  if (!user) throw new UnauthorizedError('Unauthorized');
  return publicUser(user);
}
