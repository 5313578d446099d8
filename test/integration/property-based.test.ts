import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, versionedPaths } from '../../shared/routes';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Random and hostile requests at every route of the route table: whatever arrives, the answer is
 * never a 5xx and every error body is `{code, message}`. Routes added to the table are covered
 * without touching this file.
 */
let api: LocalApi;
let token: string;
beforeAll(async () => {
  api = await startLocalApi();
  token = (await signIn(api, uniqueEmail('fuzz'))).token;
});
afterAll(() => api?.close());

const FIELD_NAMES = [
  'type', 'target', 'verifyCode', 'password', 'newPassword', 'email', 'phone', 'locale', 'sn', 'mac', 'productModel',
  'recordTitle', 'text', 'language', 'durationSeconds', 'eventType', 'eventValue', 'location', '__proto__', 'constructor',
];

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '', ' ', '\u0000', '💥'.repeat(50), '𠜎𠜱', '%00', '../../etc/passwd', "' OR 1=1 --", '{"$ne":null}', '<script>', 'USER#1',
    'a'.repeat(5000), '+8613800138000', 'someone@example.com', '123456', 'translation_on', '00:1A:2B:3C:4D:5E', 'zh-CN', 'NaN',
  ),
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e308, 86_401),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...FIELD_NAMES), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const body = fc.oneof(
  fc.record(Object.fromEntries(FIELD_NAMES.slice(0, 18).map((name) => [name, hostileValue])), { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  fc.json(),
  hostileString,
  fc.constantFrom('{', '[]', 'null', '"x"', '{"a":'.repeat(2000), '\u00ff\u00fe', '{"type":"email","target":{"toString":1}}'),
);
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 60 });
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/problem+json', '');
const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'days', 'x', 'target'), printable, { maxKeys: 3 });

const request = fc.record({
  route: fc.constantFrom(...routes),
  versioned: fc.boolean(),
  pathValue: hostileString,
  body,
  contentType,
  query,
  auth: fc.constantFrom('valid', 'none', 'garbage'),
  garbageAuth: printable,
  acceptLanguage: printable,
  idempotencyKey: printable,
});

describe('every route under random and hostile input', () => {
  it('never answers 5xx, and every error has a {code, message} body', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const [plain, versioned] = versionedPaths(input.route.path);
        // `/admin` paths have no /api/v1 alias.
        const path = ((input.versioned && versioned) || plain!).replace(/\{\w+\}/g, () => encodeURIComponent(input.pathValue) || 'x');
        const search = new URLSearchParams(input.query).toString();
        const headers: Record<string, string> = { 'accept-language': input.acceptLanguage, 'idempotency-key': input.idempotencyKey };
        if (input.contentType) headers['content-type'] = input.contentType;
        if (input.auth === 'valid') headers.authorization = `Bearer ${token}`;
        if (input.auth === 'garbage') headers.authorization = input.garbageAuth;
        const response = await api.request(input.route.method, `${path}${search ? `?${search}` : ''}`, {
          ...(input.route.method === 'GET' || input.route.method === 'DELETE' ? {} : { rawBody: input.body }),
          headers,
        });
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
        if (response.status >= 400) {
          expect(typeof response.body.code).toBe('number');
          expect(typeof response.body.message).toBe('string');
        }
      }),
      { numRuns: 40 * routes.length, interruptAfterTimeLimit: 90_000 },
    );
  }, 120_000);
});
