import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type * as z from 'zod/mini';
import type { AccountRef } from '../db/account-guard';
import { findPasskey, findPasskeyOwner, recordPasskeyUse, spendChallenge, storePasskey } from '../db/passkeys-repository';
import type { PasskeyRecord } from '../db/passkeys-repository';
import { findUserById } from '../db/users-repository';
import { PasskeyInvalidError } from '../errors';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { signedIn } from './account-service';
import type { SignedIn } from './account-service';
import { readChallenge } from './passkey-challenges';
import type { Ceremony, Challenge } from './passkey-challenges';
import type { authenticationResponseSchema, registrationResponseSchema } from './passkey-schemas';
import { ALGORITHMS, passkeyIdOf, publicPasskey } from './passkey-service';
import type { Passkey } from './passkey-service';
import { openSession } from './session-service';

/**
 * The two passkey ceremonies' verification (issue 30, docs/passkeys.md), on @simplewebauthn/server:
 * it checks each response by WebAuthn Level 3 (type, challenge, origin, RP ID hash, user present
 * and user verified flags, attestation, signature, counter); this module decides which challenge,
 * origins, RP ID and stored key it checks against, and what is written once it has passed.
 *
 * Every refusal is the same PasskeyInvalidError (401 PASSKEY_INVALID); the log says which check
 * refused (`passkey refused`, with `reason`), never the client.
 */
export type RegistrationResponse = z.output<typeof registrationResponseSchema>;
export type AuthenticationResponse = z.output<typeof authenticationResponseSchema>;

/** A refusal; its reason is for the log, with the library's own message when it refused. */
const refusal = (reason: string, error?: unknown) => PasskeyInvalidError.because(error instanceof Error ? `${reason}: ${error.message}` : reason);

/** What a response is checked against: the deployment's origins and RP ID (WEBAUTHN_* settings). */
const relyingParty = (ctx: ServiceContext) => ({ expectedOrigin: [...ctx.config.WEBAUTHN_ORIGINS], expectedRPID: ctx.config.WEBAUTHN_RP_ID });

/** The response as the library takes it: extensions absent from the JSON are none. */
const withExtensions = <T extends { clientExtensionResults?: object }>(response: T) => ({ ...response, clientExtensionResults: response.clientExtensionResults ?? {} });

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

/** Verifies a new passkey's attestation (challenge of this account, origin, RP ID, flags) and stores it. */
export async function addPasskey(ctx: ServiceContext, caller: AccountRef, response: RegistrationResponse, name: string | undefined): Promise<Passkey> {
  return refusingLogged(ctx, 'registration', async () => {
    const { challenge, encoded } = await challengeOf(ctx, response.response.clientDataJSON, 'registration');
    if (challenge.userId !== caller.userId) throw refusal('registration challenge of another account');
    const { registrationInfo } = await verifiedBy(() =>
      verifyRegistrationResponse({
        response: withExtensions(response),
        expectedChallenge: encoded,
        ...relyingParty(ctx),
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
        response: withExtensions(response),
        expectedChallenge: encoded,
        ...relyingParty(ctx),
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
