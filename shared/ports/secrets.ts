import { hkdfSync } from 'node:crypto';

/** Where the service's one root secret comes from: Secrets Manager on AWS, the environment locally. */
export interface SecretSource {
  rootSecret(): Promise<string>;
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
}

export function deriveKeys(rootSecret: string): ServiceKeys {
  if (rootSecret.length < 32) throw new Error('The root secret must be at least 32 characters long');
  const derive = (purpose: string) => new Uint8Array(hkdfSync('sha256', rootSecret, '', purpose, 32));
  return { tokenSigningKey: derive('jwt-hs256'), codeHashKey: derive('verification-code-hmac'), refreshTokenKey: derive('refresh-token-hmac') };
}

/**
 * Reads the secret once per container and keeps the derived keys. A failed read is not cached,
 * so the next invocation tries again (Secrets Manager unreachable at a cold start recovers).
 */
export function cachedKeys(source: SecretSource): () => Promise<ServiceKeys> {
  let pending: Promise<ServiceKeys> | undefined;
  return () => {
    pending ??= source
      .rootSecret()
      .then(deriveKeys)
      .catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
    return pending;
  };
}
