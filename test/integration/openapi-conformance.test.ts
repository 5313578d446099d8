import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_DOCUMENT, requestDocumentPath } from '../../infra/tools/openapi';
import { changeStanding, readProfileItem } from '../../shared/db/account-standing-repository';
import type { OpenApiDocument } from '../../infra/tools/openapi';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { ApiResponse, LocalApi, RequestOptions } from '../support/local-api';
import { documentAjv, pointerSegment } from '../support/openapi-ajv';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { SOCIAL, startSocialApi } from '../support/social';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { nonceHash } from '../../shared/identity/social/nonces';
import { jobs, routes } from '../../shared/routes';
import { randomUUID } from 'node:crypto';
import { startBody as speechStartBody, startSpeechApi } from '../support/speech';

/**
 * Real requests at the local server, every answer (status, body and documented headers) checked
 * against the OpenAPI document it serves, with ajv on the document's own JSON Schemas. Every
 * operation is driven to 200 and to each error status the document lists for it that a request
 * can provoke here (all but 429, 500 and a busy database's 503: the local server has no throttle,
 * and those would need a broken dependency). So the document cannot drift from the code: an
 * undocumented status, field or error name fails here.
 */
let api: LocalApi;
let document: OpenApiDocument;
let ajv: ReturnType<typeof documentAjv>;

/** `GET /devices` -> the statuses seen. */
const seen = new Map<string, Set<string>>();

interface Located {
  operationId: string;
  key: string;
  operation: Record<string, any>;
  pointer: string;
}

function locate(method: string, requestPath: string): Located {
  const path = requestDocumentPath(requestPath.split('?')[0]!);
  for (const [template, item] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    const operation = (item as Record<string, any>)[method.toLowerCase()];
    if (pattern.test(path) && operation) {
      return { operationId: operation.operationId, key: `${method} ${template}`, operation, pointer: `#/paths/${pointerSegment(template)}/${method.toLowerCase()}` };
    }
  }
  throw new Error(`${method} ${requestPath} is no operation of the document`);
}

function checkAgainstDocument(method: string, path: string, response: ApiResponse): void {
  const { key, operation, pointer } = locate(method, path);
  const status = String(response.status);
  const what = `${key} answered ${status} ${JSON.stringify(response.body)?.slice(0, 300)}`;
  let documented = operation.responses[status];
  expect(documented, `${what}: status not documented`).toBeDefined();
  let responsePointer = `${pointer}/responses/${status}`;
  if (documented.$ref) {
    responsePointer = documented.$ref;
    documented = documented.$ref.slice(2).split('/').reduce((node: any, name: string) => node[name], document);
  }
  const validate = ajv.getSchema(`openapi.json${responsePointer}/content/application~1json/schema`)!;
  expect(validate(response.body), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  for (const [name, header] of Object.entries<Record<string, any>>(documented.headers ?? {})) {
    const value = response.headers.get(name);
    const schema = (header.$ref ? header.$ref.slice(2).split('/').reduce((node: any, part: string) => node[part], document) : header).schema;
    if (value === null) continue;
    const typed = schema.type === 'integer' ? Number(value) : value;
    expect(ajv.validate(schema, typed), `${what}: header ${name}: ${value}`).toBe(true);
  }
  if (response.body?.retryAfterSeconds !== undefined) {
    expect(documented.headers?.['Retry-After'], `${what}: Retry-After not documented`).toBeDefined();
    expect(response.headers.get('Retry-After')).toBe(String(response.body.retryAfterSeconds));
  }
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(status);
}

/** A request whose answer must conform to the document. */
async function call(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const response = await api.request(method, path, options);
  checkAgainstDocument(method, path, response);
  return response;
}

const tooLarge = (token?: string): RequestOptions => ({
  rawBody: JSON.stringify({ text: 'x'.repeat(1_600_000) }),
  headers: { 'content-type': 'application/json' },
  ...(token ? { token } : {}),
});

async function codeFor(target: string): Promise<string> {
  const sent = await call('POST', '/api/verify-code/send', { body: { type: target.includes('@') ? 'email' : 'sms', target } });
  expect(sent.status).toBe(200);
  return latestCode(api, target);
}

async function signInWithCode(target: string): Promise<{ token: string; userId: number; refreshToken: string }> {
  const verified = await call('POST', '/api/verify-code/verify', { body: { target, verifyCode: await codeFor(target) } });
  expect(verified.status).toBe(200);
  return verified.body;
}

let alice: { token: string; userId: number; refreshToken: string };
let bob: { token: string; userId: number; refreshToken: string };

let standIns: ProviderStandIns;
let closeSocial: () => Promise<void>;

beforeAll(async () => {
  // Apple, Google and WeChat configured, against their stand-ins (the social sign-ins' 200s).
  ({ api, standIns, close: closeSocial } = await startSocialApi());
  const served = await api.request('GET', '/api/openapi.json');
  document = served.body;
  ajv = documentAjv(document);
  alice = await signInWithCode(uniqueEmail('conformance'));
  bob = await signInWithCode(uniquePhone());
});
afterAll(() => closeSocial?.());

describe('the served document', () => {
  it('is the committed one', async () => {
    expect(document).toEqual(JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')));
    expect((await call('GET', '/api/openapi.json')).status).toBe(200);
    expect((await call('GET', '/api/health')).status).toBe(200);
  });
});

describe('every operation', () => {
  /** A path of the operation: each parameter an example of its schema, or a plain value a route matches. */
  const examplePath = (template: string, operation: Record<string, any>) =>
    `/api${template.replace(/\{(\w+)\}/g, (_match, name: string) => {
      const parameter = (operation.parameters ?? []).find((candidate: { name?: string }) => candidate.name === name);
      return encodeURIComponent(String(parameter?.schema?.examples?.[0] ?? parameter?.example ?? '1'));
    })}`;
  const operations = () =>
    Object.entries(document.paths).flatMap(([template, item]) => Object.entries<Record<string, any>>(item as Record<string, any>).map(([method, operation]) => ({ method: method.toUpperCase(), template, operation })));

  it('413 for a body over the limit, those that take no body included; 400 for any body sent to one that takes none', async () => {
    for (const { method, template, operation } of operations()) {
      const path = examplePath(template, operation);
      const token = operation.security.length > 0 ? alice.token : undefined;
      expect((await call(method, path, tooLarge(token))).status, `${method} ${template}`).toBe(413);
      if (!operation.requestBody) {
        const refused = await call(method, path, { body: {}, ...(token ? { token } : {}) });
        expect(refused.status, `${method} ${template}`).toBe(400);
        expect(refused.body.details).toEqual([{ path: 'body', message: 'this operation takes no body' }]);
      }
    }
  });
});

describe('sign-in operations', () => {
  it('send: 200, 400 (not JSON, invalid, cooldown), 413, 503 when delivery fails', async () => {
    const target = uniqueEmail('send');
    expect((await call('POST', '/api/verify-code/send', { body: { type: 'email', target, locale: 'zh-CN' } })).status).toBe(200);
    expect((await call('POST', '/api/verify-code/send', { body: { type: 'email', target } })).body.error).toBe('CODE_COOLDOWN');
    expect((await call('POST', '/api/verify-code/send', { rawBody: 'type=email' })).body.error).toBe('INVALID_JSON');
    expect((await call('POST', '/api/verify-code/send', { body: { type: 'fax', target } })).body.error).toBe('VALIDATION_FAILED');
    expect((await call('POST', '/api/verify-code/send', tooLarge())).status).toBe(413);
    api.outbox.failNext();
    expect((await call('POST', '/api/v1/verify-code/send', { body: { type: 'sms', target: uniquePhone() } })).body.error).toBe('DELIVERY_FAILED');
  });

  it('verify: 200, 400 (wrong code, invalid), 413', async () => {
    const target = uniqueEmail('verify');
    const code = await codeFor(target);
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await call('POST', '/api/verify-code/verify', { body: { target, verifyCode: wrong } })).body.error).toBe('CODE_INVALID');
    expect((await call('POST', '/api/verify-code/verify', { body: { target, verifyCode: '12' } })).body.error).toBe('VALIDATION_FAILED');
    expect((await call('POST', '/api/verify-code/verify', tooLarge())).status).toBe(413);
    expect((await call('POST', '/api/verify-code/verify', { body: { target, verifyCode: code } })).status).toBe(200);
  });

  it('register, login (also locked), password reset: 200, 400, 413', async () => {
    const email = uniqueEmail('password');
    const registered = await call('POST', '/api/auth/register', { body: { email, verifyCode: await codeFor(email), password: 'violet-harbor-42' } });
    expect(registered.status).toBe(200);
    api.clock.advance(61);
    expect((await call('POST', '/api/auth/register', { body: { email, verifyCode: await codeFor(email), password: 'violet-harbor-42' } })).body.error).toBe(
      'ACCOUNT_EXISTS',
    );
    expect((await call('POST', '/api/auth/register', { body: { email, phone: uniquePhone(), verifyCode: '123456', password: 'x' } })).status).toBe(400);
    expect((await call('POST', '/api/auth/register', tooLarge())).status).toBe(413);

    expect((await call('POST', '/api/auth/login', { body: { email, password: 'violet-harbor-42' } })).status).toBe(200);
    expect((await call('POST', '/api/auth/login', tooLarge())).status).toBe(413);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await call('POST', '/api/auth/login', { body: { email, password: 'wrong password' } })).body.error).toBe('INVALID_CREDENTIALS');
    }
    expect((await call('POST', '/api/auth/login', { body: { email, password: 'violet-harbor-42' } })).body.error).toBe('LOGIN_LOCKED');

    api.clock.advance(61);
    const code = await codeFor(email);
    expect((await call('POST', '/api/auth/password/reset', { body: { target: email, verifyCode: code === '000000' ? '111111' : '000000', newPassword: 'quiet-meadow-17' } })).body.error).toBe(
      'CODE_INVALID',
    );
    expect((await call('POST', '/api/auth/password/reset', tooLarge())).status).toBe(413);
    expect((await call('POST', '/api/auth/password/reset', { body: { target: email, verifyCode: code, newPassword: 'quiet-meadow-17' } })).status).toBe(200);
  });

  it('logout and the current user: 200, 400, 401, 413', async () => {
    expect((await call('POST', '/api/auth/logout', { token: alice.token })).status).toBe(200);
    expect((await call('POST', '/api/auth/logout')).status).toBe(401);
    expect((await call('POST', '/api/auth/logout', { token: alice.token, body: { refreshToken: 1 } })).status).toBe(400);
    expect((await call('POST', '/api/auth/logout', tooLarge(alice.token))).status).toBe(413);
    expect((await call('GET', '/api/v1/users/me', { token: alice.token })).status).toBe(200);
    expect((await call('GET', '/api/users/me', { token: 'not-a-token' })).status).toBe(401);
    expect((await call('GET', '/api/users/me/summary', { token: alice.token })).status).toBe(200);
    expect((await call('GET', '/api/users/me/summary', { token: 'not-a-token' })).status).toBe(401);
  });
});

describe('profile', () => {
  it('settings, e-mail, phone, password: 200, 400, 401, 413', async () => {
    const frank = await signInWithCode(uniqueEmail('profile'));
    expect((await call('PATCH', '/api/users/me', { token: frank.token, body: { timeZone: 'Asia/Kathmandu', locale: 'zh-CN' } })).status).toBe(200);
    expect((await call('PATCH', '/api/users/me', { token: frank.token, body: { timeZone: 'Mars/Olympus' } })).status).toBe(400);
    expect((await call('PATCH', '/api/users/me', { body: { locale: null } })).status).toBe(401);
    expect((await call('PATCH', '/api/users/me', tooLarge(frank.token))).status).toBe(413);
    expect((await call('GET', '/api/users/me/export', { token: frank.token })).status).toBe(200);
    expect((await call('GET', '/api/users/me/export?cursor=not-a-cursor', { token: frank.token })).status).toBe(400);
    expect((await call('GET', '/api/users/me/export')).status).toBe(401);

    const email = uniqueEmail('profile-new');
    const code = await codeFor(email);
    expect((await call('PUT', '/api/users/me/email', { token: frank.token, body: { email, verifyCode: code === '000000' ? '111111' : '000000' } })).body.error).toBe('CODE_INVALID');
    expect((await call('PUT', '/api/users/me/email', { token: frank.token, body: { email, verifyCode: code } })).status).toBe(200);
    expect((await call('PUT', '/api/users/me/email', { token: alice.token, body: { email, verifyCode: '123456' } })).body.error).toBe('CODE_INVALID');
    expect((await call('PUT', '/api/users/me/email', { body: { email, verifyCode: code } })).status).toBe(401);
    expect((await call('PUT', '/api/users/me/email', tooLarge(frank.token))).status).toBe(413);

    const phone = uniquePhone();
    expect((await call('PUT', '/api/users/me/phone', { token: frank.token, body: { phone, verifyCode: await codeFor(phone) } })).status).toBe(200);
    api.clock.advance(61);
    const taken = await call('PUT', '/api/users/me/phone', { token: alice.token, body: { phone, verifyCode: await codeFor(phone) } });
    expect(taken.body.error).toBe('ACCOUNT_EXISTS');
    expect((await call('PUT', '/api/users/me/phone', { token: frank.token, body: { phone: '12345' } })).status).toBe(400);
    expect((await call('PUT', '/api/users/me/phone', { body: {} })).status).toBe(401);
    expect((await call('PUT', '/api/users/me/phone', tooLarge(frank.token))).status).toBe(413);

    expect((await call('PUT', '/api/users/me/password', { token: frank.token, body: { newPassword: 'violet-harbor-42' } })).status).toBe(200);
    expect((await call('PUT', '/api/users/me/password', { token: frank.token, body: { currentPassword: 'wrong one', newPassword: 'quiet-meadow-17' } })).body.error).toBe(
      'INVALID_CREDENTIALS',
    );
    expect((await call('PUT', '/api/users/me/password', { body: {} })).status).toBe(401);
    expect((await call('PUT', '/api/users/me/password', tooLarge(frank.token))).status).toBe(413);
  });
});

describe('sessions', () => {
  it('refresh, list, end one, end the others, logout with the refresh token: 200, 400, 401, 404, 413', async () => {
    const dave = await signInWithCode(uniqueEmail('sessions'));
    const refreshed = await call('POST', '/api/auth/token/refresh', { body: { refreshToken: dave.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect((await call('POST', '/api/auth/token/refresh', { body: { refreshToken: 'nonsense' } })).body.error).toBe('REFRESH_TOKEN_INVALID');
    expect((await call('POST', '/api/auth/token/refresh', { body: {} })).status).toBe(400);
    expect((await call('POST', '/api/auth/token/refresh', tooLarge())).status).toBe(413);

    const listed = await call('GET', '/api/auth/sessions', { token: refreshed.body.token });
    expect(listed.body).toHaveLength(1);
    expect((await call('GET', '/api/auth/sessions')).status).toBe(401);
    expect((await call('DELETE', '/api/auth/sessions', { token: refreshed.body.token })).body.ended).toBe(0);
    expect((await call('DELETE', '/api/auth/sessions')).status).toBe(401);
    expect((await call('DELETE', '/api/auth/sessions/AAAAAAAAAAAAAAAAAAAAAA', { token: refreshed.body.token })).status).toBe(404);
    expect((await call('DELETE', '/api/auth/sessions/not-an-id', { token: refreshed.body.token })).status).toBe(400);
    expect((await call('DELETE', `/api/auth/sessions/${listed.body[0].sessionId}`)).status).toBe(401);
    expect((await call('DELETE', `/api/auth/sessions/${listed.body[0].sessionId}`, { token: refreshed.body.token })).status).toBe(200);
    expect((await call('POST', '/api/auth/token/refresh', { body: { refreshToken: refreshed.body.refreshToken } })).body.error).toBe('SESSION_ENDED');

    const erin = await signInWithCode(uniqueEmail('logout'));
    expect((await call('POST', '/api/auth/logout', { token: erin.token, body: { refreshToken: erin.refreshToken } })).status).toBe(200);
    expect((await call('GET', '/api/users/me', { token: erin.token })).status).toBe(401);
  });
});

describe('devices', () => {
  it('bind, list (paginated), unbind: 200, 400, 401, 404, 413', async () => {
    for (const sn of ['CAP2-00000001', 'CAP2-00000002']) {
      expect((await call('POST', '/api/devices', { token: alice.token, body: { sn, mac: '00:1a:2b:3c:4d:5e', productModel: 'Caption Glasses 2' } })).status).toBe(200);
    }
    expect((await call('POST', '/api/devices', { token: bob.token, body: { sn: 'CAP2-00000001', mac: '00:1A:2B:3C:4D:5F', productModel: 'X' } })).body.error).toBe(
      'DEVICE_BOUND_ELSEWHERE',
    );
    expect((await call('POST', '/api/devices', { token: alice.token, body: { sn: 'bad sn', mac: 'nope', productModel: '' } })).status).toBe(400);
    expect((await call('POST', '/api/devices', { body: {} })).status).toBe(401);
    expect((await call('POST', '/api/devices', tooLarge(alice.token))).status).toBe(413);

    const first = await call('GET', '/api/devices?limit=1', { token: alice.token });
    expect(first.headers.get('X-Next-Cursor')).toBeTruthy();
    expect(first.headers.get('Link')).toContain('rel="next"');
    expect((await call('GET', `/api/devices?limit=1&cursor=${first.headers.get('X-Next-Cursor')}`, { token: alice.token })).body).toHaveLength(1);
    expect((await call('GET', '/api/devices?cursor=forged', { token: alice.token })).status).toBe(400);
    expect((await call('GET', '/api/devices')).status).toBe(401);

    expect((await call('DELETE', '/api/devices/CAP2-00000002', { token: alice.token })).status).toBe(200);
    expect((await call('DELETE', '/api/devices/CAP2-00000002', { token: alice.token })).status).toBe(404);
    expect((await call('DELETE', '/api/devices/bad%20sn', { token: alice.token })).status).toBe(400);
    expect((await call('DELETE', '/api/devices/CAP2-00000001')).status).toBe(401);
  });
});

describe('transcriptions', () => {
  it('create (idempotent), list, read, edit, delete, usage: 200, 400, 401, 404, 413, 422', async () => {
    const record = { recordTitle: 'Weekly team meeting', text: '大家好，我们开始开会。', language: 'zh-CN', durationSeconds: 1800 };
    const headers = { 'Idempotency-Key': 'conformance-1' };
    const created = await call('POST', '/api/transcriptions', { token: alice.token, body: record, headers });
    expect(created.status).toBe(200);
    const replayed = await call('POST', '/api/transcriptions', { token: alice.token, body: record, headers });
    expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await call('POST', '/api/transcriptions', { token: alice.token, body: { ...record, durationSeconds: 1 }, headers })).status).toBe(422);
    expect((await call('POST', '/api/transcriptions', { token: alice.token, body: { ...record, language: 'chinese' } })).status).toBe(400);
    expect((await call('POST', '/api/transcriptions', { body: record })).status).toBe(401);
    expect((await call('POST', '/api/transcriptions', tooLarge(alice.token))).status).toBe(413);
    await call('POST', '/api/transcriptions', { token: alice.token, body: { ...record, recordTitle: 'Second' } });

    const first = await call('GET', '/api/transcriptions?limit=1', { token: alice.token });
    expect(first.headers.get('X-Next-Cursor')).toBeTruthy();
    expect((await call('GET', '/api/transcriptions?limit=101', { token: alice.token })).status).toBe(400);
    expect((await call('GET', `/api/transcriptions?q=${encodeURIComponent('Good "morning')}`, { token: alice.token })).status).toBe(400);
    expect((await call('GET', '/api/transcriptions')).status).toBe(401);

    const id = created.body.transcriptionRecordId as number;
    expect((await call('GET', `/api/transcriptions/${id}`, { token: alice.token })).status).toBe(200);
    expect((await call('GET', `/api/transcriptions/${id}`, { token: bob.token })).status).toBe(404);
    expect((await call('GET', '/api/transcriptions/abc', { token: alice.token })).status).toBe(400);
    expect((await call('GET', `/api/transcriptions/${id}`)).status).toBe(401);

    const edited = await call('PATCH', `/api/transcriptions/${id}`, { token: alice.token, body: { durationSeconds: 1200 } });
    expect(edited.body.updatedAt).toEqual(expect.any(String));
    expect((await call('PATCH', `/api/transcriptions/${id}`, { token: bob.token, body: { durationSeconds: 1 } })).status).toBe(404);
    expect((await call('PATCH', `/api/transcriptions/${id}`, { token: alice.token, body: {} })).status).toBe(400);
    expect((await call('PATCH', `/api/transcriptions/${id}`, { body: { durationSeconds: 1 } })).status).toBe(401);
    expect((await call('PATCH', `/api/transcriptions/${id}`, tooLarge(alice.token))).status).toBe(413);

    expect((await call('GET', '/api/transcriptions/usage?days=7', { token: alice.token })).body.totalUsage).toBe(1200 + 1800);
    expect((await call('GET', '/api/transcriptions/usage?days=0', { token: alice.token })).status).toBe(400);
    expect((await call('GET', '/api/transcriptions/usage')).status).toBe(401);

    expect((await call('DELETE', `/api/transcriptions/${id}`, { token: bob.token })).status).toBe(404);
    expect((await call('DELETE', '/api/transcriptions/0', { token: alice.token })).status).toBe(400);
    expect((await call('DELETE', `/api/transcriptions/${id}`)).status).toBe(401);
    expect((await call('DELETE', `/api/transcriptions/${id}`, { token: alice.token })).status).toBe(200);
  });

  it('sync (docs/sync.md): a clientRecordId repeated, reused and deleted, If-Match met, stale and on a tombstone: 200, 400, 409, 410, 412', async () => {
    const clientRecordId = '0b8c7e52-3f61-4d0a-9e2b-6c4f1a7d9e30';
    const record = { recordTitle: 'Offline note', text: 'Saved on the train.', language: 'en-US', durationSeconds: 30, clientRecordId };
    const created = await call('POST', '/api/transcriptions', { token: alice.token, body: record });
    expect(created.headers.get('ETag')).toBe('"1"');
    const repeated = await call('POST', '/api/transcriptions', { token: alice.token, body: record });
    expect(repeated.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await call('POST', '/api/transcriptions', { token: alice.token, body: { ...record, text: 'Other.' } })).status).toBe(409);
    const id = created.body.transcriptionRecordId as number;
    const ifMatch = (revision: string) => ({ 'If-Match': revision });
    expect((await call('PATCH', `/api/transcriptions/${id}`, { token: alice.token, body: { recordTitle: 'Renamed' }, headers: ifMatch('"1"') })).status).toBe(200);
    expect((await call('PATCH', `/api/transcriptions/${id}`, { token: alice.token, body: { recordTitle: 'Stale' }, headers: ifMatch('"1"') })).status).toBe(412);
    expect((await call('PATCH', `/api/transcriptions/${id}`, { token: alice.token, body: { recordTitle: 'Bad' }, headers: ifMatch('2') })).status).toBe(400);
    expect((await call('DELETE', `/api/transcriptions/${id}`, { token: alice.token, headers: ifMatch('"1"') })).status).toBe(412);
    expect((await call('DELETE', `/api/transcriptions/${id}`, { token: alice.token, headers: ifMatch('"2"') })).status).toBe(200);
    expect((await call('DELETE', `/api/transcriptions/${id}`, { token: alice.token, headers: ifMatch('"2"') })).status).toBe(410);
    expect((await call('PATCH', `/api/transcriptions/${id}`, { token: alice.token, body: { recordTitle: 'Late' }, headers: ifMatch('"2"') })).status).toBe(410);
    expect((await call('GET', `/api/transcriptions/${id}`, { token: alice.token })).status).toBe(410);
    expect((await call('POST', '/api/transcriptions', { token: alice.token, body: record })).status).toBe(410);
  });
});

describe('behavior', () => {
  it('record login and events (idempotent), the four lists, stats: 200, 400, 401, 413, 422', async () => {
    const login = { location: 'Shanghai, China' };
    expect((await call('POST', '/api/behavior/login', { token: alice.token, body: login, headers: { 'Idempotency-Key': 'l-1' } })).status).toBe(200);
    expect((await call('POST', '/api/behavior/login', { token: alice.token, body: { location: 'Beijing' }, headers: { 'Idempotency-Key': 'l-1' } })).status).toBe(422);
    expect((await call('POST', '/api/behavior/login', { token: alice.token, body: { location: ' ' } })).status).toBe(400);
    expect((await call('POST', '/api/behavior/login', { body: login })).status).toBe(401);
    expect((await call('POST', '/api/behavior/login', tooLarge(alice.token))).status).toBe(413);
    await call('POST', '/api/behavior/login', { token: alice.token, body: { location: 'Hangzhou, China' } });

    const events = [
      { eventType: 'translation_on', eventValue: 'true' },
      { eventType: 'translation_on', eventValue: 'false' },
      { eventType: 'voice_provider', eventValue: 'Azure Speech' },
      { eventType: 'voice_provider', eventValue: 'Whisper' },
      { eventType: 'language_choice', eventValue: 'en-US' },
      { eventType: 'language_choice', eventValue: 'zh-CN' },
      { eventType: 'subtitle_layout', eventValue: 'bottom' },
    ];
    for (const event of events) expect((await call('POST', '/api/behavior/events', { token: alice.token, body: event })).status).toBe(200);
    const key = { 'Idempotency-Key': 'e-1' };
    expect((await call('POST', '/api/behavior/events', { token: alice.token, body: events[0], headers: key })).status).toBe(200);
    expect((await call('POST', '/api/behavior/events', { token: alice.token, body: events[1], headers: key })).status).toBe(422);
    expect((await call('POST', '/api/behavior/events', { token: alice.token, body: { eventType: 'login', eventValue: 'x' } })).status).toBe(400);
    expect((await call('POST', '/api/behavior/events', { body: events[0] })).status).toBe(401);
    expect((await call('POST', '/api/behavior/events', tooLarge(alice.token))).status).toBe(413);
    const batchKey = { 'Idempotency-Key': 'b-1' };
    expect((await call('POST', '/api/behavior/events/batch', { token: alice.token, body: { events: events.slice(0, 3) }, headers: batchKey })).status).toBe(200);
    expect((await call('POST', '/api/behavior/events/batch', { token: alice.token, body: { events: events.slice(1, 3) }, headers: batchKey })).status).toBe(422);
    expect((await call('POST', '/api/behavior/events/batch', { token: alice.token, body: { events: [] } })).status).toBe(400);
    expect((await call('POST', '/api/behavior/events/batch', { body: { events } })).status).toBe(401);
    expect((await call('POST', '/api/behavior/events/batch', tooLarge(alice.token))).status).toBe(413);

    for (const list of ['login', 'translation', 'voice-provider', 'language-choice']) {
      const page = await call('GET', `/api/behavior/${list}?limit=1`, { token: alice.token });
      expect(page.body).toHaveLength(1);
      expect(page.headers.get('X-Next-Cursor')).toBeTruthy();
      expect((await call('GET', `/api/behavior/${list}?limit=0`, { token: alice.token })).status).toBe(400);
      expect((await call('GET', `/api/behavior/${list}`)).status).toBe(401);
    }
    expect((await call('GET', '/api/behavior/stats', { token: alice.token })).body.loginCount).toBe(2);
    expect((await call('GET', '/api/behavior/stats')).status).toBe(401);
  });
});

describe('passkeys', () => {
  it('add, list, rename, remove, sign in: 200, 400, 401, 404, 413', async () => {
    const dora = await signInWithCode(uniqueEmail('passkeys'));
    const auth = { token: dora.token };
    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const options = await call('POST', '/api/auth/passkeys/registration-options', auth);
    expect(options.status).toBe(200);
    expect((await call('POST', '/api/auth/passkeys/registration-options')).status).toBe(401);
    const added = await call('POST', '/api/auth/passkeys', { ...auth, body: { response: authenticator.create(options.body), name: 'Phone' } });
    expect(added.status).toBe(200);
    expect((await call('POST', '/api/auth/passkeys', { ...auth, body: { response: {} } })).status).toBe(400);
    expect((await call('POST', '/api/auth/passkeys', tooLarge(dora.token))).status).toBe(413);
    expect((await call('POST', '/api/auth/passkeys', { ...auth, body: { response: authenticator.create(options.body, { userVerified: false }) } })).status).toBe(401);
    expect((await call('GET', '/api/auth/passkeys', auth)).status).toBe(200);
    expect((await call('GET', '/api/auth/passkeys')).status).toBe(401);
    const path = `/api/auth/passkeys/${added.body.passkeyId}`;
    expect((await call('PATCH', path, { ...auth, body: { name: 'iPhone' } })).status).toBe(200);
    expect((await call('PATCH', path, { ...auth, body: { name: '' } })).status).toBe(400);
    expect((await call('PATCH', path, tooLarge(dora.token))).status).toBe(413);
    expect((await call('PATCH', path, { body: { name: 'x' } })).status).toBe(401);
    expect((await call('PATCH', `/api/auth/passkeys/${'A'.repeat(43)}`, { ...auth, body: { name: 'x' } })).status).toBe(404);
    const signInOptions = await call('POST', '/api/auth/passkey/options');
    expect(signInOptions.status).toBe(200);
    expect((await call('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get(signInOptions.body, { credentialId: authenticator.credentials[0]!.id.toString('base64url') }) } })).status).toBe(200);
    expect((await call('POST', '/api/auth/passkey/verify', { body: { response: {} } })).status).toBe(400);
    expect((await call('POST', '/api/auth/passkey/verify', tooLarge())).status).toBe(413);
    expect((await call('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get(signInOptions.body, { credentialId: authenticator.credentials[0]!.id.toString('base64url') }) } })).status).toBe(401);
    expect((await call('DELETE', '/api/auth/passkeys/not-an-id', auth)).status).toBe(400);
    expect((await call('DELETE', path)).status).toBe(401);
    expect((await call('DELETE', path, auth)).status).toBe(200);
    expect((await call('DELETE', path, auth)).status).toBe(404);
    // Ten passkeys: the options of an eleventh are 400.
    for (let index = 0; index < 10; index++) {
      const next = await call('POST', '/api/auth/passkeys/registration-options', auth);
      expect((await call('POST', '/api/auth/passkeys', { ...auth, body: { response: new SoftwareAuthenticator({ origin: 'http://localhost:8080' }).create(next.body) } })).status).toBe(200);
    }
    expect((await call('POST', '/api/auth/passkeys/registration-options', auth)).status).toBe(400);
  });
});

describe('account deletion', () => {
  it('200, then the token gets 401', async () => {
    const carol = await signInWithCode(uniqueEmail('delete'));
    expect((await call('DELETE', '/api/users/me', { token: carol.token })).status).toBe(200);
    expect((await call('DELETE', '/api/users/me', { token: carol.token })).status).toBe(401);
  });
});

describe('GET /api/devices/{sn}', () => {
  it('200 and every documented error', async () => {
    const device = { sn: 'CAP2-00000003', mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2' };
    expect((await call('POST', '/api/devices', { token: alice.token, body: device })).status).toBe(200);
    expect((await call('GET', '/api/devices/CAP2-00000003', { token: alice.token })).body).toMatchObject(device);
    expect((await call('GET', '/api/devices/CAP2-00000003', { token: bob.token })).status).toBe(404);
    expect((await call('GET', '/api/devices/bad%20sn', { token: alice.token })).status).toBe(400);
    expect((await call('GET', '/api/devices/CAP2-00000003')).status).toBe(401);
  });
});

describe('GET /api/transcriptions/changes', () => {
  it('200, 400, 401, 410', async () => {
    const first = await call('GET', '/api/transcriptions/changes?limit=1', { token: alice.token });
    expect(first.status).toBe(200);
    expect((await call('GET', `/api/transcriptions/changes?cursor=${first.body.cursor}`, { token: alice.token })).status).toBe(200);
    expect((await call('GET', '/api/transcriptions/changes?cursor=garbled', { token: alice.token })).status).toBe(400);
    expect((await call('GET', '/api/transcriptions/changes')).status).toBe(401);
    // A cursor issued before the retention, with records changed since.
    const old = Buffer.from(JSON.stringify({ u: alice.userId, s: 0, t: 0 })).toString('base64url');
    expect((await call('GET', `/api/transcriptions/changes?cursor=${old}`, { token: alice.token })).status).toBe(410);
  });
});

describe('a disabled account', () => {
  it('every way in with a proven credential: 403', async () => {
    const email = uniqueEmail('disabled');
    const password = 'amber-lantern-58';
    expect((await call('POST', '/api/auth/register', { body: { email, verifyCode: await codeFor(email), password } })).status).toBe(200);
    const held = (await call('POST', '/api/auth/login', { body: { email, password } })).body;
    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const options = await call('POST', '/api/auth/passkeys/registration-options', { token: held.token });
    expect((await call('POST', '/api/auth/passkeys', { token: held.token, body: { response: authenticator.create(options.body) } })).status).toBe(200);
    api.clock.advance(61);
    const code = await codeFor(email);
    // As support's disable does (test/integration/disabled-accounts.test.ts holds the rule itself).
    await changeStanding(api.db, (await readProfileItem(api.db, held.userId))!, { disable: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
    const disabled = (response: ApiResponse) => expect(response.body.error).toBe('ACCOUNT_DISABLED');
    disabled(await call('POST', '/api/auth/token/refresh', { body: { refreshToken: held.refreshToken } }));
    disabled(await call('POST', '/api/auth/login', { body: { email, password } }));
    const challenge = await call('POST', '/api/auth/passkey/options');
    disabled(await call('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get(challenge.body) } }));
    disabled(await call('POST', '/api/verify-code/verify', { body: { target: email, verifyCode: code } }));
    disabled(await call('POST', '/api/auth/password/reset', { body: { target: email, verifyCode: code, newPassword: 'quiet-meadow-17' } }));
  });
});

describe('social sign-in', () => {
  /** A nonce and its hash, the nonce answer checked. */
  const nonce = async () => {
    const answer = await call('POST', '/api/auth/social/nonce');
    expect(answer.status).toBe(200);
    return { nonce: answer.body.nonce as string, hash: nonceHash(answer.body.nonce as string) };
  };

  it('nonce: 200', async () => {
    await nonce();
  });

  it('apple: 200, 400, 401, 409, 413', async () => {
    const { nonce: value, hash } = await nonce();
    const issued = await standIns.apple.issue({ sub: `000001.${Date.now()}`, clientId: SOCIAL.apple, nonce: hash });
    expect((await call('POST', '/api/auth/apple', { body: { ...issued, nonce: value, fullName: { givenName: 'Ann', familyName: 'Lee' } } })).status).toBe(200);
    expect((await call('POST', '/api/auth/apple', { body: { identityToken: issued.identityToken } })).status).toBe(400);
    expect((await call('POST', '/api/auth/apple', { body: { ...issued, nonce: value } })).status).toBe(401);
    const relayAddress = `${Date.now()}@privaterelay.appleid.com`;
    await signInWithCode(relayAddress);
    const second = await nonce();
    const relay = await standIns.apple.issue({ sub: `000002.${Date.now()}`, clientId: SOCIAL.apple, email: relayAddress, isPrivateEmail: true, nonce: second.hash });
    expect((await call('POST', '/api/auth/apple', { body: { ...relay, nonce: second.nonce } })).status).toBe(409);
    // An address an account holds that Apple did not verify ("false" and false): 409 too.
    const held = uniqueEmail('apple-unverified');
    await signInWithCode(held);
    for (const booleanFlags of [false, true]) {
      const third = await nonce();
      const unverified = await standIns.apple.issue({ sub: `000003.${Date.now()}.${booleanFlags}`, clientId: SOCIAL.apple, email: held, emailVerified: false, booleanFlags, nonce: third.hash });
      expect((await call('POST', '/api/auth/apple', { body: { ...unverified, nonce: third.nonce } })).status).toBe(409);
    }
    expect((await call('POST', '/api/auth/apple', tooLarge())).status).toBe(413);
  });

  it('google: 200, 400, 401, 409, 413, 503 with nothing cached', async () => {
    const { nonce: value, hash } = await nonce();
    const { idToken } = await standIns.google.issue({ sub: `g${Date.now()}`, clientId: SOCIAL.google, email: `${Date.now()}@gmail.com`, nonce: hash });
    expect((await call('POST', '/api/auth/google', { body: { idToken, nonce: value } })).status).toBe(200);
    expect((await call('POST', '/api/auth/google', { body: { idToken } })).status).toBe(400);
    expect((await call('POST', '/api/auth/google', { body: { idToken, nonce: value } })).status).toBe(401);
    const taken = uniqueEmail('google-taken');
    await signInWithCode(taken);
    const second = await nonce();
    const other = await standIns.google.issue({ sub: `g2${Date.now()}`, clientId: SOCIAL.google, email: taken, nonce: second.hash });
    expect((await call('POST', '/api/auth/google', { body: { idToken: other.idToken, nonce: second.nonce } })).status).toBe(409);
    // A gmail.com address an account holds that Google did not verify: 409 too.
    const gmail = `${Date.now()}-held@gmail.com`;
    await signInWithCode(gmail);
    const third = await nonce();
    const unverified = await standIns.google.issue({ sub: `g3${Date.now()}`, clientId: SOCIAL.google, email: gmail, emailVerified: false, nonce: third.hash });
    expect((await call('POST', '/api/auth/google', { body: { idToken: unverified.idToken, nonce: third.nonce } })).status).toBe(409);
    expect((await call('POST', '/api/auth/google', tooLarge())).status).toBe(413);
  });

  it('wechat: 200, 400, 401, 413, 503 while WeChat is busy', async () => {
    expect((await call('POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `w${Date.now()}` }).code } })).status).toBe(200);
    expect((await call('POST', '/api/auth/wechat', { body: { code: 42 } })).status).toBe(400);
    expect((await call('POST', '/api/auth/wechat', { body: { code: 'made-up' } })).status).toBe(401);
    expect((await call('POST', '/api/auth/wechat', tooLarge())).status).toBe(413);
    standIns.wechat.busy = true;
    try {
      expect((await call('POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `wb${Date.now()}` }).code } })).body.error).toBe('PROVIDER_UNAVAILABLE');
    } finally {
      standIns.wechat.busy = false;
    }
  });

  it('apple, google, wechat: 403 for a disabled account', async () => {
    const stamp = Date.now();
    const email = `disabled-${stamp}@gmail.com`;
    const signIns = {
      apple: async () => {
        const { nonce: value, hash } = await nonce();
        const issued = await standIns.apple.issue({ sub: `000009.${stamp}`, clientId: SOCIAL.apple, email, isPrivateEmail: false, nonce: hash });
        return call('POST', '/api/auth/apple', { body: { ...issued, nonce: value } });
      },
      google: async () => {
        const { nonce: value, hash } = await nonce();
        const { idToken } = await standIns.google.issue({ sub: `gd${stamp}`, clientId: SOCIAL.google, email, nonce: hash });
        return call('POST', '/api/auth/google', { body: { idToken, nonce: value } });
      },
      wechat: () => call('POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `wd${stamp}` }).code } }),
    };
    const google = await signIns.google();
    expect(google.status).toBe(200);
    expect((await signIns.apple()).body.userId).toBe(google.body.userId);
    const wechat = await signIns.wechat();
    expect(wechat.status).toBe(200);
    // As support's disable does (test/integration/social-sign-in.test.ts holds the rule for these routes).
    for (const userId of [google.body.userId as number, wechat.body.userId as number]) {
      await changeStanding(api.db, (await readProfileItem(api.db, userId))!, { disable: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
    }
    for (const signInAgain of Object.values(signIns)) expect((await signInAgain()).status).toBe(403);
  });

  it('404 where the provider is not configured, 503 where its keys cannot be reached', async () => {
    // Addresses of the stand-ins new to this process (`/run-<n>`): no key of theirs is cached yet.
    const run = `${standIns.url}/run-${Date.now()}`;
    const plain = await startLocalApi({ GOOGLE_CLIENT_IDS: SOCIAL.google, GOOGLE_JWKS_URL: `${run}/google/oauth2/v3/certs` });
    try {
      for (const [path, body] of [
        ['/api/auth/apple', { identityToken: 'x', authorizationCode: 'y', nonce: 'z' }],
        ['/api/auth/wechat', { code: 'x' }],
        ['/api/auth/apple/notifications', { payload: 'x' }],
      ] as const) {
        const answer = await plain.request('POST', path, { body });
        checkAgainstDocument('POST', path, answer);
        expect(answer.status).toBe(404);
      }
      const issued = await plain.request('POST', '/api/auth/social/nonce');
      const { idToken } = await standIns.google.issue({ sub: 'g-down', clientId: SOCIAL.google, nonce: nonceHash(issued.body.nonce) });
      standIns.google.keys.unreachable = true;
      const down = await plain.request('POST', '/api/auth/google', { body: { idToken, nonce: issued.body.nonce } });
      standIns.google.keys.unreachable = false;
      checkAgainstDocument('POST', '/api/auth/google', down);
      expect(down.status).toBe(503);
      // Apple alone, its keys unreachable: its sign-in and its notifications 503.
      const appleOnly = await startLocalApi({
        APPLE_CLIENT_IDS: SOCIAL.apple,
        APPLE_TEAM_ID: standIns.apple.teamId,
        APPLE_KEY_ID: standIns.apple.keyId,
        APPLE_PRIVATE_KEY: standIns.apple.privateKeyPem,
        APPLE_API_URL: `${run}/apple`,
      });
      try {
        const answer = await appleOnly.request('POST', '/api/auth/google', { body: { idToken: 'x', nonce: 'z' } });
        checkAgainstDocument('POST', '/api/auth/google', answer);
        expect(answer.status).toBe(404);
        const appleNonce = await appleOnly.request('POST', '/api/auth/social/nonce');
        const appleIssued = await standIns.apple.issue({ sub: '000007.apple-down', clientId: SOCIAL.apple, nonce: nonceHash(appleNonce.body.nonce) });
        const notification = await standIns.apple.notification(SOCIAL.apple, { type: 'email-enabled', sub: '000007.apple-down' });
        standIns.apple.keys.unreachable = true;
        for (const [path, body] of [
          ['/api/auth/apple', { ...appleIssued, nonce: appleNonce.body.nonce }],
          ['/api/auth/apple/notifications', notification],
        ] as const) {
          const down = await appleOnly.request('POST', path, { body });
          checkAgainstDocument('POST', path, down);
          expect(down.body.error, path).toBe('PROVIDER_UNAVAILABLE');
        }
      } finally {
        standIns.apple.keys.unreachable = false;
        await appleOnly.close();
      }
    } finally {
      standIns.google.keys.unreachable = false;
      await plain.close();
    }
  });
});

describe('POST /api/auth/apple/notifications', () => {
  it('200, 400, 401, 413 (404 and 503: with the other providers above)', async () => {
    const sub = `000005.${Date.now()}`;
    expect((await call('POST', '/api/auth/apple/notifications', { body: await standIns.apple.notification(SOCIAL.apple, { type: 'email-enabled', sub }) })).status).toBe(200);
    expect((await call('POST', '/api/auth/apple/notifications', { body: {} })).status).toBe(400);
    expect((await call('POST', '/api/auth/apple/notifications', { body: await standIns.apple.notification('com.attacker.app', { type: 'account-delete', sub }) })).status).toBe(401);
    expect((await call('POST', '/api/auth/apple/notifications', tooLarge())).status).toBe(413);
  });
});

describe('linking Apple, Google and WeChat from the settings', () => {
  const googleBody = async (sub: string) => {
    const answer = await call('POST', '/api/auth/social/nonce');
    const { idToken } = await standIns.google.issue({ sub, clientId: SOCIAL.google, nonce: nonceHash(answer.body.nonce as string) });
    return { idToken, nonce: answer.body.nonce as string };
  };

  it('GET /api/users/me/identities: 200, 401', async () => {
    expect((await call('GET', '/api/users/me/identities', { token: alice.token })).status).toBe(200);
    expect((await call('GET', '/api/users/me/identities')).status).toBe(401);
  });

  it('POST /api/users/me/identities/{provider}: 200, 400, 401, 403, 404, 409, 413, 503', async () => {
    const carol = await signInWithCode(uniqueEmail('link'));
    const person = `gl${Date.now()}`;
    expect((await call('POST', '/api/users/me/identities/google', { token: carol.token, body: await googleBody(person) })).status).toBe(200);
    expect((await call('POST', '/api/users/me/identities/facebook', { token: carol.token, body: await googleBody(person) })).status).toBe(400);
    expect((await call('POST', '/api/users/me/identities/google', { body: await googleBody(person) })).status).toBe(401);
    expect((await call('POST', '/api/users/me/identities/google', { token: carol.token, body: { idToken: 'forged', nonce: 'forged' } })).status).toBe(401);
    const dave = await signInWithCode(uniqueEmail('link'));
    expect((await call('POST', '/api/users/me/identities/google', { token: dave.token, body: await googleBody(person) })).status).toBe(409);
    expect((await call('POST', '/api/users/me/identities/google', { token: carol.token, body: await googleBody(`${person}-2`) })).status).toBe(409);
    expect((await call('POST', '/api/users/me/identities/google', tooLarge(carol.token))).status).toBe(413);
    standIns.wechat.busy = true;
    try {
      const code = standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `wl${Date.now()}` }).code;
      expect((await call('POST', '/api/users/me/identities/wechat', { token: carol.token, body: { code } })).body.error).toBe('PROVIDER_UNAVAILABLE');
    } finally {
      standIns.wechat.busy = false;
    }
    api.clock.advance(601);
    expect((await call('POST', '/api/users/me/identities/google', { token: dave.token, body: await googleBody(`${person}-3`) })).status).toBe(403);
    // A provider this deployment does not offer.
    const plain = await startLocalApi();
    try {
      const erin = await signIn(plain, uniqueEmail('link'));
      const answer = await plain.request('POST', '/api/users/me/identities/google', { token: erin.token, body: { idToken: 'x', nonce: 'y' } });
      checkAgainstDocument('POST', '/api/users/me/identities/google', answer);
      expect(answer.status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('DELETE /api/users/me/identities/{provider}: 200, 400, 401, 404, 409', async () => {
    const made = await call('POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `wu${Date.now()}` }).code } });
    const token = made.body.token as string;
    expect((await call('DELETE', '/api/users/me/identities/wechat', { token })).status).toBe(409);
    expect((await call('DELETE', '/api/users/me/identities/google', { token })).status).toBe(404);
    expect((await call('DELETE', '/api/users/me/identities/facebook', { token })).status).toBe(400);
    expect((await call('DELETE', '/api/users/me/identities/wechat')).status).toBe(401);
    expect((await call('POST', '/api/users/me/identities/google', { token, body: await googleBody(`gu${Date.now()}`) })).status).toBe(200);
    expect((await call('DELETE', '/api/users/me/identities/wechat', { token })).status).toBe(200);
  });

  it('DELETE /api/auth/passkeys/{passkeyId}: 409 when the passkey is the account’s only way in', async () => {
    const made = await call('POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `pk${Date.now()}` }).code } });
    const token = made.body.token as string;
    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const options = await call('POST', '/api/auth/passkeys/registration-options', { token });
    const added = await call('POST', '/api/auth/passkeys', { token, body: { response: authenticator.create(options.body) } });
    expect(added.status).toBe(200);
    expect((await call('DELETE', '/api/users/me/identities/wechat', { token })).status).toBe(200);
    expect((await call('DELETE', `/api/auth/passkeys/${added.body.passkeyId as string}`, { token })).status).toBe(409);
  });
});

// Deployed too: the speech functions get the stand-ins' addresses through their templates and the keys from the speech secret's stand-in.
describe('speech sessions (docs/speech.md)', () => {
  // A server of its own offering the four providers (their stand-ins), with small limits to reach every refusal.
  let speech: Awaited<ReturnType<typeof startSpeechApi>>;
  let standInsOfSpeech: ProviderStandIns;
  const speechCall = async (method: string, path: string, options: RequestOptions = {}) => {
    const response = await speech.api.request(method, path, options);
    checkAgainstDocument(method, path, response);
    return response;
  };
  beforeAll(async () => {
    speech = await startSpeechApi({ SPEECH_DAILY_SECONDS: '6', SPEECH_HEARTBEAT_SECONDS: '5', SPEECH_CONCURRENT_SESSIONS: '1', SPEECH_PROVIDERS: 'azure,deepgram,tencent' });
    standInsOfSpeech = speech.standIns;
  });
  afterAll(() => speech?.close());

  it('start, renew, end and quota: 200/201 and every documented error', async () => {
    const person = await signIn(speech.api, uniqueEmail('speech-conformance'));
    const token = person.token;
    const body = speechStartBody({ provider: 'tencent' });
    expect((await speechCall('POST', '/api/speech/sessions', { token, body })).status).toBe(201);
    const replay = await speechCall('POST', '/api/speech/sessions', { token, body });
    expect(replay.status).toBe(200);
    const sessionId = replay.body.sessionId as string;
    expect((await speechCall('POST', '/api/speech/sessions', { token, body: { ...body, language: 'zh-CN' } })).status).toBe(409);
    expect((await speechCall('POST', '/api/speech/sessions', { token, body: speechStartBody({ provider: 'tencent' }) })).body.error).toBe('SPEECH_SESSIONS_LIMIT');
    expect((await speechCall('POST', '/api/speech/sessions', { token, body: speechStartBody({ provider: 'aws' }) })).status).toBe(404);
    expect((await speechCall('POST', '/api/speech/sessions', { token, body: speechStartBody({ provider: 'deepgram', language: 'zh-CN' }) })).body.error).toBe('LANGUAGE_NOT_SUPPORTED');
    expect((await speechCall('POST', '/api/speech/sessions', { token, body: { provider: 'azure' } })).status).toBe(400);
    expect((await speechCall('POST', '/api/speech/sessions', { body })).status).toBe(401);
    expect((await speechCall('POST', '/api/speech/sessions', tooLarge(token))).status).toBe(413);
    expect((await speechCall('GET', '/api/speech/quota', { token })).status).toBe(200);
    expect((await speechCall('GET', '/api/speech/quota')).status).toBe(401);

    speech.api.clock.advance(2);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/renew`, { token, body: { elapsedSeconds: 2 } })).status).toBe(200);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/renew`, { token, body: { elapsedSeconds: -1 } })).status).toBe(400);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/renew`, { body: { elapsedSeconds: 1 } })).status).toBe(401);
    expect((await speechCall('POST', `/api/speech/sessions/${randomUUID()}/renew`, { token, body: { elapsedSeconds: 1 } })).status).toBe(404);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/renew`, tooLarge(token))).status).toBe(413);
    speech.api.clock.advance(4);
    // The day's 6 s reached: 403, the session ends; a new start is refused too.
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/renew`, { token, body: { elapsedSeconds: 6 } })).body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/renew`, { token, body: { elapsedSeconds: 6 } })).body.error).toBe('SPEECH_SESSION_ENDED');
    expect((await speechCall('POST', '/api/speech/sessions', { token, body: speechStartBody({ provider: 'tencent' }) })).status).toBe(403);
    expect((await speechCall('POST', '/api/speech/sessions', { token, body })).body.error).toBe('SPEECH_SESSION_ENDED');

    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/end`, { token, body: { elapsedSeconds: 6 } })).status).toBe(200);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/end`, { token, body: {} })).status).toBe(400);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/end`, { body: { elapsedSeconds: 1 } })).status).toBe(401);
    expect((await speechCall('POST', `/api/speech/sessions/${randomUUID()}/end`, { token, body: { elapsedSeconds: 1 } })).status).toBe(404);
    expect((await speechCall('POST', `/api/speech/sessions/${sessionId}/end`, tooLarge(token))).status).toBe(413);

    // A provider down: 503 with the fallbacks (another person, with minutes left).
    const other = await signIn(speech.api, uniqueEmail('speech-conformance-503'));
    standInsOfSpeech.speech.mode = 'fail';
    try {
      expect((await speechCall('POST', '/api/speech/sessions', { token: other.token, body: speechStartBody({ provider: 'azure' }) })).status).toBe(503);
    } finally {
      standInsOfSpeech.speech.mode = 'ok';
    }
    // And a live session's renewal once its credential is due again (Deepgram's: asked for 60 s, due
    // a heartbeat before), the new one not issued: 503. Renewed every 4 s until then, at 0 s streamed (no minutes spent).
    const live = await speechCall('POST', '/api/speech/sessions', { token: other.token, body: speechStartBody({ provider: 'deepgram' }) });
    expect(live.status).toBe(201);
    const due = Date.parse(live.body.credential.renewAfter as string);
    while (speech.api.clock.now().getTime() + 4_000 < due) {
      speech.api.clock.advance(4);
      expect((await speechCall('POST', `/api/speech/sessions/${live.body.sessionId as string}/renew`, { token: other.token, body: { elapsedSeconds: 0 } })).status).toBe(200);
    }
    speech.api.clock.advance(4);
    standInsOfSpeech.speech.mode = 'fail';
    try {
      expect((await speechCall('POST', `/api/speech/sessions/${live.body.sessionId as string}/renew`, { token: other.token, body: { elapsedSeconds: 1 } })).body.error).toBe('PROVIDER_UNAVAILABLE');
    } finally {
      standInsOfSpeech.speech.mode = 'ok';
    }
    expect((await speechCall('POST', `/api/speech/sessions/${live.body.sessionId as string}/end`, { token: other.token, body: { elapsedSeconds: 1 } })).status).toBe(200);
    // A disabled account, its token still allowed: 403 at once; its end too.
    const disabled = await signIn(speech.api, uniqueEmail('speech-conformance-disabled'));
    const held = await speechCall('POST', '/api/speech/sessions', { token: disabled.token, body: speechStartBody({ provider: 'tencent' }) });
    await changeStanding(speech.api.db, (await readProfileItem(speech.api.db, disabled.userId))!, { disable: '2026-01-01T00:00:00Z' });
    expect((await speechCall('POST', `/api/speech/sessions/${held.body.sessionId as string}/renew`, { token: disabled.token, body: { elapsedSeconds: 1 } })).status).toBe(403);
    expect((await speechCall('POST', `/api/speech/sessions/${held.body.sessionId as string}/end`, { token: disabled.token, body: { elapsedSeconds: 1 } })).status).toBe(403);
  });
});

describe('POST /api/realtime/ticket', () => {
  it('200 and 401', async () => {
    expect((await call('POST', '/api/realtime/ticket', { token: alice.token })).status).toBe(200);
    expect((await call('POST', '/api/realtime/ticket')).status).toBe(401);
  });
});

describe('the scheduled jobs', () => {
  it('each runs once as its schedule runs it, and reports its run', async () => {
    for (const job of jobs) {
      const run = (await api.runJob(job.name)) as Record<string, unknown>;
      expect(Object.values(run).some((value) => typeof value === 'number'), `${job.name} answered ${JSON.stringify(run)}`).toBe(true);
    }
  });
});

describe('PUT and DELETE /api/auth/sessions/current/push', () => {
  const apnsToken = 'a1'.repeat(32);
  it('PUT: 200, 400, 401, 403', async () => {
    const person = await signInWithCode(uniqueEmail('conformance-push'));
    expect((await call('PUT', '/api/auth/sessions/current/push', { token: person.token, body: { platform: 'apns', token: apnsToken, environment: 'sandbox' } })).status).toBe(200);
    expect((await call('PUT', '/api/auth/sessions/current/push', { token: person.token, body: { platform: 'fcm', token: 'fcm-registration-token:APA91b' } })).status).toBe(200);
    expect((await call('PUT', '/api/auth/sessions/current/push', { token: person.token, body: { platform: 'apns', token: 'not-hex' } })).status).toBe(400);
    expect((await call('PUT', '/api/auth/sessions/current/push', { body: { platform: 'apns', token: apnsToken } })).status).toBe(401);
    await changeStanding(api.db, (await readProfileItem(api.db, person.userId))!, { disable: '2026-01-01T00:00:00Z' });
    expect((await call('PUT', '/api/auth/sessions/current/push', { token: person.token, body: { platform: 'apns', token: apnsToken } })).status).toBe(403);
  });

  it('DELETE: 200, 401, 403', async () => {
    const person = await signInWithCode(uniqueEmail('conformance-push-delete'));
    expect((await call('DELETE', '/api/auth/sessions/current/push', { token: person.token })).status).toBe(200);
    expect((await call('DELETE', '/api/auth/sessions/current/push')).status).toBe(401);
    await changeStanding(api.db, (await readProfileItem(api.db, person.userId))!, { disable: '2026-01-01T00:00:00Z' });
    expect((await call('DELETE', '/api/auth/sessions/current/push', { token: person.token })).status).toBe(403);
  });
});

describe('coverage', () => {
  /** The operations of the route table that talk to an outside service that can fail (shared/routes.ts: `sender`, `speech`, `providers`). */
  const talksOutside = () => new Set(routes.filter((route) => route.sender || route.speech || route.providers).map((route) => `${route.method} ${route.path.replace(/^\/api/, '')}`));
  /** The `error` names an operation's 503 lists. */
  const errorsOf503 = (operation: Record<string, any>): string[] => {
    let response = operation.responses['503'];
    if (!response) return [];
    if (response.$ref) response = response.$ref.slice(2).split('/').reduce((node: any, name: string) => node[name], document);
    const schema = response.content['application/json'].schema;
    return (schema.allOf ?? [schema]).flatMap((part: any) => part.properties?.error?.enum ?? []);
  };
  /** A 503 that names more than SERVICE_UNAVAILABLE (a busy database or secret store): the outside service's failure. */
  const namesOutsideFailure = (operation: Record<string, any>) => errorsOf503(operation).some((error) => error !== 'SERVICE_UNAVAILABLE');
  const documentOperations = () =>
    Object.entries(document.paths).flatMap(([path, item]) => Object.entries<Record<string, any>>(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })));

  it('drove every operation to 200 and to every documented error a request can provoke here', () => {
    const unreachable = new Set(['429', '500']);
    const outside = talksOutside();
    const missing: string[] = [];
    for (const { key, operation } of documentOperations()) {
      for (const status of Object.keys(operation.responses)) {
        // 503 is reachable where an outside service's failure answers it (the stand-ins and the outbox fail on
        // purpose); a busy database or secret store cannot be provoked.
        const reachable = !unreachable.has(status) && (status !== '503' || (outside.has(key) && namesOutsideFailure(operation)));
        if (reachable && !seen.get(key)?.has(status)) missing.push(`${key} ${status}`);
      }
    }
    // test/unit/route-coverage.test.ts names an operation this file never requests; this names each status not driven.
    expect(missing, 'drive each in test/integration/openapi-conformance.test.ts').toEqual([]);
  });

  it('an operation whose 503 names an outside service\'s failure talks to one, as its route says', () => {
    const outside = talksOutside();
    const unflagged = documentOperations().filter(({ key, operation }) => namesOutsideFailure(operation) && !outside.has(key)).map(({ key }) => key);
    expect(unflagged, 'set sender, speech or providers on its route in shared/routes.ts').toEqual([]);
  });
});
