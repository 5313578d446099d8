import { connect, constants } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { importPKCS8, SignJWT } from 'jose';
import type { Config } from '../../config';
import type { PushTarget } from '../../db/push-repository';
import type { PushOutcome } from '../../ports/push';

/**
 * Apple's push service (docs/realtime.md#the-silent-push): HTTP/2, token-based authentication.
 * Each request carries `authorization: bearer <JWT>`, an ES256 JWT of the team's key (`kid` the key
 * id, `iss` the team id, `iat`); Apple refuses one older than an hour (ExpiredProviderToken) and
 * one replaced more often than every 20 minutes (TooManyProviderTokenUpdates), so it is reused
 * and made again once it is APNS_JWT_REFRESH_SECONDS old, between the two.
 */
export const APNS_JWT_REFRESH_SECONDS = 50 * 60;
/** Apple's own address; a sandbox token goes to its sandbox twin when APNS_URL is left at this. */
export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';
/** How long one push may take before it counts as failed (the fan-out's batch waits for it). */
export const PUSH_TIMEOUT_MS = 5_000;

/** The silent push's body: no alert, no sound, no data; the app wakes and pulls the change feed. */
export const APNS_BODY = JSON.stringify({ aps: { 'content-available': 1 } });

/** The provider JWT, made again once it is `refreshSeconds` old (unit-tested: test/unit/push-jwt.test.ts). */
export function apnsJwtCache(sign: (iat: number) => Promise<string>, now: () => number = () => Math.floor(Date.now() / 1000), refreshSeconds = APNS_JWT_REFRESH_SECONDS) {
  let current: { jwt: Promise<string>; iat: number } | undefined;
  return {
    get(): Promise<string> {
      const at = now();
      if (!current || at - current.iat >= refreshSeconds) {
        const jwt = sign(at);
        jwt.catch(() => (current = undefined));
        current = { jwt, iat: at };
      }
      return current.jwt;
    },
    /** Apple refused it (ExpiredProviderToken, InvalidProviderToken): the next push makes another. */
    forget(): void {
      current = undefined;
    },
  };
}

/** Where a token of this environment goes: APNS_URL, or Apple's sandbox for a sandbox token while APNS_URL is Apple's production. */
export function apnsOrigin(cfg: Pick<Config, 'APNS_URL'>, environment: PushTarget['environment']): string {
  const configured = new URL(cfg.APNS_URL).origin;
  return environment === 'sandbox' && configured === APNS_PRODUCTION_URL ? APNS_SANDBOX_URL : configured;
}

/** What Apple's answer means: 410 and BadDeviceToken say the token will never work again. */
export function apnsOutcome(status: number, reason: string | undefined): PushOutcome {
  if (status === 200) return 'sent';
  if (status === 410 || (status === 400 && reason === 'BadDeviceToken')) return 'dead';
  return 'failed';
}

export function apnsClient(cfg: Pick<Config, 'APNS_URL' | 'APNS_TEAM_ID' | 'APNS_KEY_ID' | 'APNS_TOPIC'>, privateKey: () => Promise<string | undefined>, now?: () => number) {
  const jwt = apnsJwtCache(async (iat) => {
    const pem = await privateKey();
    if (!pem || !cfg.APNS_TEAM_ID || !cfg.APNS_KEY_ID) throw new Error('APNs is not configured');
    return new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: cfg.APNS_KEY_ID }).setIssuer(cfg.APNS_TEAM_ID).setIssuedAt(iat).sign(await importPKCS8(pem, 'ES256'));
  }, now);
  // One HTTP/2 connection per origin, kept between pushes as Apple asks; `http://` is HTTP/2
  // without TLS (h2c), for stand-ins. Unreferenced, so it never holds a process open.
  const sessions = new Map<string, ClientHttp2Session>();
  const sessionFor = (origin: string) => {
    const open = sessions.get(origin);
    if (open && !open.closed && !open.destroyed) return open;
    const session = connect(origin);
    session.unref();
    const drop = () => sessions.get(origin) === session && sessions.delete(origin);
    session.on('error', drop).on('close', drop).on('goaway', drop);
    sessions.set(origin, session);
    return session;
  };

  const post = (origin: string, token: string, authorization: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = sessionFor(origin).request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: `/3/device/${token}`,
        authorization: `bearer ${authorization}`,
        'apns-push-type': 'background',
        'apns-priority': '5',
        'apns-topic': cfg.APNS_TOPIC ?? '',
        'content-type': 'application/json',
      });
      request.setTimeout(PUSH_TIMEOUT_MS, () => request.close(constants.NGHTTP2_CANCEL));
      let status = 0;
      let body = '';
      request.setEncoding('utf8');
      request.on('response', (headers) => (status = Number(headers[constants.HTTP2_HEADER_STATUS])));
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => (status ? resolve({ status, body }) : reject(new Error('APNs closed the stream without an answer'))));
      request.on('error', reject);
      request.end(APNS_BODY);
    });

  return {
    configured: async () => Boolean(cfg.APNS_TEAM_ID && cfg.APNS_KEY_ID && cfg.APNS_TOPIC && (await privateKey())),
    async send(target: PushTarget): Promise<{ outcome: PushOutcome; reason?: string }> {
      const origin = apnsOrigin(cfg, target.environment);
      const authorization = await jwt.get();
      // A connection kept from an earlier invocation may have died while the container was frozen: once more on a fresh one.
      const answer = await post(origin, target.token, authorization).catch(() => {
        sessions.get(origin)?.destroy();
        sessions.delete(origin);
        return post(origin, target.token, authorization);
      });
      let reason: string | undefined;
      try {
        reason = answer.body ? (JSON.parse(answer.body) as { reason?: string }).reason : undefined;
      } catch {
        reason = undefined;
      }
      if (answer.status === 403 && (reason === 'ExpiredProviderToken' || reason === 'InvalidProviderToken')) jwt.forget();
      return { outcome: apnsOutcome(answer.status, reason), ...(reason ? { reason } : {}) };
    },
    close(): void {
      for (const session of sessions.values()) session.close();
      sessions.clear();
    },
  };
}
