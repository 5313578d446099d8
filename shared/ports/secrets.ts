import { hkdfSync } from 'node:crypto';
import type { Config } from '../config';
import type { ProviderSecrets } from './provider-secrets';
import type { SpeechKeys } from './speech';
import type { PushKeys } from './push';

/** Where the service's one root secret comes from: Secrets Manager on AWS, the environment locally. */
export interface SecretSource {
  rootSecret(): Promise<string>;
  /**
   * Apple's private key and WeChat's app secrets (docs/social-sign-in.md): the social sign-in
   * functions read them; none where the source has none.
   */
  providerSecrets?(): Promise<ProviderSecrets>;
  /** The speech providers' keys (shared/ports/speech.ts): the speech functions read them; none where the source has none. */
  speechKeys?(): Promise<SpeechKeys>;
  /** The silent push's keys (shared/ports/push.ts): the fan-out reads them; none where the source has none. */
  pushKeys?(): Promise<PushKeys>;
}

/** The root secret's ARN: the stack gives it to every function that reads the secret. */
export function rootSecretId(cfg: Pick<Config, 'JWT_SECRET_ARN'>): string {
  if (!cfg.JWT_SECRET_ARN) throw new Error('JWT_SECRET_ARN is not set');
  return cfg.JWT_SECRET_ARN;
}

/** The value of a GetSecretValue answer (the root secret is generated as a string). */
export function secretStringOf(answer: { SecretString?: string }): string {
  if (!answer.SecretString) throw new Error('The root secret has no string value');
  return answer.SecretString;
}

/**
 * Keys derived from the root secret, one per purpose, so that a token key can never be used to
 * recompute a code hash and the other way round.
 */
export interface ServiceKeys {
  tokenSigningKey: Uint8Array;
  codeHashKey: Uint8Array;
  /** Derives each refresh token from its session's seed (shared/identity/refresh-tokens.ts). */
  refreshTokenKey: Uint8Array;
  /** Signs the passkey ceremonies' challenges (shared/identity/passkey-challenges.ts). */
  passkeyChallengeKey: Uint8Array;
  /**
   * Signs the nonces of social sign-ins (shared/identity/social/nonces.ts). This key and the next
   * exist only in the bundles of routes with `providers` (shared/bundle-defines.d.ts).
   */
  socialNonceKey: Uint8Array;
  /** Encrypts Apple's refresh tokens at rest (AES-256-GCM, shared/identity/social/apple-tokens.ts). */
  appleTokenKey: Uint8Array;
}

export function deriveKeys(rootSecret: string): ServiceKeys {
  if (rootSecret.length < 32) throw new Error('The root secret must be at least 32 characters long');
  const derive = (purpose: string) => new Uint8Array(hkdfSync('sha256', rootSecret, '', purpose, 32));
  return {
    tokenSigningKey: derive('jwt-hs256'),
    codeHashKey: derive('verification-code-hmac'),
    refreshTokenKey: derive('refresh-token-hmac'),
    passkeyChallengeKey: derive('passkey-challenge-hmac'),
    // Only where a route talks to the providers (shared/bundle-defines.d.ts).
    ...(typeof BUNDLED_PROVIDERS === 'boolean' && !BUNDLED_PROVIDERS
      ? ({} as Pick<ServiceKeys, 'socialNonceKey' | 'appleTokenKey'>)
      : { socialNonceKey: derive('nonce'), appleTokenKey: derive('apple-token') }),
  };
}

/**
 * Reads the secret and keeps the derived keys for `maxAgeMs` (KEYS_MAX_AGE_SECONDS), then
 * reads it again, so a rotated secret reaches running containers without a redeploy (docs/deploying.md,
 * "Rotating the root secret"). A failed first read is not cached, so the next invocation tries
 * again (Secrets Manager unreachable at a cold start recovers); a failed re-read keeps the keys
 * it has and tries again on the next use, so an outage of Secrets Manager does not sign anyone out.
 * Parallel uses share one read.
 */
export function cachedKeys(source: SecretSource, maxAgeMs = Infinity, now: () => number = Date.now): () => Promise<ServiceKeys> {
  let current: { keys: ServiceKeys; readAt: number } | undefined;
  let pending: Promise<ServiceKeys> | undefined;
  const read = () => {
    pending ??= source
      .rootSecret()
      .then(deriveKeys)
      .then((keys) => {
        current = { keys, readAt: now() };
        return keys;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  return () => {
    if (!current) return read();
    if (now() - current.readAt < maxAgeMs) return Promise.resolve(current.keys);
    const kept = current.keys;
    return read().catch(() => kept);
  };
}
