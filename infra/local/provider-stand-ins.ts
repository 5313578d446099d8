import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { SignJWT, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, jwtVerify } from 'jose';
import type { CryptoKey, JWK, JWTPayload } from 'jose';

/**
 * Development stand-ins for Apple, Google and WeChat (issue 38), speaking their real protocols
 * with key pairs of their own, so that every social sign-in runs locally and in tests with no
 * internet. `npm start` serves them beside the dev outbox and points the local server at them;
 * tests start their own. Never part of the stack.
 *
 * - Apple (`/apple`, the base of APPLE_API_URL): `GET /auth/keys` (JWKS), `POST /auth/token`
 *   (form: client_id, client_secret, code, grant_type=authorization_code; the client secret is
 *   verified as Apple does: an ES256 JWT signed by the team's key, iss the team id, sub the client
 *   id, aud https://appleid.apple.com), `POST /auth/revoke` (form: client_id, client_secret, token;
 *   200 for a token already invalid, as Apple answers).
 * - Google (`/google/oauth2/v3/certs`, GOOGLE_JWKS_URL): the JWKS.
 * - WeChat (`/wechat`, WECHAT_API_URL): `GET /sns/oauth2/access_token` (appid, secret, code,
 *   grant_type=authorization_code), errors as WeChat reports them: a 200 with `errcode`
 *   (40013 invalid appid, 40125 invalid secret, 40029 invalid code, 40163 code already used;
 *   -1 system busy while `wechat.busy`).
 * - Azure Speech's token endpoint (`POST /azure/sts/v1.0/issueToken`, AZURE_SPEECH_STS_URL): the
 *   key in `Ocp-Apim-Subscription-Key`, a token as text (valid 10 minutes), 401 with Azure's JSON
 *   for a wrong or missing key (issue 44).
 * - Deepgram's grant (`POST /deepgram/v1/auth/grant`, DEEPGRAM_API_URL `<url>/deepgram`):
 *   `Authorization: Token <key>`, `{"ttl_seconds": n}` (1 to 3600, default 30), answers
 *   `{access_token, expires_in}`; 401 `INVALID_AUTH` for a wrong key.
 *   Both can be made to fail (`speech.mode`: `fail` answers 503, `hang` never answers).
 * - Issuing, for a subject and e-mail you choose: `GET /` (a page with a form per provider) and
 *   `POST /issue/apple`, `/issue/google`, `/issue/wechat`, `/issue/apple-notification` (JSON in,
 *   JSON out): an identity token and authorization code, an ID token, a WeChat code, or a signed
 *   server-to-server notification.
 */
export const APPLE_ISSUER = 'https://appleid.apple.com';
export const GOOGLE_ISSUER = 'https://accounts.google.com';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newSigningKey(prefix: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `${prefix}-${randomBytes(6).toString('hex')}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** One provider's signing keys: the current one signs, the previous stays published (as during a rotation). */
class KeySet {
  keys: SigningKey[] = [];
  /** Requests for the JWKS, to count refetches. */
  fetches = 0;
  /** While true the key endpoint drops the connection: the provider unreachable. */
  unreachable = false;

  constructor(private readonly prefix: string) {}

  async init(): Promise<this> {
    this.keys = [await newSigningKey(this.prefix)];
    return this;
  }

  get current(): SigningKey {
    return this.keys[this.keys.length - 1]!;
  }

  /** A new key signs from now on; `dropOld` retires the others at once. */
  async rotate(dropOld = false): Promise<string> {
    const next = await newSigningKey(this.prefix);
    this.keys = dropOld ? [next] : [...this.keys.slice(-1), next];
    return next.kid;
  }

  jwks() {
    return { keys: this.keys.map((key) => key.jwk) };
  }

  sign(claims: JWTPayload): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: this.current.kid, typ: 'JWT' }).sign(this.current.privateKey);
  }
}

const token = (bytes = 24) => randomBytes(bytes).toString('base64url');
const flagClaim = (value: boolean, asBoolean = false): boolean | string => (asBoolean ? value : String(value));

export interface AppleIdentity {
  sub: string;
  /** The bundle or services id the token is for. */
  clientId: string;
  email?: string;
  emailVerified?: boolean;
  isPrivateEmail?: boolean;
  /** Apple's tokens carry `email_verified` and `is_private_email` as strings ("true"/"false"), newer ones as booleans: true for the booleans. */
  booleanFlags?: boolean;
  /** What the app passed to Apple: the SHA-256 (hex) of the service's nonce. */
  nonce?: string;
  /** Seconds of validity (Apple: 10 minutes); negative for an expired token. */
  lifetimeSeconds?: number;
}

export interface GoogleIdentity {
  sub: string;
  /** The client id the token is for (`aud`), and `azp` (the same unless given). */
  clientId: string;
  azp?: string;
  email?: string;
  emailVerified?: boolean;
  /** A Google Workspace domain. */
  hd?: string;
  name?: string;
  nonce?: string;
  lifetimeSeconds?: number;
}

export interface WeChatIdentity {
  appId: string;
  /** The person: their unionid, and (unless given) an openid derived per app, as WeChat's are. */
  subject: string;
  openid?: string;
  /** False: the app is not bound to an open platform account, so WeChat sends no unionid. */
  withUnionId?: boolean;
}

interface AppleGrant {
  identity: AppleIdentity;
  expiresAt: number;
  used: boolean;
}

interface WeChatGrant {
  identity: WeChatIdentity;
  expiresAt: number;
  used: boolean;
}

export interface ProviderStandIns {
  url: string;
  /** Base addresses for APPLE_API_URL, GOOGLE_JWKS_URL and WECHAT_API_URL. */
  appleUrl: string;
  googleJwksUrl: string;
  wechatUrl: string;
  apple: {
    keys: KeySet;
    teamId: string;
    keyId: string;
    /** The team's private key (PKCS #8 PEM), as Apple's developer site gives it: APPLE_PRIVATE_KEY. */
    privateKeyPem: string;
    issue(identity: AppleIdentity): Promise<{ identityToken: string; authorizationCode: string }>;
    /** A server-to-server notification, signed as Apple signs them: `{ payload }` is what Apple posts. */
    notification(clientId: string, event: Record<string, unknown>): Promise<{ payload: string }>;
    /** Refresh tokens issued and not revoked, with the client id each belongs to. */
    liveRefreshTokens: Map<string, string>;
    /** Every token revoked, in order. */
    revoked: string[];
    /** The next `count` revocations answer 503. */
    failRevocations(count: number): void;
    tokenRequests: number;
  };
  google: {
    keys: KeySet;
    issue(identity: GoogleIdentity): Promise<{ idToken: string }>;
  };
  /** Addresses for AZURE_SPEECH_STS_URL and DEEPGRAM_API_URL. */
  azureStsUrl: string;
  deepgramUrl: string;
  speech: {
    /** The keys the stand-ins take (AZURE_SPEECH_KEY, DEEPGRAM_API_KEY). */
    azureKey: string;
    deepgramKey: string;
    /** Every token issued, by provider, in order: what the app must get. */
    issued: { azure: string[]; deepgram: { token: string; ttlSeconds: number }[] };
    /** `ok`; `fail`: 503; `hang`: the request is held unanswered (a provider timing out). */
    mode: 'ok' | 'fail' | 'hang';
    requests: number;
  };
  wechat: {
    /** App id → secret of the apps the stand-in knows. */
    apps: Map<string, string>;
    issue(identity: WeChatIdentity): { code: string };
    openidOf(appId: string, subject: string): string;
    exchanges: number;
    /** While true every code exchange answers errcode -1 (system busy), as an overloaded WeChat does. */
    busy: boolean;
  };
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  response.end(text);
};

const flag = (value: unknown): boolean | undefined => (value === undefined || value === '' ? undefined : value === true || value === 'true' || value === 'on');

/** The issuing page of `npm start`: one form per provider, answered as JSON. */
function issuingPage(defaults: { appleClientId: string; googleClientId: string; wechatAppId: string }): string {
  const field = (name: string, label: string, value = '') => `<label>${label} <input name="${name}" value="${value}"></label>`;
  const form = (provider: string, fields: string) =>
    `<form onsubmit="issue(event, '${provider}')"><h2>${provider}</h2>${fields}<button>Issue</button><pre id="${provider}-out"></pre></form>`;
  return `<!doctype html><meta charset="utf-8"><title>Provider stand-ins</title>
<style>body{font:14px system-ui;max-width:760px;margin:2em auto}label{display:block;margin:.3em 0}input{width:28em}pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4}</style>
<h1>Sign-in provider stand-ins (local mode)</h1>
<p>Issue what the platform SDK would hand the app, then send it to the API. The nonce is the SHA-256 (hex) of the one <code>POST /api/auth/social/nonce</code> answered; fill in the nonce itself in "service nonce" and the page hashes it.</p>
${form('apple', field('sub', 'subject', '000001.local.apple') + field('email', 'e-mail', 'someone@privaterelay.appleid.com') + field('emailVerified', 'e-mail verified', 'true') + field('isPrivateEmail', 'private relay', 'true') + field('clientId', 'client id', defaults.appleClientId) + field('serviceNonce', 'service nonce'))}
${form('google', field('sub', 'subject', '100000000000000000001') + field('email', 'e-mail', 'someone@gmail.com') + field('emailVerified', 'e-mail verified', 'true') + field('hd', 'Workspace domain (hd)') + field('clientId', 'client id', defaults.googleClientId) + field('serviceNonce', 'service nonce'))}
${form('wechat', field('subject', 'person (unionid)', 'local-wechat-person') + field('appId', 'app id', defaults.wechatAppId))}
<script>
async function sha256hex(text){const d=await crypto.subtle.digest('SHA-256',new TextEncoder().encode(text));return [...new Uint8Array(d)].map(b=>b.toString(16).padStart(2,'0')).join('')}
async function issue(event, provider){event.preventDefault();const body=Object.fromEntries(new FormData(event.target));
if(body.serviceNonce){body.nonce=await sha256hex(body.serviceNonce)}delete body.serviceNonce;
const r=await fetch('/issue/'+provider,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)});
document.getElementById(provider+'-out').textContent=JSON.stringify(await r.json(),null,2)}
</script>`;
}

/**
 * Starts the stand-ins on `port` (0: a free one). `appleClientId`, `googleClientId` and
 * `wechatApps` are the defaults of the issuing page and the WeChat apps it knows.
 */
export async function startProviderStandIns(
  options: {
    port?: number;
    host?: string;
    appleClientId?: string;
    googleClientId?: string;
    wechatApps?: Record<string, string>;
    /** The keys Azure's and Deepgram's stand-ins take (random unless given). */
    azureSpeechKey?: string;
    deepgramApiKey?: string;
    /** The providers' clock in ms (tests and the bench: the service's movable clock); the system's by default. */
    now?: () => number;
  } = {},
): Promise<ProviderStandIns> {
  const nowSeconds = () => Math.floor((options.now ?? Date.now)() / 1000);
  const appleKeys = await new KeySet('apple').init();
  const googleKeys = await new KeySet('google').init();
  // The team's key that signs client secrets: ES256, as Apple's developer keys are.
  const teamKey = await generateKeyPair('ES256', { extractable: true });
  const teamId = 'LOCALTEAM1';
  const keyId = `KEY${randomBytes(4).toString('hex').toUpperCase()}`.slice(0, 10);
  const privateKeyPem = await exportPKCS8(teamKey.privateKey);
  const appleGrants = new Map<string, AppleGrant>();
  const wechatGrants = new Map<string, WeChatGrant>();
  const liveRefreshTokens = new Map<string, string>();
  const revoked: string[] = [];
  let failingRevocations = 0;
  const wechatApps = new Map(Object.entries(options.wechatApps ?? {}));
  const counters = { tokenRequests: 0, wechatExchanges: 0 };
  const speech: ProviderStandIns['speech'] = {
    azureKey: options.azureSpeechKey ?? randomBytes(16).toString('hex'),
    deepgramKey: options.deepgramApiKey ?? randomBytes(20).toString('hex'),
    issued: { azure: [], deepgram: [] },
    mode: 'ok',
    requests: 0,
  };

  /** Azure's STS and Deepgram's grant; true when the request was theirs. */
  async function speechHandle(method: string, path: string, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const azure = method === 'POST' && path === '/azure/sts/v1.0/issueToken';
    const deepgram = method === 'POST' && path === '/deepgram/v1/auth/grant';
    if (!azure && !deepgram) return false;
    speech.requests++;
    const body = await readBody(request);
    if (speech.mode === 'hang') return true; // never answered: closed with the server
    if (speech.mode === 'fail') {
      json(response, 503, { error: 'service unavailable' });
      return true;
    }
    if (azure) {
      if (request.headers['ocp-apim-subscription-key'] !== speech.azureKey) {
        json(response, 401, { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } });
        return true;
      }
      // A JWT in Azure's answer; its content is Azure's business, the app passes it on.
      const issued = `eyJhbGciOiJodHRwOi8vd3d3LnczLm9yZy8yMDAxLzA0L3htbGRzaWctbW9yZSNobWFjLXNoYTI1NiIsInR5cCI6IkpXVCJ9.${Buffer.from(JSON.stringify({ region: 'local', exp: nowSeconds() + 600 })).toString('base64url')}.${token(32)}`;
      speech.issued.azure.push(issued);
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(issued) });
      response.end(issued);
      return true;
    }
    if (request.headers.authorization !== `Token ${speech.deepgramKey}`) {
      json(response, 401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: randomBytes(8).toString('hex') });
      return true;
    }
    let ttl = 30;
    if (body !== '') {
      const parsed = JSON.parse(body) as { ttl_seconds?: unknown };
      if (parsed.ttl_seconds !== undefined) {
        if (typeof parsed.ttl_seconds !== 'number' || parsed.ttl_seconds < 1 || parsed.ttl_seconds > 3600) {
          json(response, 400, { err_code: 'BAD_REQUEST', err_msg: 'ttl_seconds must be between 1 and 3600' });
          return true;
        }
        ttl = parsed.ttl_seconds;
      }
    }
    const issued = token(40);
    speech.issued.deepgram.push({ token: issued, ttlSeconds: ttl });
    json(response, 200, { access_token: issued, expires_in: ttl });
    return true;
  }

  const appleIdToken = (identity: AppleIdentity, extra: JWTPayload = {}) => {
    const iat = nowSeconds();
    return appleKeys.sign({
      iss: APPLE_ISSUER,
      aud: identity.clientId,
      sub: identity.sub,
      iat,
      exp: iat + (identity.lifetimeSeconds ?? 600),
      auth_time: iat,
      nonce_supported: true,
      ...(identity.nonce !== undefined ? { nonce: identity.nonce } : {}),
      // Apple sends these as strings in identity tokens ("true"/"false"), or as booleans.
      ...(identity.email !== undefined
        ? {
            email: identity.email,
            email_verified: flagClaim(identity.emailVerified ?? true, identity.booleanFlags),
            is_private_email: flagClaim(identity.isPrivateEmail ?? false, identity.booleanFlags),
          }
        : {}),
      ...extra,
    });
  };

  /** Apple's check of a client secret; the reason it fails, or undefined. */
  const clientSecretProblem = async (clientId: string | null, secret: string | null): Promise<string | undefined> => {
    if (!clientId || !secret) return 'client_id and client_secret are required';
    try {
      const { payload, protectedHeader } = await jwtVerify(secret, teamKey.publicKey, {
        algorithms: ['ES256'],
        issuer: teamId,
        audience: APPLE_ISSUER,
        subject: clientId,
        currentDate: new Date(nowSeconds() * 1000),
      });
      if (protectedHeader.kid !== keyId) return 'unknown key id';
      if (typeof payload.exp !== 'number' || payload.exp - nowSeconds() > 15_777_000) return 'client secret lives longer than 6 months';
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    // `/run-<n>/...` is the same stand-in at another address (tests: a key set new to the process).
    const path = url.pathname.replace(/^\/run-\d+(?=\/)/, '');
    const method = request.method ?? 'GET';
    if (await speechHandle(method, path, request, response)) return;
    if (method === 'GET' && (path === '/apple/auth/keys' || path === '/google/oauth2/v3/certs')) {
      const keys = path.startsWith('/apple') ? appleKeys : googleKeys;
      keys.fetches++;
      if (keys.unreachable) {
        request.socket.destroy();
        return;
      }
      return json(response, 200, keys.jwks(), { 'Cache-Control': 'public, max-age=21600' });
    }
    if (method === 'POST' && path === '/apple/auth/token') {
      counters.tokenRequests++;
      const form = new URLSearchParams(await readBody(request));
      const clientId = form.get('client_id');
      if (await clientSecretProblem(clientId, form.get('client_secret'))) return json(response, 400, { error: 'invalid_client' });
      if (form.get('grant_type') !== 'authorization_code') return json(response, 400, { error: 'unsupported_grant_type' });
      const grant = appleGrants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.expiresAt <= nowSeconds() || grant.identity.clientId !== clientId) return json(response, 400, { error: 'invalid_grant' });
      grant.used = true;
      const refreshToken = `r.${token()}`;
      liveRefreshTokens.set(refreshToken, clientId!);
      return json(response, 200, {
        access_token: `a.${token()}`,
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: refreshToken,
        id_token: await appleIdToken({ ...grant.identity, nonce: undefined }),
      });
    }
    if (method === 'POST' && path === '/apple/auth/revoke') {
      const form = new URLSearchParams(await readBody(request));
      if (failingRevocations > 0) {
        failingRevocations--;
        return json(response, 503, { error: 'temporarily_unavailable' });
      }
      if (await clientSecretProblem(form.get('client_id'), form.get('client_secret'))) return json(response, 400, { error: 'invalid_client' });
      const revokedToken = form.get('token') ?? '';
      if (liveRefreshTokens.get(revokedToken) === form.get('client_id')) liveRefreshTokens.delete(revokedToken);
      revoked.push(revokedToken);
      response.writeHead(200, { 'Content-Length': 0 });
      response.end();
      return;
    }
    if (method === 'GET' && path === '/wechat/sns/oauth2/access_token') {
      counters.wechatExchanges++;
      const appId = url.searchParams.get('appid') ?? '';
      // WeChat answers its errors with 200 and an errcode.
      if (standIns.wechat.busy) return json(response, 200, { errcode: -1, errmsg: 'system error' });
      if (!wechatApps.has(appId)) return json(response, 200, { errcode: 40013, errmsg: 'invalid appid' });
      if (wechatApps.get(appId) !== url.searchParams.get('secret')) return json(response, 200, { errcode: 40125, errmsg: 'invalid appsecret' });
      const grant = wechatGrants.get(url.searchParams.get('code') ?? '');
      if (!grant || grant.identity.appId !== appId || grant.expiresAt <= nowSeconds()) return json(response, 200, { errcode: 40029, errmsg: 'invalid code' });
      if (grant.used) return json(response, 200, { errcode: 40163, errmsg: 'code been used' });
      grant.used = true;
      const { identity } = grant;
      return json(response, 200, {
        access_token: token(),
        expires_in: 7200,
        refresh_token: token(),
        openid: identity.openid ?? openidOf(appId, identity.subject),
        scope: 'snsapi_userinfo',
        ...(identity.withUnionId === false ? {} : { unionid: unionidOf(identity.subject) }),
      });
    }
    if (method === 'GET' && path === '/') {
      const page = issuingPage({
        appleClientId: options.appleClientId ?? '',
        googleClientId: options.googleClientId ?? '',
        wechatAppId: [...wechatApps.keys()][0] ?? '',
      });
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
      response.end(page);
      return;
    }
    if (method === 'POST' && path.startsWith('/issue/')) {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse((await readBody(request)) || '{}') as Record<string, unknown>;
      } catch {
        return json(response, 400, { error: 'the body is JSON' });
      }
      const text = (name: string) => (typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined);
      const lifetime = typeof body.lifetimeSeconds === 'number' ? body.lifetimeSeconds : undefined;
      if (path === '/issue/apple') {
        const identity: AppleIdentity = {
          sub: text('sub') ?? `000001.${token(8)}`,
          clientId: text('clientId') ?? options.appleClientId ?? '',
          email: text('email'),
          emailVerified: flag(body.emailVerified),
          isPrivateEmail: flag(body.isPrivateEmail),
          nonce: text('nonce'),
          lifetimeSeconds: lifetime,
        };
        return json(response, 200, await standIns.apple.issue(identity));
      }
      if (path === '/issue/google') {
        const identity: GoogleIdentity = {
          sub: text('sub') ?? String(10n ** 20n + BigInt(randomBytes(4).readUInt32BE())),
          clientId: text('clientId') ?? options.googleClientId ?? '',
          azp: text('azp'),
          email: text('email'),
          emailVerified: flag(body.emailVerified),
          hd: text('hd'),
          nonce: text('nonce'),
          lifetimeSeconds: lifetime,
        };
        return json(response, 200, await standIns.google.issue(identity));
      }
      if (path === '/issue/wechat') {
        return json(response, 200, standIns.wechat.issue({ subject: text('subject') ?? token(8), appId: text('appId') ?? [...wechatApps.keys()][0] ?? '' }));
      }
      if (path === '/issue/apple-notification') {
        const { clientId, ...event } = body;
        return json(response, 200, await standIns.apple.notification(typeof clientId === 'string' ? clientId : (options.appleClientId ?? ''), event));
      }
    }
    json(response, 404, { error: 'not a stand-in address' });
  }

  const openidOf = (appId: string, subject: string) => `o${createHash('sha256').update(`${appId}\0${subject}`).digest('base64url').slice(0, 27)}`;
  const unionidOf = (subject: string) => `u${createHash('sha256').update(`union\0${subject}`).digest('base64url').slice(0, 27)}`;

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, { error: (error as Error).message });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://127.0.0.1:${port}`;

  const standIns: ProviderStandIns = {
    url,
    appleUrl: `${url}/apple`,
    googleJwksUrl: `${url}/google/oauth2/v3/certs`,
    wechatUrl: `${url}/wechat`,
    azureStsUrl: `${url}/azure/sts/v1.0/issueToken`,
    deepgramUrl: `${url}/deepgram`,
    speech,
    apple: {
      keys: appleKeys,
      teamId,
      keyId,
      privateKeyPem,
      async issue(identity) {
        const authorizationCode = `c.${token()}`;
        appleGrants.set(authorizationCode, { identity, expiresAt: nowSeconds() + 300, used: false });
        return { identityToken: await appleIdToken(identity), authorizationCode };
      },
      async notification(clientId, event) {
        const iat = nowSeconds();
        const payload = await appleKeys.sign({ iss: APPLE_ISSUER, aud: clientId, iat, jti: token(12), events: JSON.stringify({ event_time: iat * 1000, ...event }) });
        return { payload };
      },
      liveRefreshTokens,
      revoked,
      failRevocations(count) {
        failingRevocations = count;
      },
      get tokenRequests() {
        return counters.tokenRequests;
      },
    },
    google: {
      keys: googleKeys,
      async issue(identity) {
        const iat = nowSeconds();
        const idToken = await googleKeys.sign({
          iss: GOOGLE_ISSUER,
          azp: identity.azp ?? identity.clientId,
          aud: identity.clientId,
          sub: identity.sub,
          iat,
          exp: iat + (identity.lifetimeSeconds ?? 3600),
          ...(identity.nonce !== undefined ? { nonce: identity.nonce } : {}),
          ...(identity.email !== undefined ? { email: identity.email, email_verified: identity.emailVerified ?? true } : {}),
          ...(identity.hd !== undefined ? { hd: identity.hd } : {}),
          ...(identity.name !== undefined ? { name: identity.name } : {}),
        });
        return { idToken };
      },
    },
    wechat: {
      apps: wechatApps,
      issue(identity) {
        const code = token(16);
        wechatGrants.set(code, { identity, expiresAt: nowSeconds() + 300, used: false });
        return { code };
      },
      openidOf,
      get exchanges() {
        return counters.wechatExchanges;
      },
      busy: false,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  // The team key as Apple's developer site hands it out: checked to load as the service will load it.
  await importPKCS8(privateKeyPem, 'ES256');
  return standIns;
}
