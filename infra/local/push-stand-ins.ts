import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, createServer as createH2cServer } from 'node:http2';
import type { Http2Server, IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import type { FcmServiceAccount } from '../../shared/ports/push';

/**
 * Local stand-ins of Apple's push service and Firebase Cloud Messaging (docs/realtime.md#the-silent-push),
 * speaking their protocols and checking what the real ones check, so `npm start` and the tests
 * push without an Apple or Google account:
 *
 * - APNs: HTTP/2 without TLS (h2c: APNS_URL=http://...), `POST /3/device/<token>`; the provider JWT
 *   verified with the team key's public half (ES256, `kid` the key id, `iss` the team id, `iat`
 *   within the hour, else 403 InvalidProviderToken / ExpiredProviderToken), `apns-topic`,
 *   `apns-push-type: background`, `apns-priority: 5` and `{"aps":{"content-available":1}}`
 *   (400 with Apple's reason otherwise); a token marked unregistered answers 410 Unregistered, one
 *   marked bad 400 BadDeviceToken.
 * - FCM: Google's token endpoint (`POST /token`, the JWT-bearer grant, the assertion verified with
 *   the service account's public key: RS256, `iss` its e-mail, `scope` FCM's, `aud` the endpoint,
 *   unexpired) answering an hour's access token; `POST /v1/projects/<id>/messages:send` checking the
 *   bearer token and the message, answering 404 UNREGISTERED for a token marked dead.
 *
 * The keys are generated at every start (a dev key pair; no real key is ever committed).
 */
export interface PushDelivery {
  platform: 'apns' | 'fcm';
  token: string;
  /** APNs: the request's headers; FCM: the message. */
  detail: Record<string, unknown>;
  at: number;
}

export interface PushStandIns {
  /** APNS_URL (h2c). */
  apnsUrl: string;
  /** FCM_URL and FCM_TOKEN_URL. */
  fcmUrl: string;
  fcmTokenUrl: string;
  apns: {
    teamId: string;
    keyId: string;
    topic: string;
    /** APNS_PRIVATE_KEY: the team's key, PKCS #8 PEM, as Apple's developer site gives the .p8. */
    privateKeyPem: string;
    /** Tokens answered 410 Unregistered. */
    unregistered: Set<string>;
    /** Tokens answered 400 BadDeviceToken. */
    bad: Set<string>;
    /** `ok`; `fail`: 500 InternalServerError to every push. */
    mode: 'ok' | 'fail';
    /** Every provider JWT the stand-in accepted, in order. */
    jwts: string[];
    /** Pushes refused, with Apple's reason. */
    refusals: { status: number; reason: string }[];
  };
  fcm: {
    /** FCM_SERVICE_ACCOUNT: the service account's JSON, as the Firebase console downloads it. */
    serviceAccount: FcmServiceAccount;
    /** Tokens answered 404 UNREGISTERED. */
    unregistered: Set<string>;
    mode: 'ok' | 'fail';
    /** Access tokens issued by the token endpoint (each exchange one). */
    exchanges: number;
    refusals: { status: number; reason: string }[];
  };
  /** Pushes accepted, both providers, in order. */
  delivered: PushDelivery[];
  close(): Promise<void>;
}

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

export async function startPushStandIns(options: { host?: string; apnsPort?: number; fcmPort?: number; topic?: string; now?: () => number } = {}): Promise<PushStandIns> {
  const nowSeconds = () => Math.floor((options.now ?? Date.now)() / 1000);
  const host = options.host ?? '127.0.0.1';
  const teamKey = await generateKeyPair('ES256', { extractable: true });
  const accountKey = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  // As the real ones are read: the public halves from their PEM.
  const teamPublic = await importSPKI(await exportSPKI(teamKey.publicKey), 'ES256');
  const accountPublic = await importSPKI(await exportSPKI(accountKey.publicKey), 'RS256');
  const delivered: PushDelivery[] = [];
  const accessTokens = new Map<string, number>();

  const apns: PushStandIns['apns'] = {
    teamId: 'LOCALTEAM2',
    keyId: `PUSH${randomBytes(3).toString('hex').toUpperCase()}`,
    topic: options.topic ?? 'com.example.captions',
    privateKeyPem: await exportPKCS8(teamKey.privateKey),
    unregistered: new Set(),
    bad: new Set(),
    mode: 'ok',
    jwts: [],
    refusals: [],
  };
  const fcm: PushStandIns['fcm'] = {
    serviceAccount: {
      project_id: 'captions-local',
      client_email: 'push@captions-local.iam.gserviceaccount.com',
      private_key: await exportPKCS8(accountKey.privateKey),
      private_key_id: randomBytes(20).toString('hex'),
    },
    unregistered: new Set(),
    mode: 'ok',
    exchanges: 0,
    refusals: [],
  };

  // APNs, over h2c.
  const apnsAnswer = (stream: ServerHttp2Stream, status: number, reason?: string) => {
    if (reason) apns.refusals.push({ status, reason });
    const body = reason ? JSON.stringify({ reason, ...(status === 410 ? { timestamp: nowSeconds() * 1000 } : {}) }) : '';
    stream.respond({ [constants.HTTP2_HEADER_STATUS]: status, 'apns-id': randomBytes(16).toString('hex'), ...(body ? { 'content-type': 'application/json' } : {}) });
    stream.end(body);
  };
  const apnsServer: Http2Server = createH2cServer();
  apnsServer.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    void (async () => {
      const body = await readAll(stream);
      const path = String(headers[constants.HTTP2_HEADER_PATH] ?? '');
      const match = /^\/3\/device\/([0-9a-fA-F]+)$/.exec(path);
      if (headers[constants.HTTP2_HEADER_METHOD] !== 'POST') return apnsAnswer(stream, 405, 'MethodNotAllowed');
      if (!match) return apnsAnswer(stream, 400, 'BadPath');
      const authorization = String(headers.authorization ?? '');
      if (!authorization.startsWith('bearer ')) return apnsAnswer(stream, 403, 'MissingProviderToken');
      const jwt = authorization.slice('bearer '.length);
      try {
        const { payload, protectedHeader } = await jwtVerify(jwt, teamPublic, { algorithms: ['ES256'], issuer: apns.teamId });
        if (protectedHeader.kid !== apns.keyId) return apnsAnswer(stream, 403, 'InvalidProviderToken');
        if (typeof payload.iat !== 'number') return apnsAnswer(stream, 403, 'InvalidProviderToken');
        if (nowSeconds() - payload.iat > 3600) return apnsAnswer(stream, 403, 'ExpiredProviderToken');
      } catch {
        return apnsAnswer(stream, 403, 'InvalidProviderToken');
      }
      if (headers['apns-topic'] !== apns.topic) return apnsAnswer(stream, 400, headers['apns-topic'] ? 'DeviceTokenNotForTopic' : 'MissingTopic');
      if (headers['apns-push-type'] !== 'background') return apnsAnswer(stream, 400, 'InvalidPushType');
      // Apple takes only priority 5 for a background push.
      if (headers['apns-priority'] !== '5') return apnsAnswer(stream, 400, 'BadPriority');
      let parsed: { aps?: Record<string, unknown> } | undefined;
      try {
        parsed = JSON.parse(body) as { aps?: Record<string, unknown> };
      } catch {
        return apnsAnswer(stream, 400, 'PayloadEmpty');
      }
      if (parsed.aps?.['content-available'] !== 1 || 'alert' in (parsed.aps ?? {}) || 'sound' in (parsed.aps ?? {})) return apnsAnswer(stream, 400, 'BadPayload');
      if (apns.mode === 'fail') return apnsAnswer(stream, 500, 'InternalServerError');
      const token = match[1]!.toLowerCase();
      if (apns.unregistered.has(token)) return apnsAnswer(stream, 410, 'Unregistered');
      if (apns.bad.has(token)) return apnsAnswer(stream, 400, 'BadDeviceToken');
      if (!apns.jwts.includes(jwt)) apns.jwts.push(jwt);
      delivered.push({ platform: 'apns', token, detail: { ...headers, authorization: undefined }, at: nowSeconds() });
      apnsAnswer(stream, 200);
    })().catch(() => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
  });

  // FCM and Google's token endpoint, over HTTP/1.1.
  const fcmJson = (response: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  const fcmError = (response: ServerResponse, status: number, statusName: string, message: string, errorCode?: string) => {
    fcm.refusals.push({ status, reason: errorCode ?? statusName });
    fcmJson(response, status, {
      error: { code: status, message, status: statusName, ...(errorCode ? { details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } : {}) },
    });
  };
  let fcmTokenUrl = '';
  const fcmServer = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await readAll(request);
      const path = (request.url ?? '').split('?')[0];
      if (request.method === 'POST' && path === '/token') {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== JWT_BEARER) return fcmJson(response, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
        try {
          const { payload } = await jwtVerify(form.get('assertion') ?? '', accountPublic, {
            algorithms: ['RS256'],
            issuer: fcm.serviceAccount.client_email,
            audience: fcmTokenUrl,
            currentDate: new Date(nowSeconds() * 1000),
            requiredClaims: ['iat', 'exp'],
          });
          if (payload.scope !== FCM_SCOPE) return fcmJson(response, 400, { error: 'invalid_scope', error_description: 'Invalid OAuth scope' });
        } catch {
          return fcmJson(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
        }
        fcm.exchanges++;
        const accessToken = `ya29.local-${randomBytes(24).toString('base64url')}`;
        accessTokens.set(accessToken, nowSeconds() + 3600);
        return fcmJson(response, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
      }
      const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path ?? '');
      if (request.method !== 'POST' || !send) return fcmError(response, 404, 'NOT_FOUND', 'Not found');
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const expiresAt = bearer ? accessTokens.get(bearer) : undefined;
      if (!expiresAt || expiresAt <= nowSeconds()) return fcmError(response, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
      if (decodeURIComponent(send[1]!) !== fcm.serviceAccount.project_id) return fcmError(response, 403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH');
      let message: { token?: unknown; data?: Record<string, unknown>; android?: { priority?: unknown }; notification?: unknown } | undefined;
      try {
        message = (JSON.parse(body) as { message?: typeof message }).message;
      } catch {
        message = undefined;
      }
      if (!message || typeof message.token !== 'string' || message.token === '') return fcmError(response, 400, 'INVALID_ARGUMENT', 'Invalid message', 'INVALID_ARGUMENT');
      if (message.notification !== undefined || !message.data || Object.values(message.data).some((value) => typeof value !== 'string')) {
        return fcmError(response, 400, 'INVALID_ARGUMENT', 'A silent push is a data message of string values', 'INVALID_ARGUMENT');
      }
      if (String(message.android?.priority ?? '').toUpperCase() !== 'NORMAL') return fcmError(response, 400, 'INVALID_ARGUMENT', 'Expected android.priority normal', 'INVALID_ARGUMENT');
      if (fcm.mode === 'fail') return fcmError(response, 503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE');
      if (fcm.unregistered.has(message.token)) return fcmError(response, 404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED');
      delivered.push({ platform: 'fcm', token: message.token, detail: message as Record<string, unknown>, at: nowSeconds() });
      return fcmJson(response, 200, { name: `projects/${fcm.serviceAccount.project_id}/messages/${randomBytes(8).toString('hex')}` });
    })().catch(() => {
      if (!response.headersSent) fcmJson(response, 500, { error: { code: 500, status: 'INTERNAL' } });
    });
  });

  const listen = (server: Http2Server | ReturnType<typeof createServer>, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });
  const apnsPort = await listen(apnsServer, options.apnsPort ?? 0);
  const fcmPort = await listen(fcmServer, options.fcmPort ?? 0);
  const fcmUrl = `http://${host}:${fcmPort}`;
  fcmTokenUrl = `${fcmUrl}/token`;
  const sessions = new Set<ServerHttp2Session>();
  apnsServer.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  return {
    apnsUrl: `http://${host}:${apnsPort}`,
    fcmUrl,
    fcmTokenUrl,
    apns,
    fcm,
    delivered,
    close: async () => {
      for (const session of sessions) session.destroy();
      fcmServer.closeAllConnections();
      await Promise.all([new Promise((resolve) => apnsServer.close(resolve)), new Promise((resolve) => fcmServer.close(resolve))]);
    },
  };
}
