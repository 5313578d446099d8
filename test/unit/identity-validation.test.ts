import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProxyHandler } from '../../shared/http/endpoint';
import { logInWithPassword, register, resetPassword, signInWithCode } from '../../shared/identity/account-service';
import { parsePhone, targetSchema } from '../../shared/identity/phone-targets';
import { emailSchema } from '../../shared/identity/targets';
import { sendCode } from '../../shared/identity/verification-service';
import { testContext } from '../support/unit-context';

/**
 * The request schemas of the identity handlers, exercised through the real handler modules (the
 * middy wrapper, zod, the error map) with the domain services replaced: no network, no table.
 */
vi.mock('../../shared/identity/verification-service', () => ({ sendCode: vi.fn(async () => undefined) }));
vi.mock('../../shared/identity/account-service', () => ({
  signInWithCode: vi.fn(async () => ({ token: 't', refreshToken: 'r', expiresIn: 86_400, userId: 1, phone: null, email: 'a@example.com' })),
  register: vi.fn(async () => ({ userId: 1, phone: null, email: 'a@example.com', createdAt: '2026-01-29T10:30:00Z' })),
  logInWithPassword: vi.fn(async () => ({ token: 't', refreshToken: 'r', expiresIn: 86_400, userId: 1, phone: null, email: 'a@example.com' })),
  resetPassword: vi.fn(async () => undefined),
}));

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body: string }>;
let handlers: Record<'send' | 'verify' | 'login' | 'register' | 'reset', Handler>;

beforeAll(async () => {
  const app = testContext();
  const load = async (path: string) => ((await import(path)) as { handler: ProxyHandler }).handler.withContext(app) as Handler;
  handlers = {
    send: await load('../../functions/verify-code/send'),
    verify: await load('../../functions/verify-code/verify'),
    login: await load('../../functions/auth/login'),
    register: await load('../../functions/auth/register'),
    reset: await load('../../functions/auth/password-reset'),
  };
});
beforeEach(() => vi.clearAllMocks());

async function call(name: keyof typeof handlers, body: unknown, headers: Record<string, string> = {}) {
  const event = {
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { requestId: 'unit' },
  } as unknown as APIGatewayProxyEvent;
  const result = await handlers[name](event, { awsRequestId: 'unit' } as Context);
  return { status: result.statusCode, body: JSON.parse(result.body) };
}

const expectInvalid = (response: { status: number; body: any }, path: string) => {
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
  expect(response.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
};

/** A syntactically valid address of exactly `length` characters: 60-character labels, then `.com`. */
function emailOfLength(length: number): string {
  let domain = '';
  let room = length - '@com'.length - 60;
  while (room > 0) {
    // Each label is followed by a dot; never leave a single character, which cannot make a label.
    let label = Math.min(60, room - 1);
    if (room - (label + 1) === 1) label -= 1;
    domain += `${'b'.repeat(label)}.`;
    room -= label + 1;
  }
  return `${'a'.repeat(60)}@${domain}com`;
}

describe('targets', () => {
  it('e-mail: trimmed, lower-cased, at most 254 characters as sent (the maxLength the API reference states)', () => {
    expect(emailSchema.parse('  Foo.Bar+Tag@Example.COM \t')).toBe('foo.bar+tag@example.com');
    expect([emailOfLength(254).length, emailOfLength(255).length, emailOfLength(123).length]).toEqual([254, 255, 123]);
    expect(emailSchema.safeParse(emailOfLength(254)).success).toBe(true);
    expect(emailSchema.safeParse(emailOfLength(254).toUpperCase()).data).toBe(emailOfLength(254));
    expect(emailSchema.safeParse(` ${emailOfLength(252).toUpperCase()} `).data).toBe(emailOfLength(252));
    expect(emailSchema.safeParse(` ${emailOfLength(254)}`).success).toBe(false);
    expect(emailSchema.safeParse(emailOfLength(255)).success).toBe(false);
    for (const bad of ['', 'plain', 'a@', '@example.com', 'a b@example.com', 'a@example']) expect(emailSchema.safeParse(bad).success).toBe(false);
  });

  it('phone: parsed with libphonenumber-js into E.164, international form only', () => {
    expect(parsePhone('+86 138 0013 8000')).toEqual({ kind: 'phone', value: '+8613800138000', countryCallingCode: '86' });
    expect(parsePhone('+1 (650) 253-0000')).toEqual({ kind: 'phone', value: '+16502530000', countryCallingCode: '1' });
    expect(parsePhone(' +44 7911 123456 ')?.value).toBe('+447911123456');
    for (const bad of ['13800138000', '+86123', '+999 1234567', 'phone', '', `+86${'1'.repeat(40)}`]) expect(parsePhone(bad)).toBeUndefined();
  });

  it('a target of verify/reset is an e-mail or a phone, told apart by the @', () => {
    expect(targetSchema.parse(' A@Example.com ')).toEqual({ kind: 'email', value: 'a@example.com' });
    expect(targetSchema.parse('+86 13800138000')).toMatchObject({ kind: 'phone', value: '+8613800138000' });
    expect(targetSchema.safeParse('a@b@c').success).toBe(false);
    expect(targetSchema.safeParse('x'.repeat(300)).success).toBe(false);
  });
});

describe('POST /api/verify-code/send body', () => {
  it('normalises an e-mail target before the service sees it', async () => {
    const response = await call('send', { type: 'email', target: '  Foo.Bar@Example.COM ' });
    expect(response).toEqual({ status: 200, body: { code: 0, message: expect.any(String) } });
    expect(sendCode).toHaveBeenCalledWith(expect.anything(), { kind: 'email', value: 'foo.bar@example.com' }, undefined);
  });

  it('normalises a phone target to E.164', async () => {
    expect((await call('send', { type: 'sms', target: '+86 138-0013-8000' })).status).toBe(200);
    expect(sendCode).toHaveBeenCalledWith(expect.anything(), { kind: 'phone', value: '+8613800138000', countryCallingCode: '86' }, undefined);
  });

  it('accepts a 254-character address and refuses a 255-character one', async () => {
    expect((await call('send', { type: 'email', target: emailOfLength(254) })).status).toBe(200);
    expectInvalid(await call('send', { type: 'email', target: emailOfLength(255) }), 'body.target');
  });

  it('refuses a type that does not match the target', async () => {
    expectInvalid(await call('send', { type: 'email', target: '+8613800138000' }), 'body.target');
    expectInvalid(await call('send', { type: 'sms', target: 'a@example.com' }), 'body.target');
    expect(sendCode).not.toHaveBeenCalled();
  });

  it('refuses an unknown type, a missing target and a national phone number', async () => {
    expectInvalid(await call('send', { type: 'voice', target: '+8613800138000' }), 'body.type');
    expectInvalid(await call('send', { type: 'email' }), 'body.target');
    expectInvalid(await call('send', { type: 'sms', target: '13800138000' }), 'body.target');
    expectInvalid(await call('send', { type: 'email', target: 42 }), 'body.target');
  });

  it('chooses the message language: locale field, then Accept-Language, else leaves it to the account (undefined)', async () => {
    await call('send', { type: 'email', target: 'a@example.com', locale: 'zh-CN' }, { 'Accept-Language': 'en' });
    await call('send', { type: 'email', target: 'a@example.com' }, { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' });
    await call('send', { type: 'email', target: 'a@example.com' });
    await call('send', { type: 'email', target: 'a@example.com', locale: 'fr' });
    await call('send', { type: 'email', target: 'a@example.com' }, { 'Accept-Language': '*' });
    await call('send', { type: 'email', target: 'a@example.com' }, { 'Accept-Language': 'fr-FR, en;q=0.5' });
    expect(vi.mocked(sendCode).mock.calls.map((args) => args[2])).toEqual(['zh-CN', 'zh-CN', undefined, undefined, undefined, 'en']);
  });
});

describe('POST /api/verify-code/verify body', () => {
  it('normalises the target and keeps the code as a string of six digits', async () => {
    expect((await call('verify', { target: ' User@Example.COM', verifyCode: '012345' })).status).toBe(200);
    expect(signInWithCode).toHaveBeenCalledWith(expect.anything(), { kind: 'email', value: 'user@example.com' }, '012345', 'unknown');
  });

  it('names the session from clientName, else the User-Agent (64 characters), else "unknown"', async () => {
    await call('verify', { target: 'a@example.com', verifyCode: '012345', clientName: 'Pixel 8 · Captions 2.3' }, { 'User-Agent': 'okhttp/4.12' });
    await call('verify', { target: 'a@example.com', verifyCode: '012345' }, { 'user-agent': `Captions/2.3 ${'x'.repeat(100)}` });
    await call('verify', { target: 'a@example.com', verifyCode: '012345' });
    const names = vi.mocked(signInWithCode).mock.calls.map((args) => args[3]);
    expect(names).toEqual(['Pixel 8 · Captions 2.3', `Captions/2.3 ${'x'.repeat(51)}`, 'unknown']);
  });

  it('refuses a clientName that is empty, blank, longer than 64 characters or not text', async () => {
    for (const clientName of ['', '   ', '字'.repeat(65), 42]) {
      expectInvalid(await call('verify', { target: 'a@example.com', verifyCode: '012345', clientName }), 'body.clientName');
    }
    expect((await call('verify', { target: 'a@example.com', verifyCode: '012345', clientName: '字'.repeat(64) })).status).toBe(200);
  });

  it('refuses a code that is not six digits, and a target that is neither e-mail nor phone', async () => {
    for (const verifyCode of ['12345', '1234567', '12345a', 123456, ' 123456']) {
      expectInvalid(await call('verify', { target: 'a@example.com', verifyCode }), 'body.verifyCode');
    }
    expectInvalid(await call('verify', { target: 'someone', verifyCode: '123456' }), 'body.target');
    expectInvalid(await call('verify', { verifyCode: '123456' }), 'body.target');
    expect(signInWithCode).not.toHaveBeenCalled();
  });
});

describe('POST /api/auth/login body', () => {
  it('takes a phone or an e-mail, normalised', async () => {
    await call('login', { phone: '+86 138 0013 8000', password: 'whatever1' });
    await call('login', { email: 'A@Example.com', password: 'whatever1' });
    expect(vi.mocked(logInWithPassword).mock.calls.map((args) => args[1].value)).toEqual(['+8613800138000', 'a@example.com']);
  });

  it('answers with the seed\'s token, userId, phone and email and the session\'s refreshToken and expiresIn (no code/message envelope)', async () => {
    const response = await call('login', { email: 'a@example.com', password: 'whatever1', clientName: 'iPhone' });
    expect(response.body).toEqual({ token: 't', refreshToken: 'r', expiresIn: 86_400, userId: 1, phone: null, email: 'a@example.com' });
    expect(vi.mocked(logInWithPassword).mock.calls[0]![3]).toBe('iPhone');
  });

  it('wants exactly one of phone and email', async () => {
    expectInvalid(await call('login', { password: 'whatever1' }), 'body.email');
    expectInvalid(await call('login', { email: 'a@example.com', phone: '+8613800138000', password: 'whatever1' }), 'body.email');
    expect(logInWithPassword).not.toHaveBeenCalled();
  });

  it('refuses a missing, empty or 129-character password', async () => {
    expectInvalid(await call('login', { email: 'a@example.com' }), 'body.password');
    expectInvalid(await call('login', { email: 'a@example.com', password: '' }), 'body.password');
    expectInvalid(await call('login', { email: 'a@example.com', password: 'p'.repeat(129) }), 'body.password');
    expect(logInWithPassword).not.toHaveBeenCalled();
  });
});

describe('POST /api/auth/register body', () => {
  it('takes an e-mail or a phone with a code and a password', async () => {
    await call('register', { email: 'New@Example.com', verifyCode: '000001', password: 'p'.repeat(128) });
    await call('register', { phone: '+8613800138000', verifyCode: '000001', password: 'p'.repeat(8) });
    expect(vi.mocked(register).mock.calls.map((args) => args[1])).toEqual([
      { kind: 'email', value: 'new@example.com' },
      { kind: 'phone', value: '+8613800138000', countryCallingCode: '86' },
    ]);
  });

  it('wants exactly one of phone and email, a code and an 8..128-character password', async () => {
    expectInvalid(await call('register', { verifyCode: '000001', password: 'p'.repeat(8) }), 'body.email');
    expectInvalid(await call('register', { email: 'a@example.com', phone: '+8613800138000', verifyCode: '000001', password: 'p'.repeat(8) }), 'body.email');
    expectInvalid(await call('register', { email: 'a@example.com', verifyCode: '000001', password: 'p'.repeat(7) }), 'body.password');
    expectInvalid(await call('register', { email: 'a@example.com', verifyCode: '000001', password: 'p'.repeat(129) }), 'body.password');
    expectInvalid(await call('register', { email: 'a@example.com', password: 'p'.repeat(8) }), 'body.verifyCode');
    expect(register).not.toHaveBeenCalled();
  });
});

describe('POST /api/auth/password/reset body', () => {
  it('takes a target, a code and a new 8..128-character password', async () => {
    expect((await call('reset', { target: '+86 138 0013 8000', verifyCode: '123456', newPassword: 'new-password' })).body).toEqual({
      code: 0,
      message: expect.any(String),
    });
    expect(resetPassword).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ value: '+8613800138000' }), '123456', 'new-password');
    expectInvalid(await call('reset', { target: 'a@example.com', verifyCode: '123456', newPassword: 'short' }), 'body.newPassword');
    expectInvalid(await call('reset', { target: 'a@example.com', verifyCode: '123456', newPassword: 'p'.repeat(129) }), 'body.newPassword');
  });
});
