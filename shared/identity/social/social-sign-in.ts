import { allocateId } from '../../db/id-allocator';
import {
  IdentityClaimedError,
  findSocialIdentity,
  findSocialOwner,
  isNonceSpent,
  linkIdentityWrites,
  profileMarker,
  touchIdentityWrite,
} from '../../db/social-identities-repository';
import type { SocialIdentityRecord, SocialProvider } from '../../db/social-identities-repository';
import type { GuardedWrite } from '../../db/transactions';
import { createUser, findUserById, findUserIdByIdentity } from '../../db/users-repository';
import type { UserRecord } from '../../db/users-repository';
import { AccountExistsError, AccountExistsLinkRequiredError, ProviderNotConfiguredError, ProviderUnavailableError, SocialCredentialInvalidError } from '../../errors';
import { epochSeconds, isoSeconds } from '../../ports/clock';
import type { ServiceContext } from '../../service-context';
import { signedIn } from '../account-service';
import type { SignedIn } from '../account-service';
import { firstSession, openSession } from '../session-service';
import type { ProviderIdentity } from './id-tokens';
import { readNonce } from './nonces';
import type { SocialNonce } from './nonces';

/**
 * Sign in with Apple, Google and WeChat (issue 38, docs/social-sign-in.md): the credential is
 * verified (id-tokens.ts, apple-client.ts, wechat-client.ts), then the identity signs in to the
 * account it is linked to, or is linked to the account holding its e-mail when the provider is
 * authoritative for that address, or makes a new account. Sessions open through the same
 * session-service functions as every other sign-in. Refusals are SOCIAL_CREDENTIAL_INVALID, their
 * reason logged (`social sign-in refused`), never answered.
 */
export type SocialSignedIn = SignedIn & { isNewUser: boolean };

/** A verified credential: who it is, the writes that spend it, and what a link stores of it. */
export interface VerifiedCredential {
  identity: ProviderIdentity;
  spend: GuardedWrite[];
  appleRefreshToken?: string;
  givenName?: string;
  familyName?: string;
}

export function assertConfigured(ctx: ServiceContext, provider: SocialProvider): void {
  const ids = { apple: ctx.config.APPLE_CLIENT_IDS, google: ctx.config.GOOGLE_CLIENT_IDS, wechat: ctx.config.WECHAT_APP_IDS }[provider];
  if (ids.length === 0) throw new ProviderNotConfiguredError(`Sign-in with ${provider} is not offered here.`);
}

export async function checkedNonce(ctx: ServiceContext, nonce: string): Promise<SocialNonce> {
  const { socialNonceKey } = await ctx.keys();
  const read = readNonce(socialNonceKey, nonce, epochSeconds(ctx.clock.now()));
  if ('refused' in read) throw SocialCredentialInvalidError.because(read.refused);
  if (await isNonceSpent(ctx.db, read.nonce.id)) throw SocialCredentialInvalidError.because('nonce already used');
  return read.nonce;
}

/**
 * Runs a provider's verification (apple-sign-in.ts, google-sign-in.ts, wechat-sign-in.ts: each
 * function bundles only its own provider's); every refusal is logged with its reason and counted,
 * answered as one.
 */
export async function verifyCredential(ctx: ServiceContext, provider: SocialProvider, verify: () => Promise<VerifiedCredential>): Promise<VerifiedCredential> {
  assertConfigured(ctx, provider);
  try {
    return await verify();
  } catch (error) {
    if (error instanceof SocialCredentialInvalidError) {
      ctx.log.warn('social sign-in refused', { provider, reason: typeof error.cause === 'string' ? error.cause : 'unknown' });
      ctx.metrics.count('SocialSignInsRefused', 'invalid-credential');
    }
    if (error instanceof ProviderUnavailableError) {
      ctx.log.warn('social sign-in provider unavailable', { provider, cause: String((error.cause as Error | undefined)?.message ?? error.cause) });
      ctx.metrics.count('SocialSignInsRefused', 'provider-unavailable');
    }
    throw error;
  }
}

/**
 * Whether the provider speaks for this e-mail address, so that its identity may join the account
 * holding it without the person proving the address to us again: Apple for a verified address
 * that is not a private relay one (the relay is Apple's, not the person's mailbox); Google for a
 * verified address it hosts (gmail.com) or a Workspace domain's (`hd`). WeChat gives no e-mail.
 */
export function isAuthoritativeFor(identity: ProviderIdentity): boolean {
  if (!identity.email || !identity.emailVerified) return false;
  if (identity.provider === 'apple') return !identity.privateEmail;
  if (identity.provider === 'google') {
    const domain = identity.email.split('@')[1];
    return domain === 'gmail.com' || (identity.hostedDomain !== null && domain === identity.hostedDomain.toLowerCase());
  }
  return false;
}

/** The stored identity of a verified credential, for an account. */
export function identityRecord(ctx: ServiceContext, userId: number, verified: VerifiedCredential): SocialIdentityRecord {
  const now = isoSeconds(ctx.clock.now());
  const { identity } = verified;
  return {
    userId,
    provider: identity.provider,
    subject: identity.subject,
    clientId: identity.clientId,
    email: identity.emailVerified ? identity.email : null,
    emailDeliverable: true,
    givenName: verified.givenName ?? null,
    familyName: verified.familyName ?? null,
    linkedAt: now,
    lastUsedAt: now,
    appleRefreshToken: verified.appleRefreshToken ?? null,
  };
}

async function newUser(ctx: ServiceContext, email: string | null): Promise<UserRecord> {
  const now = isoSeconds(ctx.clock.now());
  return {
    userId: await allocateId(ctx.db, 'user'),
    email,
    phone: null,
    passwordHash: null,
    tokenVersion: 0,
    timeZone: null,
    locale: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Signs in with a verified credential: the linked account, an account it may join, or a new one. */
export async function signInWithIdentity(ctx: ServiceContext, verified: VerifiedCredential, clientName: string): Promise<SocialSignedIn> {
  const { identity } = verified;
  const method = identity.provider;
  // Three rounds at most: a racing first sign-in of the same identity (or a sign-up with its
  // e-mail) may commit between our reads and our write; the next round then finds it.
  for (let round = 0; ; round++) {
    const owner = await findSocialOwner(ctx.db, identity.provider, identity.subject);
    if (owner !== undefined) {
      const [user, linked] = await Promise.all([findUserById(ctx.db, owner), findSocialIdentity(ctx.db, owner, identity.provider, identity.subject)]);
      if (!user || !linked) throw SocialCredentialInvalidError.because('the account of the identity is being deleted');
      const touch = touchIdentityWrite(ctx.db, linked, {
        usedAt: isoSeconds(ctx.clock.now()),
        clientId: identity.clientId,
        email: identity.emailVerified ? identity.email : null,
        appleRefreshToken: verified.appleRefreshToken,
        givenName: verified.givenName,
        familyName: verified.familyName,
      });
      const tokens = await openSession(ctx, user, clientName, [...verified.spend, touch]);
      ctx.metrics.count('SignIns', method);
      return { ...signedIn(user, tokens), isNewUser: false };
    }
    // The holder of the address whether or not the provider verified it: an unverified claim of an
    // account's address must not sign in to a second account without it (two accounts for one
    // person, their records split); only an address no account holds makes a new account, and
    // that account keeps the address only when it is verified.
    const email = identity.emailVerified ? identity.email : null;
    const holder = identity.email === null ? undefined : await findUserIdByIdentity(ctx.db, 'email', identity.email);
    try {
      if (holder !== undefined) {
        if (!isAuthoritativeFor(identity)) {
          ctx.metrics.count('SocialSignInsRefused', 'link-required');
          ctx.log.info('social sign-in needs a link', { provider: method });
          throw new AccountExistsLinkRequiredError('An account already uses this e-mail address. Sign in to it the usual way, then link this sign-in method in the settings.');
        }
        const user = await findUserById(ctx.db, holder);
        if (!user) continue;
        const record = identityRecord(ctx, user.userId, verified);
        const tokens = await openSession(ctx, user, clientName, [...linkIdentityWrites(ctx.db, record), ...verified.spend], profileMarker(record));
        ctx.metrics.count('SocialIdentitiesLinked', method);
        ctx.metrics.count('SignIns', method);
        return { ...signedIn(user, tokens), isNewUser: false };
      }
      const user = await newUser(ctx, email);
      const record = identityRecord(ctx, user.userId, verified);
      const session = firstSession(ctx, user, clientName);
      // The identity's claim first: of two racing first sign-ins, the loser's first failed condition is it.
      await createUser(ctx.db, user, [...linkIdentityWrites(ctx.db, record), ...verified.spend, session.write], { ...session.profileExtras, ...profileMarker(record) });
      ctx.metrics.count('AccountsCreated');
      ctx.metrics.count('SignIns', method);
      return { ...signedIn(user, await session.issue()), isNewUser: true };
    } catch (error) {
      if (!(error instanceof IdentityClaimedError || error instanceof AccountExistsError) || round >= 2) throw error;
    }
  }
}
