import { decodeJwt, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import type { Config } from '../../config';
import { ProviderUnavailableError, SocialCredentialInvalidError } from '../../errors';
import { nonceHash } from './nonces';
import { providerKeys } from './provider-keys';

/**
 * Verification of Apple's identity tokens and Google's ID tokens, strictly, with jose: RS256 only
 * (`alg: none`, HS256 keyed with a public key and every other algorithm are refused before a key
 * is looked up), the signature by the provider's published key, `iss` exactly the provider's real
 * issuer whatever address the keys come from, `aud` (and Google's `azp`) one of the configured
 * client ids, `exp` and `iat` with 60 seconds of skew, and `nonce` the SHA-256 (hex) of the nonce
 * the app sent. Every refusal is SOCIAL_CREDENTIAL_INVALID with the reason for the log only.
 */
export type Provider = 'apple' | 'google' | 'wechat';

export const APPLE_ISSUER = 'https://appleid.apple.com';
/** Google signs with either form (its OpenID Connect documentation says so). */
export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
const SKEW_SECONDS = 60;
/** Apple's identity tokens live 10 minutes, Google's an hour: older ones are refused whatever their `exp`. */
const MAX_TOKEN_AGE = '1h';

/** What a verified identity tells the service. */
export interface ProviderIdentity {
  provider: Provider;
  /** Stable per person (and, for Apple, per team): `sub`, or WeChat's unionid (else app id and openid). */
  subject: string;
  /** The client id (Apple, Google) or app id (WeChat) the credential was for. */
  clientId: string;
  email: string | null;
  emailVerified: boolean;
  /** Apple's private relay address. */
  privateEmail: boolean;
  /** Google Workspace domain. */
  hostedDomain: string | null;
}

/** `true`/`false` as booleans or as the strings Apple sends; anything else is false. */
export const claimFlag = (value: unknown): boolean => value === true || value === 'true';

async function verified(provider: 'apple' | 'google', token: string, cfg: Config, now: Date): Promise<JWTPayload> {
  const google = provider === 'google';
  const audience = [...(google ? cfg.GOOGLE_CLIENT_IDS : cfg.APPLE_CLIENT_IDS)];
  try {
    const { payload } = await jwtVerify(
      token,
      providerKeys(provider === 'google' ? 'Google' : 'Apple', google ? cfg.GOOGLE_JWKS_URL : `${cfg.APPLE_API_URL.replace(/\/$/, '')}/auth/keys`, cfg.PROVIDER_KEYS_COOLDOWN_SECONDS),
      {
        algorithms: ['RS256'],
        issuer: google ? GOOGLE_ISSUERS : APPLE_ISSUER,
        audience,
        clockTolerance: SKEW_SECONDS,
        maxTokenAge: MAX_TOKEN_AGE,
        currentDate: now,
        requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
      },
    );
    return payload;
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw error;
    throw SocialCredentialInvalidError.because(`${provider} token refused: ${(error as Error).message}`);
  }
}

function checkNonce(payload: JWTPayload, nonce: string) {
  if (payload.nonce !== nonceHash(nonce)) {
    throw SocialCredentialInvalidError.because(payload.nonce === nonce ? 'the token carries the nonce itself, not its hash' : 'nonce does not match the token');
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export async function verifyAppleIdentityToken(cfg: Config, now: Date, token: string, nonce: string): Promise<ProviderIdentity> {
  const payload = await verified('apple', token, cfg, now);
  checkNonce(payload, nonce);
  return {
    provider: 'apple',
    subject: payload.sub!,
    clientId: payload.aud as string,
    email: text(payload.email)?.toLowerCase() ?? null,
    emailVerified: claimFlag(payload.email_verified),
    privateEmail: claimFlag(payload.is_private_email),
    hostedDomain: null,
  };
}

export async function verifyGoogleIdToken(cfg: Config, now: Date, token: string, nonce: string): Promise<ProviderIdentity> {
  const payload = await verified('google', token, cfg, now);
  // `azp` is the client that asked (Android and iOS tokens name the web client in `aud`): it must be ours too.
  if (payload.azp !== undefined && !cfg.GOOGLE_CLIENT_IDS.includes(String(payload.azp))) throw SocialCredentialInvalidError.because(`google token azp ${String(payload.azp)} is not ours`);
  checkNonce(payload, nonce);
  return {
    provider: 'google',
    subject: payload.sub!,
    clientId: String(payload.azp ?? payload.aud),
    email: text(payload.email)?.toLowerCase() ?? null,
    emailVerified: claimFlag(payload.email_verified),
    privateEmail: false,
    hostedDomain: text(payload.hd),
  };
}

/** The `sub` of a token received straight from Apple's token endpoint over TLS (its signature need not be checked again). */
export function subjectOf(token: string): string | undefined {
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}
