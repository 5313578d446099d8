import { spendNonce } from '../../db/social-identities-repository';
import type { ServiceContext } from '../../service-context';
import { exchangeAppleCode, sealAppleToken } from './apple-client';
import { verifyAppleIdentityToken } from './id-tokens';
import { checkedNonce, signInWithIdentity, verifyCredential } from './social-sign-in';
import type { SocialSignedIn, VerifiedCredential } from './social-sign-in';

/** What the app sends from ASAuthorizationAppleIDCredential (or Sign in with Apple JS). */
export interface AppleCredential {
  identityToken: string;
  authorizationCode: string;
  nonce: string;
  fullName?: { givenName?: string; familyName?: string };
}

const name = (value: string | undefined) => (value?.trim() ? value.trim().slice(0, 100) : undefined);

/**
 * Apple: the nonce (signed, unspent), the identity token (id-tokens.ts), then the authorization
 * code exchanged for Apple's refresh token, kept sealed with the name Apple sent this time.
 */
export function verifyApple(ctx: ServiceContext, credential: AppleCredential): Promise<VerifiedCredential> {
  return verifyCredential(ctx, 'apple', async () => {
    const now = ctx.clock.now();
    // The nonce first: a forged or spent one costs no key lookup and no call to Apple.
    const nonce = await checkedNonce(ctx, credential.nonce);
    const identity = await verifyAppleIdentityToken(ctx.config, now, credential.identityToken, credential.nonce);
    const refreshToken = await exchangeAppleCode(ctx.config, await ctx.providerSecrets(), now, identity.clientId, credential.authorizationCode, identity.subject);
    const { appleTokenKey } = await ctx.keys();
    return {
      identity,
      spend: [spendNonce(ctx.db, nonce.id, nonce.expiresAt)],
      appleRefreshToken: sealAppleToken(appleTokenKey, refreshToken),
      givenName: name(credential.fullName?.givenName),
      familyName: name(credential.fullName?.familyName),
    };
  });
}

export async function signInWithApple(ctx: ServiceContext, credential: AppleCredential, clientName: string): Promise<SocialSignedIn> {
  return signInWithIdentity(ctx, await verifyApple(ctx, credential), clientName);
}
