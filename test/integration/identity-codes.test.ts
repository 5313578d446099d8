import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_BODY_BYTES } from '../../shared/http/request';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Verification codes over HTTP against the local server (seed 4.1, 4.2; contract sections 2 and 3):
 * sending, verifying with automatic registration, and every error row a code can produce.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());
afterEach(() => api.clock.reset());

const typeOf = (target: string) => (target.includes('@') ? 'email' : 'sms');
const send = (target: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  api.request('POST', '/api/verify-code/send', { body: { type: typeOf(target), target, ...extra }, headers });
const verify = (target: string, verifyCode: string) => api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode } });

/** Sends a code and returns it (from the dev outbox). */
async function codeFor(target: string): Promise<string> {
  const response = await send(target);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return latestCode(api, target);
}

/** A six-digit code that is not `code`. */
const wrong = (code: string, shift = 1) => code.slice(0, 5) + String((Number(code[5]) + shift) % 10);

const currentCodeItem = async (target: string) =>
  (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.currentCode(target), ConsistentRead: true }))).Item;

const expectError = (response: { status: number; body: any }, status: number, code: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ code, error, message: expect.any(String) });
};

describe('POST /api/verify-code/send', () => {
  it('sends a code by e-mail and answers {code:0, message}', async () => {
    const email = uniqueEmail();
    const response = await send(email);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String) });
    const [entry, ...older] = api.outbox.list(email);
    expect(older).toEqual([]);
    expect(entry).toMatchObject({ channel: 'email', target: email, code: expect.stringMatching(/^\d{6}$/), locale: 'en' });
    expect(entry!.text).toContain(entry!.code);
  });

  it('sends a code by SMS to the E.164 form of the number', async () => {
    const phone = uniquePhone();
    const spaced = `${phone.slice(0, 3)} ${phone.slice(3, 6)} ${phone.slice(6, 10)} ${phone.slice(10)}`;
    expect((await send(spaced)).status).toBe(200);
    expect(api.outbox.list(phone)[0]).toMatchObject({ channel: 'sms', target: phone });
  });

  it('normalises an e-mail target (trimmed, lower-cased) for sending and verifying', async () => {
    const email = uniqueEmail('MixedCase');
    expect((await send(`  ${email.toUpperCase()} `)).status).toBe(200);
    const code = latestCode(api, email.toLowerCase());
    const verified = await verify(email.replace('example', 'EXAMPLE'), code);
    expect(verified.status).toBe(200);
    expect(verified.body.email).toBe(email.toLowerCase());
  });

  it('stores only a keyed hash of the code', async () => {
    const email = uniqueEmail();
    const code = await codeFor(email);
    const item = await currentCodeItem(email);
    expect(item).toBeDefined();
    expect(JSON.stringify(item)).not.toContain(code);
    expect(item!.codeHash).toEqual(expect.any(String));
  });

  it('answers the same for a target with an account and one without', async () => {
    const known = uniqueEmail('known');
    await signIn(api, known);
    api.clock.advance(61);
    const forKnown = await send(known);
    const forUnknown = await send(uniqueEmail('unknown'));
    expect(forKnown.status).toBe(200);
    expect({ status: forUnknown.status, body: forUnknown.body }).toEqual({ status: forKnown.status, body: forKnown.body });
  });

  it('writes the message in the requested language: locale field, Accept-Language, else English', async () => {
    const [byField, byHeader, byDefault] = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    await send(byField, { locale: 'zh-CN' });
    await send(byHeader, {}, { 'Accept-Language': 'zh-CN,zh;q=0.9' });
    await send(byDefault, {}, { 'Accept-Language': 'de-DE' });
    expect(api.outbox.list(byField)[0]).toMatchObject({ locale: 'zh-CN', subject: expect.stringContaining('验证码') });
    expect(api.outbox.list(byHeader)[0]).toMatchObject({ locale: 'zh-CN' });
    expect(api.outbox.list(byDefault)[0]).toMatchObject({ locale: 'en', subject: expect.stringContaining('verification code') });
  });

  it('refuses a second send within 60 s: 400 CODE_COOLDOWN, Retry-After, and the first code still works', async () => {
    const email = uniqueEmail();
    const first = await codeFor(email);
    api.clock.advance(20);
    const again = await send(email);
    expectError(again, 400, 1, 'CODE_COOLDOWN');
    expect(again.body.message).toContain('60 seconds');
    expect(again.body.retryAfterSeconds).toBeGreaterThanOrEqual(39);
    expect(again.body.retryAfterSeconds).toBeLessThanOrEqual(41);
    expect(again.headers.get('retry-after')).toBe(String(again.body.retryAfterSeconds));
    expect(api.outbox.list(email)).toHaveLength(1);
    expect((await verify(email, first)).status).toBe(200);
  });

  it('allows the next send once 60 s have passed', async () => {
    const phone = uniquePhone();
    await codeFor(phone);
    api.clock.advance(61);
    expect((await send(phone)).status).toBe(200);
    expect(api.outbox.list(phone)).toHaveLength(2);
  });

  it('does not let an expired cooldown item that is still in the table block a send', async () => {
    const email = uniqueEmail('lingering');
    const now = Math.floor(Date.now() / 1000);
    // What TTL deletion leaves behind until it gets round to it: an old code, past its ttl.
    await api.db.client.send(
      new PutCommand({
        TableName: api.db.tableName,
        Item: { ...keys.currentCode(email), codeId: 'old', codeHash: 'x', sentAt: now - 3600, expiresAt: now - 3000, attempts: 0, ttl: now - 60 },
      }),
    );
    expect(await currentCodeItem(email)).toMatchObject({ codeId: 'old' });
    expect((await send(email)).status).toBe(200);
    expect((await verify(email, latestCode(api, email))).status).toBe(200);
  });

  it('caps codes at 10 per target per UTC day: 400 CODE_DAILY_LIMIT, then again the next day', async () => {
    api.clock.set(new Date('2031-03-14T09:00:00Z'));
    const email = uniqueEmail('daily');
    for (let sent = 0; sent < 10; sent++) {
      expect((await send(email)).status, `send ${sent + 1}`).toBe(200);
      api.clock.advance(61);
    }
    expectError(await send(email), 400, 1, 'CODE_DAILY_LIMIT');
    expect(api.outbox.list(email)).toHaveLength(10);
    // The refused send replaced nothing: the tenth code still works.
    expect((await verify(email, latestCode(api, email))).status).toBe(200);
    expect((await send(uniqueEmail('other'))).status).toBe(200);
    api.clock.set(new Date('2031-03-15T00:00:30Z'));
    expect((await send(email)).status).toBe(200);
  });

  it('answers 503 DELIVERY_FAILED when delivery fails, and a retry right after works (no cooldown left)', async () => {
    const phone = uniquePhone();
    api.outbox.failNext();
    const failed = await send(phone);
    expectError(failed, 503, 1, 'DELIVERY_FAILED');
    expect(api.outbox.list(phone)).toEqual([]);
    expect(await currentCodeItem(phone)).toBeUndefined();
    const retry = await send(phone);
    expect(retry.status).toBe(200);
    expect((await verify(phone, latestCode(api, phone))).status).toBe(200);
  });

  it('does not count an undelivered code against the daily cap', async () => {
    api.clock.set(new Date('2031-03-16T09:00:00Z'));
    const email = uniqueEmail('undelivered');
    api.outbox.failNext(3);
    for (let attempt = 0; attempt < 3; attempt++) expect((await send(email)).status).toBe(503);
    for (let sent = 0; sent < 10; sent++) {
      expect((await send(email)).status, `send ${sent + 1}`).toBe(200);
      api.clock.advance(61);
    }
    expectError(await send(email), 400, 1, 'CODE_DAILY_LIMIT');
  });

  it('refuses a type that does not match the target with VALIDATION_FAILED details', async () => {
    const response = await api.request('POST', '/api/verify-code/send', { body: { type: 'sms', target: uniqueEmail() } });
    expectError(response, 400, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ path: 'body.target', message: expect.any(String) }]);
  });
});

describe('POST /api/verify-code/verify', () => {
  it('registers a new user and answers {code:0, message, token, userId, phone, email}', async () => {
    const email = uniqueEmail();
    const response = await verify(email, await codeFor(email));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      code: 0,
      message: expect.any(String),
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refreshToken: expect.stringMatching(/^\d+\.[\w-]{22}\.0\.[\w-]{43}$/),
      expiresIn: 86_400,
      userId: expect.any(Number),
      phone: null,
      email,
    });
    expect(Number.isSafeInteger(response.body.userId) && response.body.userId > 0).toBe(true);
    const me = await api.request('GET', '/api/users/me', { token: response.body.token });
    expect(me.body).toMatchObject({ userId: response.body.userId, email, phone: null });
  });

  it('signs an existing user in to the same account', async () => {
    const phone = uniquePhone();
    const first = await signIn(api, phone);
    expect(first).toMatchObject({ phone, email: null });
    api.clock.advance(61);
    const again = await verify(phone, await codeFor(phone));
    expect(again.status).toBe(200);
    expect(again.body.userId).toBe(first.userId);
    expect(again.body.token).not.toBe(first.token);
  });

  it('refuses a wrong code with CODE_INVALID; the right code still works after one wrong try', async () => {
    const email = uniqueEmail();
    const code = await codeFor(email);
    expectError(await verify(email, wrong(code)), 400, 1, 'CODE_INVALID');
    expect((await verify(email, code)).status).toBe(200);
  });

  it('refuses a code for a target that was never sent one', async () => {
    expectError(await verify(uniqueEmail('never'), '123456'), 400, 1, 'CODE_INVALID');
  });

  it('refuses a code sent to another target', async () => {
    const [mine, theirs] = [uniqueEmail(), uniqueEmail()];
    await codeFor(theirs);
    await codeFor(mine);
    expectError(await verify(mine, latestCode(api, theirs)), 400, 1, 'CODE_INVALID');
  });

  it('keeps a code valid for 10 minutes and refuses it after (CODE_INVALID)', async () => {
    const [early, late] = [uniqueEmail(), uniqueEmail()];
    const earlyCode = await codeFor(early);
    const lateCode = await codeFor(late);
    api.clock.advance(9 * 60);
    expect((await verify(early, earlyCode)).status).toBe(200);
    api.clock.advance(60 + 2);
    expectError(await verify(late, lateCode), 400, 1, 'CODE_INVALID');
  });

  it('uses a code once: the second use is CODE_INVALID', async () => {
    const phone = uniquePhone();
    const code = await codeFor(phone);
    expect((await verify(phone, code)).status).toBe(200);
    expectError(await verify(phone, code), 400, 1, 'CODE_INVALID');
  });

  it('voids a code after 5 wrong tries: the 5th and the right code then get CODE_ATTEMPTS_EXCEEDED', async () => {
    const email = uniqueEmail();
    const code = await codeFor(email);
    for (let attempt = 1; attempt <= 4; attempt++) expectError(await verify(email, wrong(code, attempt)), 400, 1, 'CODE_INVALID');
    expectError(await verify(email, wrong(code, 5)), 400, 1, 'CODE_ATTEMPTS_EXCEEDED');
    expectError(await verify(email, code), 400, 1, 'CODE_ATTEMPTS_EXCEEDED');
    // A new code is the way out.
    api.clock.advance(61);
    expect((await verify(email, await codeFor(email))).status).toBe(200);
  });

  it('replaces the old code with a new send: the old code no longer works', async () => {
    const email = uniqueEmail();
    const old = await codeFor(email);
    api.clock.advance(61);
    const fresh = await codeFor(email);
    if (fresh === old) return; // one chance in a million: nothing to tell apart
    expectError(await verify(email, old), 400, 1, 'CODE_INVALID');
    expect((await verify(email, fresh)).status).toBe(200);
  });

  it('refuses malformed codes and targets with VALIDATION_FAILED details', async () => {
    const response = await api.request('POST', '/api/verify-code/verify', { body: { target: 'nobody', verifyCode: '12ab' } });
    expectError(response, 400, 400, 'VALIDATION_FAILED');
    expect(response.body.details.map((detail: { path: string }) => detail.path).sort()).toEqual(['body.target', 'body.verifyCode']);
  });
});

describe('request errors of the code endpoints', () => {
  it('answers a body that is not JSON with 400 INVALID_JSON', async () => {
    const response = await api.request('POST', '/api/verify-code/send', {
      rawBody: '{"type":"email","target":',
      headers: { 'content-type': 'application/json' },
    });
    expectError(response, 400, 400, 'INVALID_JSON');
  });

  it('answers a JSON body sent with another content type with 400 INVALID_JSON', async () => {
    const body = JSON.stringify({ type: 'email', target: uniqueEmail() });
    expectError(await api.request('POST', '/api/verify-code/send', { rawBody: body, headers: { 'content-type': 'text/plain' } }), 400, 400, 'INVALID_JSON');
    expectError(await api.request('POST', '/api/verify-code/send', { rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 400, 'INVALID_JSON');
  });

  it('answers a missing body with 400, never a 500', async () => {
    const response = await api.request('POST', '/api/verify-code/verify', { headers: { 'content-type': 'application/json' } });
    expectError(response, 400, 400, 'INVALID_JSON');
  });

  it('answers missing and mistyped fields with VALIDATION_FAILED and details', async () => {
    const missing = await api.request('POST', '/api/verify-code/send', { body: {} });
    expectError(missing, 400, 400, 'VALIDATION_FAILED');
    expect(missing.body.details).toEqual(expect.arrayContaining([{ path: 'body.type', message: expect.any(String) }]));
    const mistyped = await api.request('POST', '/api/verify-code/verify', { body: { target: uniqueEmail(), verifyCode: 123456 } });
    expectError(mistyped, 400, 400, 'VALIDATION_FAILED');
    expect(mistyped.body.details).toEqual([{ path: 'body.verifyCode', message: expect.any(String) }]);
    const notAnObject = await api.request('POST', '/api/verify-code/send', { body: ['email', 'a@example.com'] });
    expectError(notAnObject, 400, 400, 'VALIDATION_FAILED');
  });

  it('answers an unknown path with 404 {code:404}, and a method the path lacks with 405 and Allow (locally; API Gateway: 404)', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing-here'],
      ['POST', '/api/verify-code/resend'],
      ['POST', '/api/v2/verify-code/send'],
    ] as const) {
      const response = await api.request(method, path, method === 'GET' ? {} : { body: {} });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toMatchObject({ code: 404 });
    }
    for (const [method, path] of [
      ['GET', '/api/verify-code/send'],
      ['DELETE', '/api/auth/login'],
    ] as const) {
      const response = await api.request(method, path, method === 'GET' ? {} : { body: {} });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.body).toMatchObject({ code: 405, error: 'METHOD_NOT_ALLOWED' });
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('answers a body above 1 MB with 413, never a 500', async () => {
    const response = await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: uniqueEmail(), padding: 'x'.repeat(MAX_BODY_BYTES + 1) } });
    expectError(response, 413, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('lists the codes of a target at GET /dev/outbox, newest first, with the target normalised', async () => {
    const email = uniqueEmail('outbox');
    const first = await codeFor(email);
    api.clock.advance(61);
    const second = await codeFor(email);
    const response = await api.request('GET', `/dev/outbox?target=${encodeURIComponent(email.toUpperCase())}`);
    expect(response.status).toBe(200);
    expect(response.body.map((entry: { code: string }) => entry.code)).toEqual([second, first]);
    expect(response.body[0]).toEqual({
      channel: 'email',
      target: email,
      code: second,
      sentAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      locale: 'en',
      subject: expect.any(String),
      text: expect.stringContaining(second),
    });
  });

  it('serves send and verify at /api/v1 too', async () => {
    const email = uniqueEmail('v1');
    expect((await api.request('POST', '/api/v1/verify-code/send', { body: { type: 'email', target: email } })).status).toBe(200);
    const verified = await api.request('POST', '/api/v1/verify-code/verify', { body: { target: email, verifyCode: latestCode(api, email) } });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ code: 0, email });
  });
});
