import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import type { CryptoKey } from 'jose';
import type { Config } from '../../config';
import { SocialCredentialInvalidError } from '../../errors';
import type { ProviderSecrets } from '../../ports/provider-secrets';
import { APPLE_ISSUER, subjectOf } from './id-tokens';
import { providerUnavailable } from './provider-keys';

/**
 * Apple's token endpoints (docs/social-sign-in.md): the authorization code exchanged for Apple's
 * refresh token (`/auth/token`), and a refresh token revoked (`/auth/revoke`, account deletion
 * and unlinking: App Store Review Guideline 5.1.1(v)). Each call carries a client secret minted
 * for it: an ES256 JWT signed with the team's private key (Secrets Manager), 5 minutes long.
 */
const CALL_TIMEOUT_MS = 3_000;
const CLIENT_SECRET_SECONDS = 300;

let importedKey: { pem: string; key: Promise<CryptoKey> } | undefined;

async function clientSecret(cfg: Config, secrets: ProviderSecrets, clientId: string, now: Date): Promise<string> {
  const pem = secrets.applePrivateKey;
  if (!pem || !cfg.APPLE_TEAM_ID || !cfg.APPLE_KEY_ID) throw new Error('Apple sign-in needs APPLE_TEAM_ID, APPLE_KEY_ID and the private key');
  if (importedKey?.pem !== pem) importedKey = { pem, key: importPKCS8(pem, 'ES256') };
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: cfg.APPLE_KEY_ID })
    .setIssuer(cfg.APPLE_TEAM_ID)
    .setSubject(clientId)
    .setAudience(APPLE_ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CLIENT_SECRET_SECONDS)
    .sign(await importedKey.key);
}

async function post(cfg: Config, path: string, form: Record<string, string>): Promise<Response> {
  try {
    return await fetch(`${cfg.APPLE_API_URL.replace(/\/$/, '')}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(form),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (error) {
    throw providerUnavailable('Apple', error);
  }
}

/**
 * Exchanges the authorization code the app got with the identity token; answers Apple's refresh
 * token, checked to be of the same person as the identity token.
 */
export async function exchangeAppleCode(cfg: Config, secrets: ProviderSecrets, now: Date, clientId: string, code: string, subject: string): Promise<string> {
  const response = await post(cfg, '/auth/token', {
    client_id: clientId,
    client_secret: await clientSecret(cfg, secrets, clientId, now),
    code,
    grant_type: 'authorization_code',
  });
  if (response.status >= 500) throw providerUnavailable('Apple', `token endpoint answered ${response.status}`);
  const body = (await response.json().catch(() => ({}))) as { error?: string; refresh_token?: string; id_token?: string };
  if (response.status !== 200) {
    // invalid_client is ours to fix (a wrong key, team or client id): worth an error in the log, not the person's fault.
    if (body.error === 'invalid_client') throw new Error('Apple refused the client secret (invalid_client): check APPLE_TEAM_ID, APPLE_KEY_ID and the private key');
    throw SocialCredentialInvalidError.because(`apple code exchange refused: ${body.error ?? response.status}`);
  }
  if (!body.refresh_token || !body.id_token) throw providerUnavailable('Apple', 'token endpoint answered without refresh_token or id_token');
  if (subjectOf(body.id_token) !== subject) throw SocialCredentialInvalidError.because('apple authorization code of another person than the identity token');
  return body.refresh_token;
}

/** Revokes a refresh token at Apple; true once Apple answered 200 (also for a token already invalid). */
export async function revokeAppleToken(cfg: Config, secrets: ProviderSecrets, now: Date, clientId: string, refreshToken: string): Promise<boolean> {
  const response = await post(cfg, '/auth/revoke', {
    client_id: clientId,
    client_secret: await clientSecret(cfg, secrets, clientId, now),
    token: refreshToken,
    token_type_hint: 'refresh_token',
  });
  await response.body?.cancel();
  return response.status === 200;
}

/** Apple's refresh token at rest: AES-256-GCM under a key derived from the root secret, `v1.<iv>.<ciphertext>.<tag>`. */
export function sealAppleToken(key: Uint8Array, refreshToken: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(refreshToken, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

export function openAppleToken(key: Uint8Array, sealed: string): string {
  const [version, iv, data, tag] = sealed.split('.');
  if (version !== 'v1' || !iv || data === undefined || !tag) throw new Error('not a sealed Apple token');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * Whether an e-mail is an address of Apple's private relay: mail to it reaches the person only
 * while their Apple account and its tie to the app last, so it is no way in once Apple is unlinked
 * or the Apple account is deleted.
 */
export const isAppleRelayAddress = (email: string): boolean => email.toLowerCase().endsWith('@privaterelay.appleid.com');
