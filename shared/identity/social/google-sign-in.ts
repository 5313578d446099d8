import { spendNonce } from '../../db/social-identities-repository';
import type { ServiceContext } from '../../service-context';
import { verifyGoogleIdToken } from './id-tokens';
import { checkedNonce, signInWithIdentity, verifyCredential } from './social-sign-in';
import type { SocialSignedIn, VerifiedCredential } from './social-sign-in';

/** What the app sends from Google Sign-In (Credential Manager's GoogleIdTokenCredential, GIDSignIn). */
export interface GoogleCredential {
  idToken: string;
  nonce: string;
}

/** Google: the nonce (signed, unspent), then the ID token (id-tokens.ts). */
export function verifyGoogle(ctx: ServiceContext, credential: GoogleCredential): Promise<VerifiedCredential> {
  return verifyCredential(ctx, 'google', async () => {
    const nonce = await checkedNonce(ctx, credential.nonce);
    const identity = await verifyGoogleIdToken(ctx.config, ctx.clock.now(), credential.idToken, credential.nonce);
    return { identity, spend: [spendNonce(ctx.db, nonce.id, nonce.expiresAt)] };
  });
}

export async function signInWithGoogle(ctx: ServiceContext, credential: GoogleCredential, clientName: string): Promise<SocialSignedIn> {
  return signInWithIdentity(ctx, await verifyGoogle(ctx, credential), clientName);
}
