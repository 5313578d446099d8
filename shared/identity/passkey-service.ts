import { createHash, randomBytes } from 'node:crypto';
import type * as z from 'zod/mini';
import { readForAccount, readWithProfile } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { MAX_PASSKEYS, findPasskey, listPasskeys, removePasskey, renamePasskey } from '../db/passkeys-repository';
import { hasProfileWayIn, readProfileSignInMethods } from '../db/social-identities-repository';
import type { PasskeyRecord } from '../db/passkeys-repository';
import { NotFoundError, PasskeyLimitReachedError } from '../errors';
import type { passkeyCreationOptionsSchema, passkeySchema } from '../api/schemas';
import { epochSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { CHALLENGE_TTL_SECONDS, issueChallenge } from './passkey-challenges';

/**
 * Passkeys as a first factor (issue 30, docs/passkeys.md): the options of both ceremonies and the
 * account's list. The options are plain WebAuthn JSON around a signed challenge, built here; the
 * ceremonies' responses are verified by @simplewebauthn/server in passkey-verification.ts, so
 * that only the two functions that verify carry the library (and its X.509 and ASN.1 parsers).
 */
export type Passkey = z.output<typeof passkeySchema>;
export type PasskeyCreationOptions = z.output<typeof passkeyCreationOptionsSchema>;

/** ES256 (every platform authenticator), EdDSA, RS256 (Windows Hello): offered, and accepted at registration. */
export const ALGORITHMS = [-7, -8, -257];
const TIMEOUT_MS = CHALLENGE_TTL_SECONDS * 1000;

export const publicPasskey = (passkey: PasskeyRecord): Passkey => ({
  passkeyId: passkey.passkeyId,
  name: passkey.name,
  createdAt: passkey.createdAt,
  lastUsedAt: passkey.lastUsedAt,
  backedUp: passkey.backedUp,
  transports: passkey.transports,
});

/** The id a passkey has in paths and keys: SHA-256 of its credential id, base64url (43 characters). */
export const passkeyIdOf = (credentialId: string): string => createHash('sha256').update(Buffer.from(credentialId, 'base64url')).digest('base64url');

/** Options to add a passkey: a discoverable credential, user verification required, the account's passkeys excluded. */
export async function registrationOptions(ctx: ServiceContext, caller: AccountRef): Promise<PasskeyCreationOptions> {
  const { profile, result: passkeys } = await readWithProfile(ctx.db, caller, ['email', 'phone'], () => listPasskeys(ctx.db, caller.userId));
  if (passkeys.length >= MAX_PASSKEYS) throw PasskeyLimitReachedError.of(MAX_PASSKEYS);
  // One handle per account, so the platform files every passkey of it under one person; 256
  // random bits the first time (a handle must not reveal who the person is).
  const userHandle = passkeys[0]?.userHandle ?? randomBytes(32).toString('base64url');
  const { passkeyChallengeKey } = await ctx.keys();
  const challenge = issueChallenge(passkeyChallengeKey, { ceremony: 'registration', userId: caller.userId, userHandle }, epochSeconds(ctx.clock.now()));
  const userName = profile.email ?? profile.phone ?? `user ${caller.userId}`;
  return {
    challenge,
    rp: { name: ctx.config.WEBAUTHN_RP_NAME, id: ctx.config.WEBAUTHN_RP_ID },
    user: { id: userHandle, name: userName, displayName: userName },
    pubKeyCredParams: ALGORITHMS.map((alg) => ({ alg, type: 'public-key' as const })),
    timeout: TIMEOUT_MS,
    attestation: 'none',
    excludeCredentials: passkeys.map((passkey) => ({
      id: passkey.credentialId,
      type: 'public-key' as const,
      ...(passkey.transports.length > 0 ? { transports: passkey.transports } : {}),
    })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  };
}

export async function listAccountPasskeys(ctx: ServiceContext, caller: AccountRef): Promise<Passkey[]> {
  const passkeys = await readForAccount(ctx.db, caller, () => listPasskeys(ctx.db, caller.userId));
  return passkeys.map(publicPasskey);
}

export async function renameAccountPasskey(ctx: ServiceContext, caller: AccountRef, passkeyId: string, name: string): Promise<Passkey> {
  const passkey = await readForAccount(ctx.db, caller, () => findPasskey(ctx.db, caller.userId, passkeyId));
  if (!passkey) throw new NotFoundError('No such passkey.');
  await renamePasskey(ctx.db, caller, passkeyId, name.trim());
  return publicPasskey({ ...passkey, name: name.trim() });
}

/**
 * Removes a passkey: it signs no one in from then on. The platform keeps its copy until the
 * person deletes it. Not the account's last way in: with no e-mail, phone or linked provider,
 * another passkey must remain (409 LAST_SIGN_IN_METHOD).
 */
export async function removeAccountPasskey(ctx: ServiceContext, caller: AccountRef, passkeyId: string): Promise<void> {
  const methods = await readProfileSignInMethods(ctx.db, caller.userId);
  const profileWay = methods !== undefined && hasProfileWayIn(methods);
  // A missing profile (a deleted account) fails the removal's account check: 401.
  await removePasskey(ctx.db, caller, passkeyId, profileWay || methods === undefined ? 'profile' : 'passkeys');
}

/** Sign-in options: no `allowCredentials` (nothing about accounts is revealed), and nothing written. */

