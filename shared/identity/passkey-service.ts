import { createHash, randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type * as z from 'zod/mini';
import { readForAccount, readWithProfile } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import {
  MAX_PASSKEYS,
  findPasskey,
  findPasskeyOwner,
  listPasskeys,
  recordPasskeyUse,
  removePasskey,
  renamePasskey,
  spendChallenge,
  storePasskey,
} from '../db/passkeys-repository';
import type { PasskeyRecord } from '../db/passkeys-repository';
import { findUserById } from '../db/users-repository';
import { NotFoundError, PasskeyInvalidError, PasskeyLimitReachedError } from '../errors';
import type { passkeyCreationOptionsSchema, passkeyRequestOptionsSchema, passkeySchema } from '../http/schemas';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { signedIn } from './account-service';
import type { SignedIn } from './account-service';
import { CHALLENGE_TTL_SECONDS, issueChallenge, readChallenge } from './passkey-challenges';
import type { Ceremony, Challenge } from './passkey-challenges';
import type { authenticationResponseSchema, registrationResponseSchema } from './passkey-schemas';
import { openSession } from './session-service';

/**
 * Passkeys as a first factor (issue 30, docs/passkeys.md), on @simplewebauthn/server: it checks
 * each ceremony by WebAuthn Level 3 (type, challenge, origin, RP ID hash, user present and user
 * verified flags, attestation, signature, counter); this module decides which challenge, origins,
 * RP ID and stored key it checks against, and what is written once it has passed.
 *
 * Every refusal is the same PasskeyInvalidError (401 PASSKEY_INVALID); the log says which check
 * refused (`passkey refused`, with `reason`), never the client.
 */
export type Passkey = z.output<typeof passkeySchema>;
export type PasskeyCreationOptions = z.output<typeof passkeyCreationOptionsSchema>;
export type PasskeyRequestOptions = z.output<typeof passkeyRequestOptionsSchema>;
export type RegistrationResponse = z.output<typeof registrationResponseSchema>;
export type AuthenticationResponse = z.output<typeof authenticationResponseSchema>;

/** ES256 (every platform authenticator), EdDSA, RS256 (Windows Hello): fixed, so Node 20 and 24 offer the same. */
const ALGORITHMS = [-7, -8, -257];
const TIMEOUT_MS = CHALLENGE_TTL_SECONDS * 1000;
const PUBLIC_MESSAGE = 'The passkey could not be verified.';

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

/** A refusal; its `cause` is the reason for the log, with the library's own message when it refused. */
const refusal = (reason: string, error?: unknown) =>
  new PasskeyInvalidError(PUBLIC_MESSAGE, { cause: error instanceof Error ? `${reason}: ${error.message}` : reason });

const reasonOf = (error: PasskeyInvalidError): string => (typeof error.cause === 'string' ? error.cause : 'unknown');

/** Runs a ceremony's verification; a refusal is logged with its reason before it is answered. */
async function refusingLogged<T>(ctx: ServiceContext, ceremony: Ceremony, verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (error) {
    if (error instanceof PasskeyInvalidError) {
      const reason = reasonOf(error);
      // An authenticator that counts went backwards: likely a cloned authenticator; worth a look.
      if (/counter value/i.test(reason)) ctx.log.warn('passkey counter went backwards', { ceremony, reason });
      ctx.log.warn('passkey refused', { ceremony, reason });
    }
    throw error;
  }
}

/** The challenge in a response's clientDataJSON, read and checked against the ceremony. */
async function challengeOf(ctx: ServiceContext, clientDataJSON: string, ceremony: Ceremony): Promise<{ challenge: Challenge; encoded: string }> {
  let encoded: unknown;
  try {
    encoded = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch (error) {
    throw refusal('clientDataJSON is not JSON', error);
  }
  if (typeof encoded !== 'string') throw refusal('clientDataJSON has no challenge');
  const { passkeyChallengeKey } = await ctx.keys();
  const read = readChallenge(passkeyChallengeKey, encoded, ceremony, epochSeconds(ctx.clock.now()));
  if ('refused' in read) throw refusal(read.refused);
  return { challenge: read.challenge, encoded };
}

/** The library's own refusals (it throws for every failed check) become ours, its message the reason. */
async function verifiedBy<T extends { verified: boolean }>(check: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await check();
  } catch (error) {
    throw refusal('verification failed', error);
  }
  // The library throws for every failed check but the signature (and attestation statement), which it answers as unverified.
  if (!result.verified) throw refusal('signature (or attestation statement) does not verify');
  return result;
}

/** Options to add a passkey: a discoverable credential, user verification required, the account's passkeys excluded. */
export async function registrationOptions(ctx: ServiceContext, caller: AccountRef): Promise<PasskeyCreationOptions> {
  const { profile, result: passkeys } = await readWithProfile(ctx.db, caller, ['email', 'phone'], () => listPasskeys(ctx.db, caller.userId));
  if (passkeys.length >= MAX_PASSKEYS) throw new PasskeyLimitReachedError(`An account can have at most ${MAX_PASSKEYS} passkeys. Remove one first.`);
  // One handle per account, so the platform files every passkey of it under one person; 256
  // random bits the first time (a handle must not reveal who the person is).
  const userHandle = passkeys[0]?.userHandle ?? randomBytes(32).toString('base64url');
  const { passkeyChallengeKey } = await ctx.keys();
  const challenge = issueChallenge(passkeyChallengeKey, { ceremony: 'registration', userId: caller.userId, userHandle }, epochSeconds(ctx.clock.now()));
  const userName = profile.email ?? profile.phone ?? `user ${caller.userId}`;
  const options = await generateRegistrationOptions({
    rpName: ctx.config.WEBAUTHN_RP_NAME,
    rpID: ctx.config.WEBAUTHN_RP_ID,
    userName,
    userDisplayName: userName,
    userID: new Uint8Array(Buffer.from(userHandle, 'base64url')),
    challenge,
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  return {
    challenge: options.challenge,
    rp: { name: ctx.config.WEBAUTHN_RP_NAME, id: ctx.config.WEBAUTHN_RP_ID },
    user: { id: options.user.id, name: options.user.name, displayName: options.user.displayName },
    pubKeyCredParams: ALGORITHMS.map((alg) => ({ alg, type: 'public-key' as const })),
    timeout: TIMEOUT_MS,
    attestation: 'none',
    excludeCredentials: (options.excludeCredentials ?? []).map((credential) => ({
      id: credential.id,
      type: 'public-key' as const,
      ...(credential.transports ? { transports: credential.transports.map(String) } : {}),
    })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  };
}

/** Verifies a new passkey's attestation (challenge of this account, origin, RP ID, flags) and stores it. */
export async function addPasskey(ctx: ServiceContext, caller: AccountRef, response: RegistrationResponse, name: string | undefined): Promise<Passkey> {
  return refusingLogged(ctx, 'registration', async () => {
    const { challenge, encoded } = await challengeOf(ctx, response.response.clientDataJSON, 'registration');
    if (challenge.userId !== caller.userId) throw refusal('registration challenge of another account');
    const { registrationInfo } = await verifiedBy(() =>
      verifyRegistrationResponse({
        response: { ...response, clientExtensionResults: response.clientExtensionResults ?? {} },
        expectedChallenge: encoded,
        expectedOrigin: [...ctx.config.WEBAUTHN_ORIGINS],
        expectedRPID: ctx.config.WEBAUTHN_RP_ID,
        requireUserPresence: true,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      }),
    );
    const now = isoSeconds(ctx.clock.now());
    const { credential } = registrationInfo!;
    const passkey: PasskeyRecord = {
      passkeyId: passkeyIdOf(credential.id),
      userId: caller.userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: response.response.transports ?? [],
      backedUp: registrationInfo!.credentialBackedUp,
      userHandle: challenge.userHandle,
      name: name?.trim() ?? 'Passkey',
      createdAt: now,
      lastUsedAt: null,
    };
    await storePasskey(ctx.db, caller, passkey, spendChallenge(ctx.db, challenge.nonce, challenge.expiresAt));
    return publicPasskey(passkey);
  });
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

/** Removes a passkey: it signs no one in from then on. The platform keeps its copy until the person deletes it. */
export async function removeAccountPasskey(ctx: ServiceContext, caller: AccountRef, passkeyId: string): Promise<void> {
  await removePasskey(ctx.db, caller, passkeyId);
}

/** Sign-in options: no `allowCredentials` (nothing about accounts is revealed), and nothing written. */
export async function signInOptions(ctx: ServiceContext): Promise<PasskeyRequestOptions> {
  const { passkeyChallengeKey } = await ctx.keys();
  const challenge = issueChallenge(passkeyChallengeKey, { ceremony: 'authentication', userId: 0, userHandle: '' }, epochSeconds(ctx.clock.now()));
  const options = await generateAuthenticationOptions({ rpID: ctx.config.WEBAUTHN_RP_ID, challenge, timeout: TIMEOUT_MS, userVerification: 'required' });
  return { challenge: options.challenge, rpId: ctx.config.WEBAUTHN_RP_ID, timeout: TIMEOUT_MS, userVerification: 'required' };
}

/**
 * Signs in with a passkey's assertion and opens a session exactly as the other sign-ins do. The
 * challenge is spent and the passkey's counter moved in the session's own transaction: a replayed
 * assertion, or one racing the removal of its passkey, opens nothing.
 */
export async function signInWithPasskey(ctx: ServiceContext, response: AuthenticationResponse, clientName: string): Promise<SignedIn> {
  return refusingLogged(ctx, 'authentication', async () => {
    const { challenge, encoded } = await challengeOf(ctx, response.response.clientDataJSON, 'authentication');
    const passkeyId = passkeyIdOf(response.rawId);
    const owner = await findPasskeyOwner(ctx.db, passkeyId);
    if (owner === undefined) throw refusal('unknown or removed credential');
    const [user, passkey] = await Promise.all([findUserById(ctx.db, owner), findPasskey(ctx.db, owner, passkeyId)]);
    if (!user) throw refusal('the account of the credential was deleted');
    if (!passkey) throw refusal('unknown or removed credential');
    // The handle the passkey was made with: a mismatch means the platform holds another person's record.
    if (response.response.userHandle !== undefined && response.response.userHandle !== passkey.userHandle) throw refusal('user handle of another account');
    const { authenticationInfo } = await verifiedBy(() =>
      verifyAuthenticationResponse({
        response: { ...response, clientExtensionResults: response.clientExtensionResults ?? {} },
        expectedChallenge: encoded,
        expectedOrigin: [...ctx.config.WEBAUTHN_ORIGINS],
        expectedRPID: ctx.config.WEBAUTHN_RP_ID,
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: passkey.transports },
        requireUserVerification: true,
      }),
    );
    const tokens = await openSession(ctx, user, clientName, [
      spendChallenge(ctx.db, challenge.nonce, challenge.expiresAt),
      recordPasskeyUse(ctx.db, passkey, { counter: authenticationInfo.newCounter, backedUp: authenticationInfo.credentialBackedUp, usedAt: isoSeconds(ctx.clock.now()) }),
    ]);
    ctx.metrics.count('SignIns', 'passkey');
    return signedIn(user, tokens);
  });
}
