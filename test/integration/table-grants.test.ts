import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { handler as resumeAccountPurgesJob } from '../../functions/jobs/resume-account-purges';
import { handler as revokeAppleTokensJob } from '../../functions/jobs/revoke-apple-tokens';
import { matchResource } from '../../infra/local/server';
import { endAccount } from '../../shared/db/account-deletion';
import { findUserById } from '../../shared/db/users-repository';
import { authorizer, jobs, routeId, routes } from '../../shared/routes';
import type { RouteDefinition, TableAccess } from '../../shared/routes';
import { issueToken } from '../../shared/identity/tokens';
import { isoSeconds } from '../../shared/ports/clock';
import { deriveKeys } from '../../shared/ports/secrets';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi, RequestOptions } from '../support/local-api';
import { iamActionsOf, startRecordingProxy } from '../support/recording-proxy';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { SOCIAL, startSocialApi } from '../support/social';
import { startBody as speechStartBody, startSpeechApi } from '../support/speech';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { nonceHash } from '../../shared/identity/social/nonces';
import { adminHelpers } from '../support/admin';
import type { AdminRequest } from '../../infra/tools/admin-client';
import type { RecordingProxy } from '../support/recording-proxy';

/**
 * Issue 20: every function's DynamoDB grant is exactly what its entry in shared/routes.ts declares
 * (`dynamodb`), and that declaration is exactly what the function issues. Every handler runs
 * against DynamoDB Local behind a recording proxy, through flows that take its branches (new and
 * existing accounts, wrong codes and passwords, repeats, replays, deletions); each recorded call
 * becomes the IAM actions it needs (per item for transactions, per index for queries). The test
 * fails on an action issued but not declared (AccessDenied on AWS) and on one declared but never
 * issued (a grant broader than the code).
 *
 * Each flow runs on a table of its own: id blocks are reserved once per table and process, and
 * every function that allocates ids must be seen reserving one, as each Lambda container does.
 */
const AUTHORIZER = 'authorizer';
const jobLabel = (name: string) => `job ${name}`;

const recorded = new Map<string, Set<string>>();
let current: string | undefined;
let proxy: RecordingProxy;

const ALL_ROUTES: readonly RouteDefinition[] = routes;
const resourcePaths = [...new Set(ALL_ROUTES.map((route) => route.path))];

/** The route a request reached, matched as the local server (and API Gateway) match it. */
function routeOf(method: string, path: string): string {
  const found = matchResource(resourcePaths, path.split('?')[0]!);
  const route = found && ALL_ROUTES.find((candidate) => candidate.path === resourcePaths[found.index] && candidate.method === method);
  if (!route) throw new Error(`no route for ${method} ${path}`);
  return routeId(route);
}

function declared(access: TableAccess | undefined): string[] {
  return [...(access?.actions ?? []), ...(access?.indexes ?? []).map((index) => `Query@${index}`)].sort();
}

/** Sends one request and attributes the calls it causes to its route (and the authorizer's to the authorizer). */
async function call(api: LocalApi, method: string, path: string, options: RequestOptions = {}) {
  current = routeOf(method, path);
  try {
    return await api.request(method, path, options);
  } finally {
    current = undefined;
  }
}

async function socialWorld(flow: (api: LocalApi, standIns: ProviderStandIns) => Promise<void>): Promise<void> {
  const { api, standIns, close } = await startSocialApi({ DYNAMODB_ENDPOINT: proxy.url });
  try {
    await flow(api, standIns);
  } finally {
    await close();
  }
}

/** An /admin request (issue 37), signed as the support CLI signs it, attributed to its route like `call`. */
async function signedCall(api: LocalApi, method: AdminRequest['method'], path: string, body?: unknown) {
  current = routeOf(method, path);
  try {
    const [pathOnly, query] = path.split('?');
    return await adminHelpers(api).call({ method, path: pathOnly!, ...(query ? { query: Object.fromEntries(new URLSearchParams(query)) } : {}), ...(body === undefined ? {} : { body }) });
  } finally {
    current = undefined;
  }
}

async function speechWorld(flow: (api: LocalApi) => Promise<void>): Promise<void> {
  const { api, close } = await startSpeechApi({ DYNAMODB_ENDPOINT: proxy.url });
  try {
    await flow(api);
  } finally {
    await close();
  }
}

async function world(flow: (api: LocalApi) => Promise<void>): Promise<void> {
  const api = await startLocalApi({ DYNAMODB_ENDPOINT: proxy.url });
  try {
    await flow(api);
  } finally {
    await api.close();
  }
}

const password = 'violet-harbor-42-lantern';

async function codeFor(api: LocalApi, target: string): Promise<string> {
  const sent = await call(api, 'POST', '/api/verify-code/send', { body: { type: target.includes('@') ? 'email' : 'sms', target } });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return latestCode(api, target);
}

async function register(api: LocalApi, email: string) {
  const code = await codeFor(api, email);
  expect((await call(api, 'POST', '/api/auth/register', { body: { email, verifyCode: code, password } })).status).toBe(200);
  const login = await call(api, 'POST', '/api/auth/login', { body: { email, password } });
  expect(login.status).toBe(200);
  return login.body as { token: string; userId: number };
}

beforeAll(async () => {
  proxy = await startRecordingProxy(inject('dynamoEndpoint'));
  proxy.onCall((recordedCall) => {
    // Calls outside `call` are the set-up of a flow (signIn), not checked.
    const label = recordedCall.sdk ? (current ?? 'set-up') : AUTHORIZER;
    const actions = recorded.get(label) ?? new Set<string>();
    for (const action of iamActionsOf(recordedCall)) actions.add(action);
    recorded.set(label, actions);
  });

  // Codes: send (new target, cooldown), sign in with a wrong then the right code (new account),
  // then again for the existing account; too many wrong tries void a code.
  await world(async (api) => {
    await call(api, 'GET', '/api/health');
    await call(api, 'GET', '/api/openapi.json');
    const email = uniqueEmail('grants-code');
    const code = await codeFor(api, email);
    expect((await call(api, 'POST', '/api/verify-code/send', { body: { type: 'email', target: email } })).status).toBe(400);
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await call(api, 'POST', '/api/verify-code/verify', { body: { target: email, verifyCode: wrong } })).status).toBe(400);
    expect((await call(api, 'POST', '/api/verify-code/verify', { body: { target: email, verifyCode: code } })).status).toBe(200);
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const again = await codeFor(api, email);
    for (let attempt = 0; attempt < 5; attempt++) await call(api, 'POST', '/api/verify-code/verify', { body: { target: email, verifyCode: wrong } });
    expect((await call(api, 'POST', '/api/verify-code/verify', { body: { target: email, verifyCode: again } })).status).toBe(400);
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const third = await codeFor(api, email);
    const session = await call(api, 'POST', '/api/verify-code/verify', { body: { target: email, verifyCode: third } });
    expect(session.status).toBe(200);
    expect((await call(api, 'POST', '/api/auth/logout', { token: session.body.token })).status).toBe(200);
    // A delivery that fails: the send is undone (code, cooldown and daily count).
    const undelivering = await api.withPorts({ codeSender: { send: async () => Promise.reject(new Error('injected delivery failure')) } });
    try {
      expect((await call(undelivering, 'POST', '/api/verify-code/send', { body: { type: 'email', target: uniqueEmail('undelivered') } })).status).toBe(503);
    } finally {
      await undelivering.close();
    }
  });

  // Passwords: register (and an existing account), login right, wrong and unknown, lockout, reset.
  await world(async (api) => {
    const email = uniqueEmail('grants-password');
    await register(api, email);
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const existing = await codeFor(api, email);
    expect((await call(api, 'POST', '/api/auth/register', { body: { email, verifyCode: existing, password } })).status).toBe(400);
    expect((await call(api, 'POST', '/api/auth/login', { body: { email, password: 'not the password' } })).status).toBe(400);
    expect((await call(api, 'POST', '/api/auth/login', { body: { email: uniqueEmail('nobody'), password } })).status).toBe(400);
    expect((await call(api, 'POST', '/api/auth/login', { body: { email, password } })).status).toBe(200);
    for (let attempt = 0; attempt < 6; attempt++) await call(api, 'POST', '/api/auth/login', { body: { email, password: 'still not it' } });
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const reset = await codeFor(api, email);
    const answer = await call(api, 'POST', '/api/auth/password/reset', { body: { target: email, verifyCode: reset, newPassword: 'another-long-pass-phrase-7' } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const unknown = uniqueEmail('reset-nobody');
    const unknownCode = await codeFor(api, unknown);
    expect((await call(api, 'POST', '/api/auth/password/reset', { body: { target: unknown, verifyCode: unknownCode, newPassword: 'another-long-pass-phrase-7' } })).status).toBe(400);
  });

  // Sessions: sign-ins that evict and clear ended sessions, refresh (rotation, grace, reuse, expiry),
  // the list, ending one and the others, logout with a refresh token.
  await world(async (api) => {
    const email = uniqueEmail('grants-sessions');
    const first = await register(api, email);
    const signedIn = await call(api, 'POST', '/api/auth/login', { body: { email, password } });
    const refreshToken = signedIn.body.refreshToken as string;
    const rotated = await call(api, 'POST', '/api/auth/token/refresh', { body: { refreshToken } });
    expect(rotated.status).toBe(200);
    expect((await call(api, 'POST', '/api/auth/token/refresh', { body: { refreshToken } })).status).toBe(200);
    api.clock.advance(api.config.REFRESH_GRACE_SECONDS + 1);
    expect((await call(api, 'POST', '/api/auth/token/refresh', { body: { refreshToken } })).status).toBe(401);
    const auth = { token: first.token };
    const listed = await call(api, 'GET', '/api/auth/sessions', auth);
    expect(listed.status).toBe(200);
    const other = await call(api, 'POST', '/api/auth/login', { body: { email, password } });
    const otherId = (await call(api, 'GET', '/api/auth/sessions', auth)).body.find((session: { current: boolean }) => !session.current).sessionId;
    expect((await call(api, 'DELETE', `/api/auth/sessions/${otherId}`, auth)).status).toBe(200);
    expect((await call(api, 'DELETE', `/api/auth/sessions/${otherId}`, auth)).status).toBe(404);
    await call(api, 'POST', '/api/auth/login', { body: { email, password } });
    expect((await call(api, 'DELETE', '/api/auth/sessions', auth)).body.ended).toBe(1);
    expect((await call(api, 'DELETE', '/api/auth/sessions', auth)).body.ended).toBe(0);
    const last = await call(api, 'POST', '/api/auth/login', { body: { email, password } });
    expect((await call(api, 'POST', '/api/auth/logout', { token: last.body.token, body: { refreshToken: last.body.refreshToken } })).status).toBe(200);
    expect((await call(api, 'POST', '/api/auth/token/refresh', { body: { refreshToken: other.body.refreshToken } })).status).toBe(401);
    // An idle session: its refresh ends it.
    const idle = await call(api, 'POST', '/api/auth/login', { body: { email, password } });
    api.clock.advance(api.config.SESSION_IDLE_DAYS * 86_400 + 60);
    expect((await call(api, 'POST', '/api/auth/token/refresh', { body: { refreshToken: idle.body.refreshToken } })).status).toBe(401);
    // A password reset ends every session; the next code sign-in clears what is left of them.
    const reset = await codeFor(api, email);
    expect((await call(api, 'POST', '/api/auth/password/reset', { body: { target: email, verifyCode: reset, newPassword: 'another-long-pass-phrase-7' } })).status).toBe(200);
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const code = await codeFor(api, email);
    expect((await call(api, 'POST', '/api/verify-code/verify', { body: { target: email, verifyCode: code } })).status).toBe(200);
  });

  // The profile: time zone and locale, e-mail and phone, the password from a session, records begun earlier.
  await world(async (api) => {
    const email = uniqueEmail('grants-profile');
    const { token } = await signIn(api, email);
    const auth = { token };
    expect((await call(api, 'PATCH', '/api/users/me', { ...auth, body: { timeZone: 'Asia/Shanghai', locale: 'zh-CN' } })).status).toBe(200);
    const newEmail = uniqueEmail('grants-profile-new');
    expect((await call(api, 'PUT', '/api/users/me/email', { ...auth, body: { email: newEmail, verifyCode: await codeFor(api, newEmail) } })).status).toBe(200);
    const phone = uniquePhone();
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const phoneCode = await codeFor(api, phone);
    expect((await call(api, 'PUT', '/api/users/me/phone', { ...auth, body: { phone, verifyCode: phoneCode } })).status).toBe(200);
    const nextPhone = uniquePhone();
    expect((await call(api, 'PUT', '/api/users/me/phone', { ...auth, body: { phone: nextPhone, verifyCode: await codeFor(api, nextPhone) } })).status).toBe(200);
    expect((await call(api, 'PUT', '/api/users/me/password', { ...auth, body: { newPassword: password } })).status).toBe(200);
    expect((await call(api, 'PUT', '/api/users/me/password', { ...auth, body: { currentPassword: 'not it', newPassword: password } })).status).toBe(400);
    expect((await call(api, 'PUT', '/api/users/me/password', { ...auth, body: { currentPassword: password, newPassword: 'another-long-pass-phrase-7' } })).status).toBe(200);
    // A token from before sessions: the change replaces it with a session of its own.
    const user = (await findUserById(api.db, (await call(api, 'GET', '/api/users/me', auth)).body.userId))!;
    const { token: legacy } = await issueToken(deriveKeys(api.rootSecret).tokenSigningKey, user, api.clock.now(), {
      issuer: api.config.JWT_ISSUER,
      audience: api.config.JWT_AUDIENCE,
      lifetimeMs: api.config.TOKEN_TTL_MS,
    });
    const replaced = await call(api, 'PUT', '/api/users/me/password', { token: legacy, body: { currentPassword: 'another-long-pass-phrase-7', newPassword: password } });
    expect(replaced.body.token).toEqual(expect.any(String));
    // Every earlier token ended with it: the records below are saved with the new one.
    auth.token = replaced.body.token as string;
    const record = { recordTitle: 'Offline', text: 'Recorded last night.', language: 'en-US', durationSeconds: 60 };
    const startedAt = isoSeconds(new Date(api.clock.now().getTime() - 3_600_000));
    const created = await call(api, 'POST', '/api/transcriptions', { ...auth, body: { ...record, startedAt } });
    expect(created.status).toBe(200);
    const moved = isoSeconds(new Date(api.clock.now().getTime() - 2 * 86_400_000));
    expect((await call(api, 'PATCH', `/api/transcriptions/${created.body.transcriptionRecordId}`, { ...auth, body: { startedAt: moved } })).status).toBe(200);
  });

  // Behavior events, login events apart: both allocate event ids, and each must be seen reserving a block.
  await world(async (api) => {
    const auth = { token: (await signIn(api, uniqueEmail('grants-logins'))).token };
    const loginKey = { 'Idempotency-Key': randomUUID() };
    await call(api, 'POST', '/api/behavior/login', { ...auth, body: { location: 'Berlin' }, headers: loginKey });
    await call(api, 'POST', '/api/behavior/login', { ...auth, body: { location: 'Berlin' }, headers: loginKey });
    await call(api, 'POST', '/api/behavior/login', { ...auth, body: { location: 'Paris' } });
    await call(api, 'GET', '/api/behavior/login?limit=1', auth);
  });
  await world(async (api) => {
    const auth = { token: (await signIn(api, uniqueEmail('grants-events'))).token };
    const eventKey = { 'Idempotency-Key': randomUUID() };
    for (const [eventType, eventValue] of [['translation_on', 'true'], ['voice_provider', 'azure'], ['language_choice', 'en-US'], ['subtitle_layout', 'top']]) {
      await call(api, 'POST', '/api/behavior/events', { ...auth, body: { eventType, eventValue } });
    }
    await call(api, 'POST', '/api/behavior/events', { ...auth, body: { eventType: 'subtitle_layout', eventValue: 'bottom' }, headers: eventKey });
    await call(api, 'POST', '/api/behavior/events', { ...auth, body: { eventType: 'subtitle_layout', eventValue: 'bottom' }, headers: eventKey });
    for (const path of ['translation', 'voice-provider', 'language-choice', 'stats']) await call(api, 'GET', `/api/behavior/${path}?limit=1`, auth);
  });
  await world(async (api) => {
    const auth = { token: (await signIn(api, uniqueEmail('grants-event-batches'))).token };
    const batchKey = { 'Idempotency-Key': randomUUID() };
    const events = [{ eventType: 'subtitle_layout', eventValue: 'top' }, { eventType: 'translation_on', eventValue: 'true' }, { eventType: 'subtitle_layout', eventValue: 'bottom' }];
    await call(api, 'POST', '/api/behavior/events/batch', { ...auth, body: { events }, headers: batchKey });
    await call(api, 'POST', '/api/behavior/events/batch', { ...auth, body: { events }, headers: batchKey });
  });

  // Passkeys: add (and refused), list, rename, remove, sign in (opening, refused, replayed, ending expired sessions).
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-passkeys'));
    const auth = { token };
    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const add = async (on: SoftwareAuthenticator, overrides = {}) => {
      const options = await call(api, 'POST', '/api/auth/passkeys/registration-options', auth);
      return call(api, 'POST', '/api/auth/passkeys', { ...auth, body: { response: on.create(options.body, overrides) } });
    };
    const laptop = () => new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    expect((await add(authenticator)).status).toBe(200);
    expect((await add(laptop(), { userVerified: false })).status).toBe(401);
    const second = await add(laptop());
    expect(second.status).toBe(200);
    expect((await call(api, 'GET', '/api/auth/passkeys', auth)).body).toHaveLength(2);
    expect((await call(api, 'PATCH', `/api/auth/passkeys/${second.body.passkeyId}`, { ...auth, body: { name: 'Laptop' } })).status).toBe(200);
    expect((await call(api, 'DELETE', `/api/auth/passkeys/${second.body.passkeyId}`, auth)).status).toBe(200);
    expect((await call(api, 'DELETE', `/api/auth/passkeys/${second.body.passkeyId}`, auth)).status).toBe(404);
    expect((await call(api, 'PATCH', `/api/auth/passkeys/${second.body.passkeyId}`, { ...auth, body: { name: 'Gone' } })).status).toBe(404);
    const signInWith = async (overrides = {}) => {
      const options = await call(api, 'POST', '/api/auth/passkey/options');
      const response = authenticator.get(options.body, { credentialId: authenticator.credentials[0]!.id.toString('base64url'), ...overrides });
      return { response, answer: await call(api, 'POST', '/api/auth/passkey/verify', { body: { response } }) };
    };
    const { response, answer } = await signInWith();
    expect(answer.status).toBe(200);
    expect((await call(api, 'POST', '/api/auth/passkey/verify', { body: { response } })).status).toBe(401);
    expect((await signInWith({ forgeSignature: true })).answer.status).toBe(401);
    // Every session idle past its end: the next sign-in removes them.
    api.clock.advance(api.config.SESSION_IDLE_DAYS * 86_400 + 60);
    expect((await signInWith()).answer.status).toBe(200);
  });

  // The resources of one account, then its deletion; and an interrupted deletion the job finishes.
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-data'));
    const auth = { token };
    await call(api, 'GET', '/api/users/me', auth);
    const sn = `CG2-${randomUUID().slice(0, 8)}`;
    const device = { sn, mac: '3c:71:bf:4a:92:1e', productModel: 'Caption Glasses 2' };
    expect((await call(api, 'POST', '/api/devices', { ...auth, body: device })).status).toBe(200);
    expect((await call(api, 'POST', '/api/devices', { ...auth, body: { ...device, productModel: 'Caption Glasses 3' } })).status).toBe(200);
    const other = await signIn(api, uniqueEmail('grants-other'));
    expect((await call(api, 'POST', '/api/devices', { token: other.token, body: device })).status).toBe(400);
    await call(api, 'GET', '/api/devices?limit=1', auth);
    await call(api, 'GET', '/api/users/me/summary', auth);
    expect((await call(api, 'DELETE', `/api/devices/${sn}`, auth)).status).toBe(200);
    expect((await call(api, 'DELETE', `/api/devices/${sn}`, auth)).status).toBe(404);

    const record = { recordTitle: 'Weekly', text: 'Good morning.', language: 'en-US', durationSeconds: 60 };
    const key = { 'Idempotency-Key': randomUUID() };
    const created = await call(api, 'POST', '/api/transcriptions', { ...auth, body: record, headers: key });
    expect(created.status).toBe(200);
    expect((await call(api, 'POST', '/api/transcriptions', { ...auth, body: record, headers: key })).status).toBe(200);
    expect((await call(api, 'POST', '/api/transcriptions', { ...auth, body: { ...record, durationSeconds: 61 }, headers: key })).status).toBe(422);
    await call(api, 'POST', '/api/transcriptions', { ...auth, body: record });
    const id = created.body.transcriptionRecordId as number;
    await call(api, 'GET', '/api/transcriptions?limit=1', auth);
    await call(api, 'GET', `/api/transcriptions?q=${encodeURIComponent('会议 "three pm"')}&language=en-US&from=2026-01-01`, auth);
    const exported = await call(api, 'GET', '/api/users/me/export', auth);
    expect(exported.status).toBe(200);
    await call(api, 'GET', '/api/transcriptions/usage?days=7', auth);
    await call(api, 'GET', `/api/transcriptions/${id}`, auth);
    await call(api, 'PATCH', `/api/transcriptions/${id}`, { ...auth, body: { durationSeconds: 90 } });
    await call(api, 'DELETE', `/api/transcriptions/${id}`, auth);
    expect((await call(api, 'DELETE', `/api/transcriptions/${id}`, auth)).status).toBe(404);

    const passkeyOptions = await call(api, 'POST', '/api/auth/passkeys/registration-options', auth);
    const passkey = new SoftwareAuthenticator({ origin: 'http://localhost:8080' }).create(passkeyOptions.body);
    expect((await call(api, 'POST', '/api/auth/passkeys', { ...auth, body: { response: passkey } })).status).toBe(200);
    expect((await call(api, 'DELETE', '/api/users/me', auth)).status).toBe(200);

    // An account whose deletion ended it and then died: the scheduled job finishes the purge.
    const interrupted = await signIn(api, uniqueEmail('grants-interrupted'));
    const serial = `CG2-${randomUUID().slice(0, 8)}`;
    await call(api, 'POST', '/api/devices', { token: interrupted.token, body: { ...device, sn: serial } });
    const interruptedOptions = await call(api, 'POST', '/api/auth/passkeys/registration-options', { token: interrupted.token });
    const interruptedPasskey = new SoftwareAuthenticator({ origin: 'http://localhost:8080' }).create(interruptedOptions.body);
    expect((await call(api, 'POST', '/api/auth/passkeys', { token: interrupted.token, body: { response: interruptedPasskey } })).status).toBe(200);
    const interruptedUser = (await findUserById(api.db, interrupted.userId))!;
    await endAccount(api.db, interruptedUser, interruptedUser, new Date().toISOString());
    current = jobLabel('resume-account-purges');
    try {
      expect((await resumeAccountPurgesJob.withContext(api.context)()).purged).toBeGreaterThanOrEqual(1);
    } finally {
      current = undefined;
    }
  });
  // One device: the caller's and an unknown serial, both a GetItem beside the account check's.
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-get-api-devices-sn'));
    expect((await call(api, 'POST', '/api/devices', { token, body: { sn: 'CG2-READ-1', mac: '3c:71:bf:4a:92:1e', productModel: 'Caption Glasses 2' } })).status).toBe(200);
    expect((await call(api, 'GET', '/api/devices/CG2-READ-1', { token })).status).toBe(200);
    expect((await call(api, 'GET', '/api/devices/CG2-UNKNOWN', { token })).status).toBe(404);
  });
  // The admin API (issue 37): each request also appends its audit entry (PutItem).
  await world(async (api) => {
    const reason = { reason: 'Ticket 4711: grants' };
    const person = await signIn(api, uniqueEmail('grants-admin'));
    const sn = `CG2-${randomUUID().slice(0, 8)}`;
    expect((await call(api, 'POST', '/api/devices', { token: person.token, body: { sn, mac: '3c:71:bf:4a:92:1e', productModel: 'Caption Glasses 2' } })).status).toBe(200);
    const found = await signedCall(api, 'GET', `/admin/users?email=${encodeURIComponent(person.email!)}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect((await signedCall(api, 'GET', `/admin/users?sn=${sn}`)).status).toBe(200);
    expect((await signedCall(api, 'POST', `/admin/users/${person.userId}/sign-out`, reason)).status).toBe(200);
    await call(api, 'POST', '/api/auth/login', { body: { email: person.email, password: 'not the password at all' } });
    expect((await signedCall(api, 'POST', `/admin/users/${person.userId}/unlock`, reason)).status).toBe(200);
    expect((await signedCall(api, 'POST', `/admin/users/${person.userId}/disable`, reason)).status).toBe(200);
    expect((await signedCall(api, 'POST', `/admin/users/${person.userId}/enable`, reason)).status).toBe(200);
    expect((await signedCall(api, 'DELETE', `/admin/devices/${sn}`, reason)).status).toBe(200);
    expect((await signedCall(api, 'GET', `/admin/audit?userId=${person.userId}&limit=2`)).status).toBe(200);
    expect((await call(api, 'POST', '/api/transcriptions', { token: person.token, body: { recordTitle: 'r', text: 't', language: 'en-US', durationSeconds: 1 } })).status).toBe(401);
    const erased = await signIn(api, uniqueEmail('grants-admin-erased'));
    expect((await call(api, 'POST', '/api/transcriptions', { token: erased.token, body: { recordTitle: 'r', text: 't', language: 'en-US', durationSeconds: 1 } })).status).toBe(200);
    expect((await signedCall(api, 'DELETE', `/admin/users/${erased.userId}`, reason)).status).toBe(200);
  });
  // GET /api/transcriptions/changes: a feed with a record too large to travel in its entry, so records are read too.
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-get-api-transcriptions-changes'));
    expect((await call(api, 'POST', '/api/transcriptions', { token, body: { recordTitle: 'r', text: 't'.repeat(6000), language: 'en-US', durationSeconds: 1 } })).status).toBe(200);
    expect((await call(api, 'GET', '/api/transcriptions/changes', { token })).status).toBe(200);
  });
  // Apple, Google and WeChat sign-ins, against the provider stand-ins: a first sign-in (the account
  // made), a second (the identity found), one after the first session expired (it ends: DeleteItem),
  // and Google's link by e-mail to an account made by code.
  await socialWorld(async (api, standIns) => {
    const nonce = async () => {
      const answer = await call(api, 'POST', '/api/auth/social/nonce');
      return { nonce: answer.body.nonce as string, hash: nonceHash(answer.body.nonce as string) };
    };
    const apple = async (sub: string) => {
      const { nonce: value, hash } = await nonce();
      const issued = await standIns.apple.issue({ sub, clientId: SOCIAL.apple, email: `${sub}@privaterelay.appleid.com`, isPrivateEmail: true, nonce: hash });
      return call(api, 'POST', '/api/auth/apple', { body: { ...issued, nonce: value, fullName: { givenName: 'Ann' } } });
    };
    const google = async (sub: string, email: string) => {
      const { nonce: value, hash } = await nonce();
      const { idToken } = await standIns.google.issue({ sub, clientId: SOCIAL.google, email, nonce: hash });
      return call(api, 'POST', '/api/auth/google', { body: { idToken, nonce: value } });
    };
    const wechat = (subject: string) => call(api, 'POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject }).code } });
    const linkedEmail = `${randomUUID()}@gmail.com`;
    await signIn(api, linkedEmail);
    const runs = [() => apple('000001.grants'), () => google('4242', `${randomUUID()}@gmail.com`), () => wechat('grants-person')];
    for (const run of runs) expect((await run()).status).toBe(200);
    for (const run of runs) expect((await run()).status).toBe(200);
    expect((await google('4343', linkedEmail)).status).toBe(200);
    api.clock.advance(api.config.SESSION_IDLE_DAYS * 86_400 + 60);
    for (const run of runs) expect((await run()).status).toBe(200);
    // The Apple account deleted (its token recorded for revocation): the job's run that Apple
    // fails counts the attempt (UpdateItem), the next revokes it (DeleteItem).
    const appleAccount = await apple('000001.grants');
    expect((await call(api, 'DELETE', '/api/users/me', { token: appleAccount.body.token })).status).toBe(200);
    current = jobLabel('revoke-apple-tokens');
    try {
      standIns.apple.failRevocations(1);
      expect((await revokeAppleTokensJob.withContext(api.context)()).failed).toBe(1);
      expect((await revokeAppleTokensJob.withContext(api.context)()).revoked).toBe(1);
    } finally {
      current = undefined;
    }
  });
  // Apple's notifications: consent-revoked (sessions ended, the link removed), email-disabled (the
  // identity and the relay address's marker), account-delete of an Apple-only account (deleted and purged).
  await socialWorld(async (api, standIns) => {
    const notify = async (type: string, sub: string, email?: string) =>
      call(api, 'POST', '/api/auth/apple/notifications', { body: await standIns.apple.notification(SOCIAL.apple, { type, sub, ...(email ? { email } : {}) }) });
    const appleAccount = async (sub: string) => {
      const issued = await api.request('POST', '/api/auth/social/nonce');
      const credential = await standIns.apple.issue({ sub, clientId: SOCIAL.apple, email: `${sub}@privaterelay.appleid.com`, isPrivateEmail: true, nonce: nonceHash(issued.body.nonce) });
      expect((await api.request('POST', '/api/auth/apple', { body: { ...credential, nonce: issued.body.nonce } })).status).toBe(200);
    };
    for (const sub of ['000003.grants', '000004.grants']) await appleAccount(sub);
    expect((await notify('email-disabled', '000003.grants', '000003.grants@privaterelay.appleid.com')).status).toBe(200);
    expect((await notify('consent-revoked', '000003.grants')).status).toBe(200);
    expect((await notify('account-delete', '000004.grants')).status).toBe(200);
  });
  // Linking from the settings (issue 38): GET reads the profile and queries the identities; POST
  // links (the session, owner and nonce read; owner, identity and nonce put; the marker set) and
  // answers one already linked (a query); DELETE unlinks with an e-mail left, and with only a
  // passkey left (its count checked in the transaction).
  await socialWorld(async (api, standIns) => {
    const { token } = await signIn(api, uniqueEmail('grants-identities'));
    const googleBody = async (sub: string) => {
      const answer = await call(api, 'POST', '/api/auth/social/nonce');
      const { idToken } = await standIns.google.issue({ sub, clientId: SOCIAL.google, nonce: nonceHash(answer.body.nonce as string) });
      return { idToken, nonce: answer.body.nonce as string };
    };
    const person = `grants-link-${randomUUID()}`;
    expect((await call(api, 'POST', '/api/users/me/identities/google', { token, body: await googleBody(person) })).status).toBe(200);
    expect((await call(api, 'POST', '/api/users/me/identities/google', { token, body: await googleBody(person) })).status).toBe(200);
    expect((await call(api, 'GET', '/api/users/me/identities', { token })).status).toBe(200);
    expect((await call(api, 'DELETE', '/api/users/me/identities/google', { token })).status).toBe(200);

    const made = await call(api, 'POST', '/api/auth/wechat', { body: { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: `grants-${randomUUID()}` }).code } });
    const wechatToken = made.body.token as string;
    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const options = await call(api, 'POST', '/api/auth/passkeys/registration-options', { token: wechatToken });
    expect((await call(api, 'POST', '/api/auth/passkeys', { token: wechatToken, body: { response: authenticator.create(options.body) } })).status).toBe(200);
    expect((await call(api, 'DELETE', '/api/users/me/identities/wechat', { token: wechatToken })).status).toBe(200);
    // Apple unlinked: its revocation recorded with the unlink, and removed once Apple confirms.
    const appleNonce = await call(api, 'POST', '/api/auth/social/nonce');
    const appleSub = `000007.${randomUUID()}`;
    // Its own e-mail, not Apple's relay address (which is no way in once Apple is unlinked).
    const apple = await standIns.apple.issue({ sub: appleSub, clientId: SOCIAL.apple, email: `${appleSub}@example.org`, isPrivateEmail: false, nonce: nonceHash(appleNonce.body.nonce as string) });
    const appleToken = (await call(api, 'POST', '/api/auth/apple', { body: { ...apple, nonce: appleNonce.body.nonce } })).body.token as string;
    expect((await call(api, 'DELETE', '/api/users/me/identities/apple', { token: appleToken })).status).toBe(200);
  });
  // POST /api/realtime/ticket: the ticket's Put beside the profile's ConditionCheck, one transaction.
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-post-api-realtime-ticket'));
    expect((await call(api, 'POST', '/api/realtime/ticket', { token })).status).toBe(200);
  });
  // Speech sessions (docs/speech.md): a start (the session, the app's id and the live set written), renewals
  // (the charge's transaction), an expired session met by a renewal, an end, the quota.
  await speechWorld(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-speech'));
    const started = await call(api, 'POST', '/api/speech/sessions', { token, body: speechStartBody({ provider: 'tencent' }) });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sessionId = started.body.sessionId as string;
    api.clock.advance(2);
    expect((await call(api, 'POST', `/api/speech/sessions/${sessionId}/renew`, { token, body: { elapsedSeconds: 2 } })).status).toBe(200);
    expect((await call(api, 'POST', `/api/speech/sessions/${sessionId}/end`, { token, body: { elapsedSeconds: 3 } })).status).toBe(200);
    const expiring = (await call(api, 'POST', '/api/speech/sessions', { token, body: speechStartBody({ provider: 'tencent' }) })).body.sessionId as string;
    api.clock.advance(600);
    expect((await call(api, 'POST', `/api/speech/sessions/${expiring}/renew`, { token, body: { elapsedSeconds: 600 } })).status).toBe(409);
    expect((await call(api, 'GET', '/api/speech/quota', { token })).status).toBe(200);
  });
  // PUT and DELETE /api/auth/sessions/current/push: the session's item updated beside the account check.
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-put-api-auth-sessions-current-push'));
    expect((await call(api, 'PUT', '/api/auth/sessions/current/push', { token, body: { platform: 'apns', token: 'a1'.repeat(32) } })).status).toBe(200);
  });
  await world(async (api) => {
    const { token } = await signIn(api, uniqueEmail('grants-delete-api-auth-sessions-current-push'));
    expect((await call(api, 'DELETE', '/api/auth/sessions/current/push', { token })).status).toBe(200);
  });
  // PUT /admin/users/{userId}/speech-limits: set (the transaction and the view), an unknown account (its condition fails).
  await world(async (api) => {
    const { userId } = await signIn(api, uniqueEmail('grants-speech-limits'));
    const limits = { dailySeconds: 60, monthlySeconds: 600, reason: 'Ticket 4711: grants' };
    expect((await signedCall(api, 'PUT', `/admin/users/${userId}/speech-limits`, limits)).status).toBe(200);
    expect((await signedCall(api, 'PUT', '/admin/users/999999999/speech-limits', limits)).status).toBe(404);
  });
}, 180_000);

afterAll(async () => {
  await proxy?.close();
});

describe('DynamoDB grants follow what each function issues', () => {
  it.each(ALL_ROUTES.map((route) => [routeId(route), route] as const))('%s issues exactly the actions its route declares', (id, route) => {
    expect([...(recorded.get(id) ?? [])].sort(), id).toEqual(declared(route.dynamodb));
  });

  it('the authorizer issues exactly what it declares', () => {
    expect([...(recorded.get(AUTHORIZER) ?? [])].sort()).toEqual(declared(authorizer.dynamodb));
  });

  it.each(jobs.map((job) => [job.name, job] as const))('job %s issues exactly what it declares', (name, job) => {
    expect([...(recorded.get(jobLabel(name)) ?? [])].sort()).toEqual(declared(job.dynamodb));
  });

  // test/unit/route-coverage.test.ts names a route no flow here requests; this catches one requested but never reaching its handler.
  it('saw every route that uses the table, so no declaration goes unchecked (a new route needs a flow here)', () => {
    const unseen = ALL_ROUTES.filter((route) => route.table !== 'none' && !recorded.has(routeId(route))).map(routeId);
    expect(unseen, 'add a flow to test/integration/table-grants.test.ts that reaches each').toEqual([]);
  });
});
