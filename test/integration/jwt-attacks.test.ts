import { createHmac, randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../shared/ports/secrets';
import { latestCode, signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { ApiResponse, LocalApi } from '../support/local-api';

/**
 * Forged, damaged and misused tokens at GET /api/users/me. Every one must get the same 401
 * `{code:401}` as a request without a token: the answer never says which check refused it.
 * Tokens are crafted by hand (HMAC over `header.payload`) so that each differs from a token the
 * service would accept in exactly one way; the control test proves a hand-made token is accepted.
 */
let api: LocalApi;
let victim: { userId: number; token: string };
let other: { userId: number };
let signingKey: Uint8Array;
let refusal: ApiResponse;

beforeAll(async () => {
  api = await startLocalApi();
  victim = await signIn(api, uniqueEmail('victim'));
  other = await signIn(api, uniqueEmail('other'));
  signingKey = deriveKeys(api.rootSecret).tokenSigningKey;
  refusal = await api.request('GET', '/api/users/me');
});
afterAll(() => api?.close());

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(api.clock.now().getTime() / 1000);

/** The claims of a token the service would issue for the victim, minus `omit`, plus `changes`. */
function claims(changes: Record<string, unknown> = {}, omit: string[] = []) {
  const now = nowSeconds();
  const all: Record<string, unknown> = {
    sub: String(victim.userId),
    ver: 0,
    iss: api.config.JWT_ISSUER,
    aud: api.config.JWT_AUDIENCE,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
    ...changes,
  };
  for (const name of omit) delete all[name];
  return all;
}

function hmac(algorithm: 'sha256' | 'sha512', key: Uint8Array, signingInput: string) {
  return createHmac(algorithm, key).update(signingInput).digest('base64url');
}

/** header.payload.signature, signed with HMAC-SHA256 (or -512) over the encoded header and payload. */
function forge(payload: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }, key = signingKey, hash: 'sha256' | 'sha512' = 'sha256') {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  return `${signingInput}.${hmac(hash, key, signingInput)}`;
}

const meWith = (authorization: string) => api.request('GET', '/api/users/me', { headers: { authorization } });
const meWithToken = (token: string) => meWith(`Bearer ${token}`);

function expectRefused(response: ApiResponse, what: string) {
  expect(response.status, what).toBe(401);
  expect(response.body, what).toMatchObject({ code: 401 });
  // Byte for byte the answer to a request without a token: nothing about the reason.
  expect(response.body, what).toEqual(refusal.body);
  expect(JSON.stringify(response.body), what).not.toMatch(/expir|signature|alg|issuer|audience|claim|jwt|version|malformed|nbf|iat/i);
}

describe('tokens the service accepts (controls for the attacks below)', () => {
  it('accepts a real token, and a hand-made token with the same claims', async () => {
    expect((await meWithToken(victim.token)).status).toBe(200);
    const response = await meWithToken(forge(claims()));
    expect(response.status).toBe(200);
    expect(response.body.userId).toBe(victim.userId);
  });

  it('accepts the scheme in any case (RFC 9110: auth schemes are case-insensitive)', async () => {
    expect((await meWith(`bearer ${victim.token}`)).status).toBe(200);
  });

  it('refuses the 401 itself without saying why', () => {
    expect(refusal.status).toBe(401);
    expect(refusal.body).toMatchObject({ code: 401 });
  });
});

describe('refused with 401 {code:401}', () => {
  it('wrong or missing scheme', async () => {
    expectRefused(await meWith(`Basic ${Buffer.from('user:password').toString('base64')}`), 'Basic');
    expectRefused(await meWith(`Token ${victim.token}`), 'Token scheme');
    expectRefused(await meWith(victim.token), 'no scheme');
    expectRefused(await meWith('Bearer'), 'scheme only');
    expectRefused(await meWith('Bearer '), 'empty token');
  });

  it('alg: none in any case, with and without a signature segment', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(claims())}`;
      expectRefused(await meWithToken(`${unsigned}.`), `${alg}, empty signature`);
      expectRefused(await meWithToken(unsigned), `${alg}, no signature segment`);
      expectRefused(await meWithToken(`${unsigned}.${hmac('sha256', signingKey, unsigned)}`), `${alg}, with a valid HMAC`);
    }
  });

  it('stripped or cut signature', async () => {
    const [header, payload, signature] = victim.token.split('.') as [string, string, string];
    expectRefused(await meWithToken(`${header}.${payload}.`), 'stripped');
    expectRefused(await meWithToken(`${header}.${payload}.${signature.slice(0, -4)}`), 'cut');
    expectRefused(await meWithToken(`${header}.${payload}.${signature.slice(0, 10)}`), 'cut short');
  });

  it('payload edited, signature kept', async () => {
    const [header, , signature] = victim.token.split('.') as [string, string, string];
    expectRefused(await meWithToken(`${header}.${b64(claims({ sub: String(other.userId) }))}.${signature}`), 'sub changed');
    expectRefused(await meWithToken(`${header}.${b64(claims({ exp: nowSeconds() + 10 * 365 * 86400 }))}.${signature}`), 'exp extended');
  });

  it('signed with another secret, or with the service\'s other (code hashing) key', async () => {
    const otherService = deriveKeys(`${api.rootSecret}-but-another-one`);
    expectRefused(await meWithToken(forge(claims(), undefined, otherService.tokenSigningKey)), 'another secret');
    expectRefused(await meWithToken(forge(claims(), undefined, deriveKeys(api.rootSecret).codeHashKey)), 'code hashing key');
    expectRefused(await meWithToken(forge(claims(), undefined, new TextEncoder().encode(api.rootSecret))), 'root secret used directly');
  });

  it('HS512 header, signed with the right secret', async () => {
    expectRefused(await meWithToken(forge(claims(), { alg: 'HS512', typ: 'JWT' }, signingKey, 'sha512')), 'HS512');
  });

  it('RS256 header, signed with an RSA key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).sign(privateKey);
    expectRefused(await meWithToken(token), 'RS256');
  });

  it('expired beyond the tolerance; 10 s past exp is still within it', async () => {
    const now = nowSeconds();
    expectRefused(await meWithToken(forge(claims({ iat: now - 3600, exp: now - 31 }))), 'expired 31 s ago');
    expectRefused(await meWithToken(forge(claims({ iat: now - 7200, exp: now - 3600 }))), 'expired an hour ago');
    // The contract allows at most 30 s of clock skew, and the 31 s case above proves no more is
    // given. A token 10 s past exp is accepted: the tolerance exists (issuer and verifier clocks
    // differ) and covers a skew of 10 s, as the service documents (30 s).
    expect((await meWithToken(forge(claims({ iat: now - 3600, exp: now - 10 })))).status).toBe(200);
  });

  it('not yet valid: nbf or iat in the future beyond the tolerance', async () => {
    const now = nowSeconds();
    expectRefused(await meWithToken(forge(claims({ nbf: now + 120 }))), 'nbf in 2 minutes');
    expectRefused(await meWithToken(forge(claims({ iat: now + 120, exp: now + 3720 }))), 'iat in 2 minutes');
  });

  it('wrong iss or aud, or none', async () => {
    expectRefused(await meWithToken(forge(claims({ iss: 'someone-else' }))), 'wrong iss');
    expectRefused(await meWithToken(forge(claims({ aud: 'another-app' }))), 'wrong aud');
    expectRefused(await meWithToken(forge(claims({ aud: ['another-app'] }))), 'wrong aud list');
    expectRefused(await meWithToken(forge(claims({}, ['iss']))), 'no iss');
    expectRefused(await meWithToken(forge(claims({}, ['aud']))), 'no aud');
  });

  it('missing exp (or other required claims)', async () => {
    expectRefused(await meWithToken(forge(claims({}, ['exp']))), 'no exp');
    expectRefused(await meWithToken(forge(claims({}, ['sub']))), 'no sub');
    expectRefused(await meWithToken(forge(claims({}, ['ver']))), 'no ver');
    expectRefused(await meWithToken(forge(claims({ exp: 'tomorrow' }))), 'exp not a number');
  });

  it('two or four segments', async () => {
    const [header, payload, signature] = victim.token.split('.') as [string, string, string];
    expectRefused(await meWithToken(`${header}.${payload}`), 'two segments');
    expectRefused(await meWithToken(`${victim.token}.${signature}`), 'four segments');
    expectRefused(await meWithToken(`${header}.${payload}.${signature}.`), 'trailing dot');
    expectRefused(await meWithToken('x'), 'one segment');
  });

  it('oversized header (10 KB header segment, validly signed)', async () => {
    const token = forge(claims(), { alg: 'HS256', typ: 'JWT', pad: 'x'.repeat(10 * 1024) });
    expect(token.split('.')[0]!.length).toBeGreaterThan(10 * 1024);
    expectRefused(await meWithToken(token), 'oversized header');
  });

  it('a token of a user that does not exist', async () => {
    expectRefused(await meWithToken(forge(claims({ sub: '987654321' }))), 'unknown user id');
    expectRefused(await meWithToken(forge(claims({ sub: '0' }))), 'user id 0');
    expectRefused(await meWithToken(forge(claims({ sub: '-1' }))), 'negative user id');
    expectRefused(await meWithToken(forge(claims({ sub: `${victim.userId}.5` }))), 'fractional user id');
  });

  it('a token with a stale token version (issued before a password reset)', async () => {
    const email = uniqueEmail('reset');
    const session = await signIn(api, email);
    api.clock.advance(61);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: email } });
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target: email, verifyCode: latestCode(api, email), newPassword: 'a fresh password' },
    });
    api.clock.reset();
    expect(reset.status).toBe(200);
    const forUser = (ver: number) => forge(claims({ sub: String(session.userId), ver }));
    expectRefused(await meWithToken(session.token), 'issued before the reset');
    expectRefused(await meWithToken(forUser(0)), 'version 0 after the reset');
    expect((await meWithToken(forUser(1))).status).toBe(200);
  });

  it('a token with a version the account never had', async () => {
    expectRefused(await meWithToken(forge(claims({ ver: 1 }))), 'newer version than the account has');
    expectRefused(await meWithToken(forge(claims({ ver: -1 }))), 'negative version');
    expectRefused(await meWithToken(forge(claims({ ver: '0' }))), 'version as a string');
  });
});
