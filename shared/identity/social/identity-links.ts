import { readForAccount } from '../../db/account-guard';
import { recordRevocationWrite, removeRevocation } from '../../db/apple-revocations-repository';
import type { AppleRevocation } from '../../db/apple-revocations-repository';
import { isoSeconds } from '../../ports/clock';
import { countPasskeys, passkeyRemains } from '../../db/passkeys-repository';
import { findSession } from '../../db/sessions-repository';
import {
  findSocialOwner,
  linkToAccountWrites,
  listSocialIdentities,
  hasProfileWayIn,
  readProfileSignInMethods,
  unlinkFromAccountWrites,
} from '../../db/social-identities-repository';
import type { SocialProvider } from '../../db/social-identities-repository';
import { writeAtomically } from '../../db/transactions';
import type { GuardedWrite } from '../../db/transactions';
import type { AccountRef } from '../../db/account-guard';
import { IdentityInUseError, LastSignInMethodError, NotFoundError, ReauthenticationRequiredError, SocialCredentialInvalidError, UnauthorizedError } from '../../errors';
import type { ServiceContext } from '../../service-context';
import { isAppleRelayAddress, openAppleToken, revokeAppleToken } from './apple-client';
import { verifyApple } from './apple-sign-in';
import type { AppleCredential } from './apple-sign-in';
import { verifyGoogle } from './google-sign-in';
import type { GoogleCredential } from './google-sign-in';
import { listLinkedIdentities, view } from '../linked-identities';
import type { LinkedIdentity } from '../linked-identities';
import { identityRecord } from './social-sign-in';
import type { VerifiedCredential } from './social-sign-in';
import { verifyWeChat } from './wechat-sign-in';
import type { WeChatCredential } from './wechat-sign-in';

/**
 * Linking and unlinking Apple, Google and WeChat from the settings (issue 38, docs/social-sign-in.md,
 * "Linking from the settings"): the person proves the identity with the same credential as a
 * sign-in, from a session signed in within the last 10 minutes; an identity belongs to one
 * account, an account holds one per provider, and it never loses its last way in.
 */
/** How long after its sign-in a session may link a provider (a stolen, older session may not). */
export const REAUTHENTICATION_WINDOW_SECONDS = 600;

/** The session's own sign-in (not its last refresh) must be recent: a token without a session cannot link. */
async function assertRecentSignIn(ctx: ServiceContext, caller: AccountRef): Promise<void> {
  // Beside the account check: a deleted account's (or an ended session's) token is a 401, not a 403.
  const session = await readForAccount(ctx.db, caller, async () => (caller.sessionId === undefined ? undefined : findSession(ctx.db, caller.userId, caller.sessionId)));
  if (!session) throw new ReauthenticationRequiredError('Sign in again, then link.');
  const age = (ctx.clock.now().getTime() - Date.parse(session.createdAt)) / 1000;
  if (age > REAUTHENTICATION_WINDOW_SECONDS) throw new ReauthenticationRequiredError('Linking needs a sign-in within the last 10 minutes: sign in again, then link.');
}

export type LinkCredential = AppleCredential | GoogleCredential | WeChatCredential;

/**
 * The sign-in's body of the provider named in the path. Another provider's body is a credential
 * this provider cannot verify: 401 SOCIAL_CREDENTIAL_INVALID, as any refused credential (the
 * document lists the three bodies for every provider, so it is not a malformed request).
 */
function verifyFor(ctx: ServiceContext, provider: SocialProvider, body: LinkCredential): Promise<VerifiedCredential> {
  const wrongBody = (fields: string) => SocialCredentialInvalidError.because(`a ${provider} link without ${fields}`);
  if (provider === 'apple') {
    if (!('identityToken' in body && 'authorizationCode' in body)) throw wrongBody('identityToken, authorizationCode and nonce');
    return verifyApple(ctx, body);
  }
  if (provider === 'google') {
    if (!('idToken' in body)) throw wrongBody('idToken and nonce');
    return verifyGoogle(ctx, body);
  }
  if (!('code' in body)) throw wrongBody('code (and appId)');
  return verifyWeChat(ctx, body);
}

/**
 * Links the identity the credential proves to the caller's account. Linked already to this
 * account: answered as it is (nothing written). Another account's: 409 IDENTITY_IN_USE, nothing
 * written; the check and the claim are one conditional write, so a racing sign-up cannot slip in.
 */
export async function linkIdentity(ctx: ServiceContext, caller: AccountRef, provider: SocialProvider, body: LinkCredential): Promise<LinkedIdentity> {
  await assertRecentSignIn(ctx, caller);
  const verified = await verifyFor(ctx, provider, body);
  const { identity } = verified;
  const owner = await findSocialOwner(ctx.db, identity.provider, identity.subject);
  if (owner !== undefined && owner !== caller.userId) throw new IdentityInUseError('This identity is linked to another account.');
  if (owner === caller.userId) {
    const linked = (await listLinkedIdentities(ctx, caller)).find((each) => each.provider === provider);
    if (linked) return linked;
  }
  const record = identityRecord(ctx, caller.userId, verified);
  await writeAtomically(ctx.db, [...linkToAccountWrites(ctx.db, record, caller), ...verified.spend]);
  ctx.metrics.count('SocialIdentitiesLinked', provider);
  return view(record);
}

/**
 * Unlinks the caller's identity of `provider`, unless it is the account's only way in (409
 * LAST_SIGN_IN_METHOD: no e-mail, phone, passkey or other identity). Apple's token is then revoked
 * at Apple, durably: recorded in the unlink's transaction, tried at once, and retried by the job
 * revoke-apple-tokens should Apple fail (the unlink stands).
 */
export async function unlinkIdentity(ctx: ServiceContext, caller: AccountRef, provider: SocialProvider): Promise<void> {
  const [methods, identities] = await readForAccount(ctx.db, caller, () => Promise.all([readProfileSignInMethods(ctx.db, caller.userId), listSocialIdentities(ctx.db, caller.userId)]));
  if (!methods) throw new UnauthorizedError('Unauthorized');
  const identity = identities.find((each) => each.provider === provider && methods.linked[provider] === each.subject);
  if (!identity) throw new NotFoundError(`No ${provider} identity is linked to this account.`);
  // Apple's private relay address for this Apple identity stops forwarding once Apple is unlinked
  // and its token revoked: it is no way in then (as for Apple's account-delete notification).
  const emailCounts = methods.email !== null && !(provider === 'apple' && isAppleRelayAddress(methods.email));
  const keepsProfileWay = hasProfileWayIn(methods, { except: provider, emailCounts });
  const alongside: GuardedWrite[] = [];
  if (!keepsProfileWay) {
    if ((await countPasskeys(ctx.db, caller.userId)) === 0) throw new LastSignInMethodError('This is the account’s only way to sign in: add an e-mail, a phone, a passkey or another provider first.');
    alongside.push(passkeyRemains(ctx.db, caller.userId, () => new LastSignInMethodError('This is the account’s only way to sign in.')));
  }
  // Apple's token: its revocation is recorded with the unlink, as a deletion records it
  // (apple-revocations-repository.ts), so a failure at Apple is retried by the job revoke-apple-tokens.
  const revocation =
    provider === 'apple' && identity.appleRefreshToken
      ? { userId: caller.userId, subject: identity.subject, clientId: identity.clientId, sealedToken: identity.appleRefreshToken, requestedAt: isoSeconds(ctx.clock.now()) }
      : undefined;
  await writeAtomically(ctx.db, [...unlinkFromAccountWrites(ctx.db, identity, caller, keepsProfileWay, emailCounts), ...alongside, ...(revocation ? [recordRevocationWrite(ctx.db, revocation)] : [])]);
  if (revocation) await revokeNow(ctx, revocation);
}

/** Tried at once; Apple's 200 removes the record, anything else leaves it to the job. */
async function revokeNow(ctx: ServiceContext, revocation: Pick<AppleRevocation, 'userId' | 'subject' | 'clientId' | 'sealedToken'>): Promise<void> {
  try {
    const { appleTokenKey } = await ctx.keys();
    const revoked = await revokeAppleToken(ctx.config, await ctx.providerSecrets(), ctx.clock.now(), revocation.clientId, openAppleToken(appleTokenKey, revocation.sealedToken));
    if (revoked) {
      await removeRevocation(ctx.db, revocation);
      ctx.metrics.count('AppleTokensRevoked');
      return;
    }
    ctx.log.warn('apple token revocation deferred', { reason: 'refused' });
  } catch (error) {
    ctx.log.warn('apple token revocation deferred', { reason: error instanceof Error ? error.name : 'unknown' });
  }
}
