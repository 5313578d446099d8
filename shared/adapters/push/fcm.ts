import { importPKCS8, SignJWT } from 'jose';
import type { Config } from '../../config';
import type { PushTarget } from '../../db/push-repository';
import type { FcmServiceAccount, PushOutcome } from '../../ports/push';
import { PUSH_TIMEOUT_MS } from './apns';

/**
 * Firebase Cloud Messaging's HTTP v1 API (docs/realtime.md#the-silent-push). The service
 * account's OAuth 2.0 access token comes from Google's token endpoint by the JWT-bearer grant
 * (RFC 7523): an RS256 JWT signed with the account's private key (`iss` its e-mail, `scope` FCM's,
 * `aud` the token endpoint, an hour long), exchanged for a token kept until a minute before it
 * expires. Each push is a data message (`{"type":"changes"}`) at normal priority, which wakes the
 * app's FirebaseMessagingService without a notification.
 */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The access token is used until this long before Google says it expires. */
const EXPIRY_MARGIN_SECONDS = 60;

/** What FCM's answer means: 404 / UNREGISTERED says the app was uninstalled or the token expired. */
export function fcmOutcome(status: number, body: unknown): { outcome: PushOutcome; reason?: string } {
  if (status === 200) return { outcome: 'sent' };
  const error = (body as { error?: { status?: string; details?: { errorCode?: string }[] } } | undefined)?.error;
  const reason = error?.details?.find((detail) => typeof detail.errorCode === 'string')?.errorCode ?? error?.status;
  return { outcome: status === 404 || reason === 'UNREGISTERED' ? 'dead' : 'failed', ...(reason ? { reason } : {}) };
}

export function fcmClient(cfg: Pick<Config, 'FCM_URL' | 'FCM_TOKEN_URL'>, account: () => Promise<FcmServiceAccount | undefined>, now: () => number = () => Math.floor(Date.now() / 1000)) {
  let cached: { token: Promise<{ value: string; expiresAt: number }> } | undefined;
  const exchange = async (): Promise<{ value: string; expiresAt: number }> => {
    const serviceAccount = await account();
    if (!serviceAccount) throw new Error('FCM is not configured');
    const iat = now();
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(serviceAccount.private_key_id ? { kid: serviceAccount.private_key_id } : {}) })
      .setIssuer(serviceAccount.client_email)
      .setAudience(cfg.FCM_TOKEN_URL)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await importPKCS8(serviceAccount.private_key, 'RS256'));
    const response = await fetch(cfg.FCM_TOKEN_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') throw new Error(`FCM's token endpoint refused the service account (${response.status})`);
    return { value: body.access_token, expiresAt: iat + (typeof body.expires_in === 'number' ? body.expires_in : 3600) - EXPIRY_MARGIN_SECONDS };
  };
  const accessToken = async (): Promise<string> => {
    if (cached) {
      const token = await cached.token.catch(() => undefined);
      if (token && now() < token.expiresAt) return token.value;
    }
    const token = exchange();
    cached = { token };
    token.catch(() => (cached = undefined));
    return (await token).value;
  };

  return {
    configured: async () => Boolean(await account()),
    async send(target: PushTarget): Promise<{ outcome: PushOutcome; reason?: string }> {
      const serviceAccount = await account();
      if (!serviceAccount) return { outcome: 'failed', reason: 'not configured' };
      const url = `${cfg.FCM_URL.replace(/\/$/, '')}/v1/projects/${encodeURIComponent(serviceAccount.project_id)}/messages:send`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: { token: target.token, data: { type: 'changes' }, android: { priority: 'normal' } } }),
        signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
      });
      const answer = fcmOutcome(response.status, await response.json().catch(() => undefined));
      // An access token FCM no longer takes: the next push exchanges another.
      if (response.status === 401) cached = undefined;
      return answer;
    },
  };
}
