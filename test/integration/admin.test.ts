import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as resumeAccountPurgesJob } from '../../functions/jobs/resume-account-purges';
import { signAdminRequest } from '../../infra/tools/admin-client';
import { adminHelpers } from '../support/admin';
import { latestCode, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { sessionHelpers } from '../support/sessions';
import type { Signed } from '../support/sessions';
import { SoftwareAuthenticator } from '../support/software-authenticator';

/**
 * Issue 37: the support team's admin API through the local server (its SigV4 check standing in
 * for API Gateway's AWS_IAM) against DynamoDB Local, signed as the support CLI signs.
 */
const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'http://localhost:8080';
let api: LocalApi;
let admin: ReturnType<typeof adminHelpers>;
let people: ReturnType<typeof sessionHelpers>;

beforeAll(async () => {
  // No purge within the request and no scheduled run: a deletion stays `deleting` until the test runs the job.
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1', ACCOUNT_PURGE_BUDGET_MS: '0', LOCAL_JOB_INTERVAL_SECONDS: '0' });
  admin = adminHelpers(api);
  people = sessionHelpers(api);
});
afterAll(() => api?.close());

async function register(email = uniqueEmail('admin')): Promise<Signed & { email: string }> {
  api.clock.advance(2);
  await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: email } });
  const registered = await api.request('POST', '/api/auth/register', { body: { email, verifyCode: latestCode(api, email), password: PASSWORD } });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const signedIn = await api.request('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
  expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
  return { ...(signedIn.body as Signed), email };
}

const login = (email: string, password = PASSWORD) => api.request('POST', '/api/auth/login', { body: { email, password } });
const auditOf = async (userId: number) => (await admin.audit({ userId: String(userId), limit: '100' })).body as Record<string, unknown>[];

describe('who may call it', () => {
  it('refuses unsigned, bearer-token, wrongly signed, re-targeted and stale requests with 403 in the contract shape, writing nothing', async () => {
    const person = await register();
    const target = { method: 'POST' as const, path: `/admin/users/${person.userId}/disable`, body: { reason: 'Ticket 1' } };
    const signed = await admin.sign(target);
    // A signed request sent as it is, or as another one.
    const send = async (url: string, method: string, headers: Record<string, string>, body?: string) => {
      const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const signedAsDelete = await admin.sign({ ...target, method: 'DELETE' });
    const stale = await signAdminRequest({ ...admin.options, now: () => new Date(api.clock.now().getTime() - 16 * 60_000) }, target);
    const attempts = [
      await api.request('POST', target.path, { body: target.body }),
      await api.request('POST', target.path, { body: target.body, token: person.token }),
      // A forged claim in a bearer token is no signature either.
      await api.request('POST', target.path, { body: target.body, headers: { Authorization: `Bearer ${person.token.split('.').slice(0, 2).join('.')}.forged` } }),
      await adminHelpers(api, { accessKeyId: admin.options.credentials.accessKeyId, secretAccessKey: 'not-the-secret' }).call(target),
      // The signature of one request sent as another: path, method, body.
      await send(signed.url.replace(`/${person.userId}/disable`, `/${person.userId}/sign-out`), 'POST', signed.headers, signed.body),
      await send(signedAsDelete.url, 'POST', signedAsDelete.headers, signedAsDelete.body),
      await send(signed.url, 'POST', signed.headers, JSON.stringify({ reason: 'Ticket 2' })),
      await send(stale.url, 'POST', stale.headers, stale.body),
    ];
    for (const [index, response] of attempts.entries()) {
      expect(response.status, `attempt ${index}`).toBe(403);
      expect(response.body, `attempt ${index}`).toMatchObject({ code: 403, error: 'FORBIDDEN', message: expect.any(String) });
    }
    // Nothing reached the API: no audit entry, the account as it was.
    expect(await auditOf(person.userId)).toEqual([]);
    await people.expectTokenWorks(person.token);
    expect((await admin.find({ userId: String(person.userId) })).body).toMatchObject({ status: 'active' });
  });
});

describe('lookups', () => {
  it('find an account by e-mail (normalised), phone, user id and serial; 404 for none', async () => {
    const person = await register();
    const phone = uniquePhone();
    api.clock.advance(2);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'sms', target: phone } });
    expect((await api.request('PUT', '/api/users/me/phone', { token: person.token, body: { phone, verifyCode: latestCode(api, phone) } })).status).toBe(200);
    const sn = `CAP-FIND-${person.userId}`;
    expect((await api.request('POST', '/api/devices', { token: person.token, body: { sn, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2' } })).status).toBe(200);
    const queries: Record<string, string>[] = [{ email: `  ${person.email.toUpperCase()} ` }, { phone }, { userId: String(person.userId) }, { sn }];
    for (const query of queries) {
      const found = await admin.find(query);
      expect(found.status, JSON.stringify(query)).toBe(200);
      expect(found.body).toMatchObject({ userId: person.userId, email: person.email, phone, status: 'active', devices: [{ sn }] });
    }
    expect((await admin.find({ email: uniqueEmail('nobody') })).status).toBe(404);
    expect((await admin.find({ sn: 'CAP-NOBODY' })).status).toBe(404);
  });

  it('answers no stored secret, hash, title, text, event value or login place for an account having all of them', async () => {
    const person = await register();
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token: person.token });
    expect((await api.request('POST', '/api/auth/passkeys', { token: person.token, body: { response: authenticator.create(options.body) } })).status).toBe(200);
    const second = await people.signIn(person.email, { clientName: 'Tablet' });
    api.clock.advance(2);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: person.email } });
    const pendingCode = latestCode(api, person.email);
    expect((await api.request('POST', '/api/transcriptions', { token: person.token, body: { recordTitle: 'Secret meeting title', text: 'Confidential transcript words', language: 'en-US', durationSeconds: 90 } })).status).toBe(200);
    expect((await api.request('POST', '/api/behavior/events', { token: person.token, body: { eventType: 'voice_provider', eventValue: 'private-voice-value' } })).status).toBe(200);
    expect((await api.request('POST', '/api/behavior/login', { token: person.token, body: { location: 'Secret Street 5, Hangzhou' } })).status).toBe(200);
    expect((await login(person.email, 'a wrong password')).status).toBe(400);

    // Everything stored under the account's keys and its markers that is not a number: the secrets and hashes among it.
    const items = (await api.db.client.send(new ScanCommand({ TableName: api.db.tableName }))).Items ?? [];
    const mine = items.filter((item) => JSON.stringify(item).includes(String(person.userId)) || JSON.stringify(item).includes(person.email));
    const secretFields = /hash|secret|key|credential|token|code|title|text|value|location|challenge/i;
    const stored = mine.flatMap((item) => Object.entries(item).filter(([name, value]) => secretFields.test(name) && typeof value === 'string' && value.length >= 6).map(([, value]) => value as string));
    expect(stored.length).toBeGreaterThan(5);
    const known = [PASSWORD, person.refreshToken, second.refreshToken, person.token, pendingCode, 'Secret meeting title', 'Confidential transcript words', 'private-voice-value', 'Secret Street 5, Hangzhou'];

    const answers = [
      await admin.find({ userId: String(person.userId) }),
      await admin.change(person.userId, 'unlock'),
      await admin.change(person.userId, 'sign-out'),
      await admin.audit({ userId: String(person.userId) }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      for (const secret of [...known, ...stored]) expect(text.includes(secret), `${secret.slice(0, 40)} in ${text.slice(0, 200)}`).toBe(false);
    }
    // What support does see: counts, names and times.
    expect(answers[0]!.body).toMatchObject({ signIn: { passwordSet: true, failedAttempts: 1, passkeys: [expect.objectContaining({ name: expect.any(String) })] }, usage: { totalSeconds: 90 } });
    expect((answers[0]!.body as { sessions: unknown[] }).sessions).toHaveLength(2);
  });
});

describe('changes', () => {
  it('sign-out: the held access token is refused on the very next call, refresh too; the password still signs in', async () => {
    const person = await register();
    await people.expectTokenWorks(person.token);
    expect((await admin.change(person.userId, 'sign-out')).body).toMatchObject({ sessions: [] });
    await people.expectTokenEnded(person.token);
    expect((await people.refresh(person.refreshToken)).status).toBe(401);
    expect((await login(person.email)).status).toBe(200);
  });

  it('disable refuses the held token and every sign-in; enable restores no old session', async () => {
    const person = await register();
    expect((await admin.change(person.userId, 'disable')).body).toMatchObject({ status: 'disabled', disabledAt: expect.any(String) });
    await people.expectTokenEnded(person.token);
    expect((await people.refresh(person.refreshToken)).body).toMatchObject({ error: 'ACCOUNT_DISABLED' });
    expect((await login(person.email)).body).toMatchObject({ error: 'ACCOUNT_DISABLED' });
    expect((await admin.change(person.userId, 'enable')).body).toMatchObject({ status: 'active', disabledAt: null });
    expect((await people.refresh(person.refreshToken)).status).toBe(401);
    await people.expectTokenEnded(person.token);
    expect((await login(person.email)).status).toBe(200);
  });

  it('unlock after five wrong passwords: the right one works at once, sessions stay; five more lock again', async () => {
    const person = await register();
    for (let attempt = 0; attempt < 5; attempt++) await login(person.email, 'wrong password here');
    expect((await login(person.email)).body).toMatchObject({ error: 'LOGIN_LOCKED' });
    expect((await admin.find({ userId: String(person.userId) })).body).toMatchObject({ signIn: { failedAttempts: 5, lockedUntil: expect.any(String) } });
    expect((await admin.change(person.userId, 'unlock')).body).toMatchObject({ signIn: { failedAttempts: 0, lockedUntil: null } });
    await people.expectTokenWorks(person.token);
    expect((await login(person.email)).status).toBe(200);
    for (let attempt = 0; attempt < 5; attempt++) await login(person.email, 'wrong password here');
    expect((await login(person.email)).body).toMatchObject({ error: 'LOGIN_LOCKED' });
  });

  it('release: the serial leaves the old owner, a new owner binds it and reads none of the old owner\'s data', async () => {
    const seller = await register();
    const buyer = await register();
    const sn = `CAP-SOLD-${seller.userId}`;
    const device = { sn, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2' };
    expect((await api.request('POST', '/api/devices', { token: seller.token, body: device })).status).toBe(200);
    const record = await api.request('POST', '/api/transcriptions', { token: seller.token, body: { recordTitle: 'Seller', text: 'Mine', language: 'en-US', durationSeconds: 5 } });
    expect((await api.request('POST', '/api/devices', { token: buyer.token, body: device })).body).toMatchObject({ error: 'DEVICE_BOUND_ELSEWHERE' });
    expect((await admin.release(sn)).body).toEqual({ sn, userId: seller.userId });
    expect((await api.request('GET', '/api/devices', { token: seller.token })).body).toEqual([]);
    expect((await api.request('POST', '/api/devices', { token: buyer.token, body: device })).status).toBe(200);
    expect((await api.request('GET', '/api/transcriptions', { token: buyer.token })).body).toEqual([]);
    expect((await api.request('GET', `/api/transcriptions/${record.body.transcriptionRecordId}`, { token: buyer.token })).status).toBe(404);
    expect((await api.request('GET', '/api/transcriptions', { token: seller.token })).body).toHaveLength(1);
    expect((await admin.find({ sn })).body).toMatchObject({ userId: buyer.userId });
  });

  it('delete: the lookup says deleting while the purge runs, then 404', async () => {
    const person = await register();
    expect((await api.request('POST', '/api/transcriptions', { token: person.token, body: { recordTitle: 'r', text: 't', language: 'en-US', durationSeconds: 1 } })).status).toBe(200);
    expect((await admin.remove(person.userId)).status).toBe(200);
    await people.expectTokenEnded(person.token);
    expect((await admin.find({ userId: String(person.userId) })).body).toMatchObject({ userId: person.userId, status: 'deleting', email: null });
    expect((await admin.find({ email: person.email })).status).toBe(404);
    await resumeAccountPurgesJob.withContext(api.context)();
    expect((await admin.find({ userId: String(person.userId) })).status).toBe(404);
    // The audit trail outlives the account.
    expect((await auditOf(person.userId)).map((entry) => [entry.operation, entry.status])).toEqual([
      ['GET /admin/users', 404],
      ['GET /admin/users', 200],
      ['DELETE /admin/users/{userId}', 200],
    ]);
  });
});

describe('the audit trail', () => {
  it('has one entry per request, refused ones included, with actor and reason; a change without a reason is a 400 and audited', async () => {
    const person = await register();
    await admin.find({ userId: String(person.userId) });
    expect((await admin.change(person.userId, 'sign-out', {})).status).toBe(400);
    expect((await admin.change(person.userId, 'sign-out', { reason: ' ' })).status).toBe(400);
    await admin.change(person.userId, 'sign-out', { reason: 'Ticket 9: lost phone' });
    const entries = await auditOf(person.userId);
    expect(entries.map((entry) => [entry.operation, entry.status, entry.reason])).toEqual([
      ['POST /admin/users/{userId}/sign-out', 200, 'Ticket 9: lost phone'],
      ['POST /admin/users/{userId}/sign-out', 400, null],
      ['POST /admin/users/{userId}/sign-out', 400, null],
      ['GET /admin/users', 200, null],
    ]);
    for (const entry of entries) expect(entry).toMatchObject({ actor: 'arn:aws:iam::000000000000:user/local-admin', actorKind: 'local', userId: person.userId, requestId: expect.any(String) });
    expect(JSON.stringify(entries)).not.toContain(person.email);
    // No admin route overwrites an entry: each request adds one, the earlier ones stay as they were.
    await admin.change(person.userId, 'sign-out', { reason: 'Ticket 10' });
    const later = await auditOf(person.userId);
    // Newest first: the new sign-out, the reading of the trail above (audited too), then the same entries as before.
    expect(later.slice(0, 2).map((entry) => entry.operation)).toEqual(['POST /admin/users/{userId}/sign-out', 'GET /admin/audit']);
    expect(later.slice(2)).toEqual(entries);
  });
});
