import { createLocalJWKSet, createRemoteJWKSet, errors } from 'jose';
import type { FlattenedJWSInput, JWSHeaderParameters, JWTVerifyGetKey } from 'jose';
import { ProviderUnavailableError } from '../../errors';

/**
 * The providers' public keys (Apple's /auth/keys, Google's certs), through jose's
 * createRemoteJWKSet, one per address at module scope: a warm function verifies without a fetch.
 *
 * - a short fetch timeout (a slow provider answers 503 quickly instead of holding the sign-in);
 * - a long cache age: the keys are fetched again after 6 hours, or at once for an unknown `kid`
 *   (a rotation), at most once per cooldown (PROVIDER_KEYS_COOLDOWN_SECONDS), so a flood of
 *   tokens with made-up `kid`s costs the provider one request per cooldown;
 * - when a refetch fails, the keys fetched before still verify (a provider's brief outage does
 *   not fail sign-ins); with none fetched yet, ProviderUnavailableError (503 with Retry-After).
 */
const FETCH_TIMEOUT_MS = 1_500;
const CACHE_MAX_AGE_MS = 6 * 60 * 60 * 1000;
/** What a client is told to wait when the provider cannot be reached. */
export const PROVIDER_RETRY_AFTER_SECONDS = 10;

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;
const keySets = new Map<string, RemoteKeySet>();

/** A failure to fetch the key set (network, timeout, not 200, not a key set), as opposed to a token with no matching key. */
const isFetchFailure = (error: unknown) =>
  error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError) || error.code === 'ERR_JOSE_GENERIC' || error.code === 'ERR_JWKS_INVALID';

export const providerUnavailable = (provider: string, cause: unknown) =>
  new ProviderUnavailableError(`Sign-in with ${provider} is unavailable right now. Try again shortly, or sign in another way.`, PROVIDER_RETRY_AFTER_SECONDS, { cause });

/** The key resolver for jwtVerify of one provider's key set address. */
export function providerKeys(provider: string, url: string, cooldownSeconds: number): JWTVerifyGetKey {
  const cacheKey = `${url} ${cooldownSeconds}`;
  let remote = keySets.get(cacheKey);
  if (!remote) {
    remote = createRemoteJWKSet(new URL(url), { timeoutDuration: FETCH_TIMEOUT_MS, cacheMaxAge: CACHE_MAX_AGE_MS, cooldownDuration: cooldownSeconds * 1000 });
    keySets.set(cacheKey, remote);
  }
  const keys = remote;
  return async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || !isFetchFailure(error)) throw error;
      const stale = keys.jwks();
      if (!stale) throw providerUnavailable(provider, error);
      return createLocalJWKSet(stale)(header, token);
    }
  };
}
