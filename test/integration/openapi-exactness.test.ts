import { readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_DOCUMENT } from '../../infra/tools/openapi';
import type { OpenApiDocument } from '../../infra/tools/openapi';
import { isCommonPassword } from '../../shared/identity/common-passwords';
import { PHONE_PATTERN, parsePhone } from '../../shared/identity/phone-targets';
import { isoSeconds } from '../../shared/ports/clock';
import { TIME_ZONE_NAME } from '../../shared/time-zones';
import { findRoute } from '../../shared/routes';
import type { RouteId } from '../../shared/routes';
import { SchemaSampler } from '../support/json-schema-arbitrary';
import type { JsonSchema, Override } from '../support/json-schema-arbitrary';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { ApiResponse, LocalApi, RequestOptions } from '../support/local-api';
import { atPointer, documentAjv, pointerSegment } from '../support/openapi-ajv';
import { sampledElsewhere } from '../support/sampled-elsewhere';

/**
 * The OpenAPI document says exactly what the service accepts (issue 28). For every operation,
 * requests drawn from the document's own schemas (and kept only when the document's validator
 * says they are valid) are sent to the local server: none may be refused as invalid
 * (`VALIDATION_FAILED`, `INVALID_JSON`), whatever else the answer is (a wrong code, an unknown
 * id). And requests the document forbids (a valid one with one value broken or one field dropped,
 * which the validator then refuses) must be refused with 400 `VALIDATION_FAILED`.
 *
 * The rules JSON Schema cannot state are named in the operations' descriptions ("Checked beyond
 * the schema"); values under those rules are drawn from what satisfies them: phone numbers that
 * exist, time zones ICU knows, a `startedAt` inside its window, uncommon new passwords. A list's
 * `cursor` is left out: only a cursor the list gave is one.
 */
const committed = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as OpenApiDocument;

interface Operation {
  key: string;
  method: string;
  template: string;
  pointer: string;
  bearer: boolean;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  body?: { required: boolean; pointer: string };
}

/** 401s that refuse a credential sent in the body, not the caller's token. */
const BODY_CREDENTIAL_REFUSALS = ['PASSKEY_INVALID', 'SOCIAL_CREDENTIAL_INVALID'];

const allOperations: Operation[] = Object.entries(committed.paths).flatMap(([template, item]) =>
  Object.entries(item).map(([method, operation]) => {
    const pointer = `#/paths/${pointerSegment(template)}/${method}`;
    const parameters = (operation.parameters ?? []).map((parameter) =>
      (parameter.$ref ? atPointer(committed, parameter.$ref as string) : parameter) as Operation['parameters'][number],
    );
    const body = operation.requestBody
      ? { required: operation.requestBody.required === true, pointer: `${pointer}/requestBody/content/application~1json/schema` }
      : undefined;
    return { key: `${method.toUpperCase()} ${template}`, method: method.toUpperCase(), template, pointer, bearer: operation.security.length > 0, parameters, body };
  }),
);
/**
 * The operations sampled here: all but those another file holds to their rules (the passkey
 * ceremonies: test/support/sampled-elsewhere.ts says which and why; the coverage check's place
 * "exactness" holds that file to request each of them).
 */
const operations = allOperations.filter((operation) => {
  return sampledElsewhere(findRoute(`${operation.method} /api${operation.template}` as RouteId)) === undefined;
});

let api: LocalApi;
let document: OpenApiDocument;
let ajv: ReturnType<typeof documentAjv>;
let sampler: SchemaSampler;

beforeAll(async () => {
  // fast-check builds its table of code points on first use (a second or more of CPU here): done
  // before the server holds idle keep-alive sockets, which a stall of the process could reset.
  fc.sample(fc.string({ unit: 'binary', minLength: 1 }), 1);
  api = await startLocalApi();
  document = (await api.request('GET', '/api/openapi.json')).body;
  // `format` asserts nothing here (JSON Schema's default): `0@com` is an e-mail under some
  // validators' `format: email`, so the document says what it allows with patterns and lengths.
  ajv = documentAjv(document, { formats: false });
  sampler = new SchemaSampler(document, underRulesBeyondTheSchema);
});
afterAll(() => api?.close());

const printable = (min: number, max: number) =>
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: min, maxLength: max });

/** Numbers of several countries, in the forms people type them: the pattern's form, and numbers that exist. */
const phoneNumber = fc
  .oneof(
    fc.integer({ min: 0, max: 99_999_999 }).map((n) => `+86 139 ${String(n).padStart(8, '0').replace(/^(\d{4})/, '$1 ')}`),
    fc.constantFrom('+1 (650) 253-0000', '+44 7911 123456', ' +8613800138000 ', '+49 1512 3456789', '+33 6 12 34 56 78', '+81 90-1234-5678', '+61 412 345 678'),
  )
  .filter((phone) => parsePhone(phone) !== undefined);

const timeZone = fc
  .constantFrom(...Intl.supportedValuesOf('timeZone'))
  .chain((zone) => fc.constantFrom(zone, zone.toLowerCase(), zone.toUpperCase()));

const DAY_MS = 86_400_000;

/** The values of the rules the descriptions name, where the schema alone would draw ones the server refuses. */
const underRulesBeyondTheSchema: Override = (schema, name) => {
  if (schema.pattern === PHONE_PATTERN.source) return phoneNumber;
  if (schema.pattern === TIME_ZONE_NAME.source) return timeZone;
  if (name === 'startedAt' && schema.type === 'string') {
    const now = api.clock.now().getTime();
    return fc.integer({ min: now - 365 * DAY_MS, max: now + 4 * 60_000 }).map((ms) => isoSeconds(new Date(ms)));
  }
  // An event's time: at most 5 minutes ahead and 30 days back of the service's clock (issue 29).
  if (name === 'occurredAt' && schema.type === 'string') {
    const now = api.clock.now().getTime();
    return fc.integer({ min: now - 29 * DAY_MS, max: now + 4 * 60_000 }).map((ms) => isoSeconds(new Date(ms)));
  }
  // Search and filters (GET /transcriptions): rules beyond the schema (a day of the calendar,
  // `from` not after `to`, balanced quotes) are named in the description; drawn within them.
  if (name === 'q') return fc.constantFrom('dose', '会议', '"three pm" meeting', 'cafe');
  if (name === 'from' || name === 'to') {
    const start = Date.UTC(name === 'from' ? 2020 : 2024, 0, 1);
    return fc.integer({ min: 0, max: 3 * 365 }).map((days) => new Date(start + days * DAY_MS).toISOString().slice(0, 10));
  }
  if (/password/i.test(name ?? '') && schema.type === 'string') {
    const min: number = schema.minLength ?? 0;
    return fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(schema.maxLength ?? 128, min + 24) }).filter((password) => !isCommonPassword(password));
  }
  // Header values are visible ASCII on the wire.
  if (name === 'Accept-Language') return printable(0, 40);
  return undefined;
};

interface DrawnRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body?: unknown;
}

/** A parameter as the server reads it (digits mean the integer they spell) for the document's validator. */
const asTyped = (schema: JsonSchema, value: unknown) => (schema.type === 'integer' && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value);

function validates(pointer: string, value: unknown): boolean {
  const validate = ajv.getSchema(`openapi.json${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate(value) as boolean;
}

/** Whether the document allows a request: every parameter, and the body. */
function documentAllows(operation: Operation, request: DrawnRequest): boolean {
  for (const parameter of operation.parameters) {
    const where = parameter.in === 'header' ? request.headers : request[parameter.in];
    const value = where[parameter.name];
    if (value === undefined) {
      if (parameter.required) return false;
      continue;
    }
    if (!ajv.validate(parameter.schema, asTyped(parameter.schema, value))) return false;
  }
  if (request.body === undefined) return !operation.body?.required;
  return operation.body !== undefined && validates(operation.body.pointer, request.body);
}

function requests(operation: Operation): fc.Arbitrary<DrawnRequest> {
  const part = (location: 'path' | 'query' | 'header') => {
    // A cursor is only one the list gave: never drawn.
    const parameters = operation.parameters.filter((parameter) => parameter.in === location && parameter.name !== 'cursor');
    const model = Object.fromEntries(parameters.map((parameter) => [parameter.name, sampler.arbitrary(parameter.schema, parameter.name)]));
    return fc.record(model, { requiredKeys: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name) });
  };
  const body = operation.body ? sampler.arbitrary(atPointer(document, operation.body.pointer)) : fc.constant(undefined);
  return fc
    .record({ path: part('path'), query: part('query'), headers: part('header'), body: operation.body?.required === false ? fc.option(body, { nil: undefined }) : body })
    .map((request) => ({ ...request, headers: request.headers as Record<string, string> }));
}

/**
 * The body's schema, where it names the account's current password (`currentPassword`: required
 * once the account has one, checked against it). The sampler never draws the account's password,
 * so such a request is sent from an account that has none yet (made by code), its own: a request
 * before it would otherwise have set one, and every one after it would be refused for that.
 */
const takesCurrentPassword = (operation: Operation): boolean => {
  if (!operation.body) return false;
  const schema = atPointer(committed, operation.body.pointer);
  return Boolean((schema.$ref ? atPointer(committed, schema.$ref as string) : schema).properties?.currentPassword);
};

const newCaller = async () => (await signIn(api, uniqueEmail('exact'))).token;

let callerToken: string | undefined;
/**
 * Sends a request of the operation with the caller's token (a bearer operation's): one account,
 * kept while its token works. An operation may end it (the account deleted, its sessions ended):
 * a 401 that refuses the token, not a credential of the body, is checked with a plain read with
 * the same token (GET /users/me); when that is refused too, the token was ended by a request
 * before, and this one is sent again from a new account. A 401 the read does not confirm is the
 * operation's own answer, and stands.
 */
async function asCaller(operation: Operation, sendWith: (token: string | undefined) => Promise<ApiResponse>): Promise<ApiResponse> {
  if (!operation.bearer) return sendWith(undefined);
  if (takesCurrentPassword(operation)) return sendWith(await newCaller());
  callerToken ??= await newCaller();
  const response = await sendWith(callerToken);
  if (response.status !== 401 || BODY_CREDENTIAL_REFUSALS.includes(response.body?.error)) return response;
  if ((await api.request('GET', '/api/users/me', { token: callerToken })).status !== 401) return response;
  callerToken = await newCaller();
  return sendWith(callerToken);
}

async function send(operation: Operation, request: DrawnRequest): Promise<ApiResponse> {
  const path = operation.template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(String(request.path[name])));
  const query = new URLSearchParams(Object.entries(request.query).map(([name, value]): [string, string] => [name, String(value)])).toString();
  return asCaller(operation, (token) =>
    api.request(operation.method, `/api${path}${query ? `?${query}` : ''}`, {
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(token ? { token } : {}),
    }),
  );
}

const described = (request: DrawnRequest, response: ApiResponse) => `${JSON.stringify(request).slice(0, 600)} -> ${response.status} ${JSON.stringify(response.body).slice(0, 400)}`;

describe('requests the document allows are accepted', () => {
  it.each(operations.map((operation) => [operation.key, operation] as const))('%s', async (_key, operation) => {
    await fc.assert(
      fc.asyncProperty(requests(operation), async (request) => {
        // The sampler draws candidates; the document's validator has the last word (a skip, not a loop, when it says no).
        fc.pre(documentAllows(operation, request));
        const response = await send(operation, request);
        expect(response.status, described(request, response)).toBeLessThan(500);
        expect(['VALIDATION_FAILED', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE'], described(request, response)).not.toContain(response.body?.error);
        // A refused token would answer before the request is checked at all; a 401 may only name
        // a credential of the body that its own verification refused (a provider's token drawn from the shape).
        if (operation.bearer && response.status === 401) expect(BODY_CREDENTIAL_REFUSALS, described(request, response)).toContain(response.body?.error);
      }),
      // The test server hashes at a test's scrypt cost (test/support/local-api.ts): the password routes take as many runs as any.
      { numRuns: 20 },
    );
  }, 120_000);
});

/** Values that break one rule or another; the document's validator decides which of them a mutation is. */
const BREAKING_VALUES: unknown[] = ['', ' ', '\t', 'x', 'left', '0@com', 'Mars/Olympus', 'a'.repeat(300), 0, -1, 1.5, 86_401, true, null, {}, [], ['x']];
const BREAKING_PARAMETERS = ['0', '-1', '1.5', 'abc', 'x'.repeat(65), '9007199254740992', 'a b', '101', '367'];

type Mutation = { where: 'body'; path: (string | number)[]; drop: boolean; value: unknown } | { where: 'path' | 'query' | 'header'; name: string; value: string };

/** Every place in a JSON value: its own path and those of its members. */
function places(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [path, ...value.flatMap((item, index) => places(item, [...path, index]))];
  if (value !== null && typeof value === 'object') return [path, ...Object.entries(value).flatMap(([key, item]) => places(item, [...path, key]))];
  return [path];
}

function mutated(request: DrawnRequest, mutation: Mutation): DrawnRequest {
  const copy = structuredClone(request);
  if (mutation.where !== 'body') {
    const target = mutation.where === 'header' ? copy.headers : copy[mutation.where];
    target[mutation.name] = mutation.value;
    return copy;
  }
  if (mutation.path.length === 0) return { ...copy, body: mutation.value };
  const parent = mutation.path.slice(0, -1).reduce((node: any, key) => node[key], copy.body as any);
  const last = mutation.path.at(-1)!;
  if (mutation.drop && !Array.isArray(parent)) delete parent[last];
  else parent[last] = mutation.value;
  return copy;
}

function forbiddenRequests(operation: Operation): fc.Arbitrary<DrawnRequest> {
  const parameters = operation.parameters.filter((parameter) => parameter.name !== 'cursor' && parameter.name !== 'Accept-Language');
  return requests(operation).chain((request) => {
      const mutations: fc.Arbitrary<Mutation>[] = [];
      if (request.body !== undefined) {
        mutations.push(
          fc.record({
            where: fc.constant('body' as const),
            path: fc.constantFrom(...places(request.body)),
            drop: fc.boolean(),
            value: fc.constantFrom(...BREAKING_VALUES),
          }),
        );
      }
      if (parameters.length > 0) {
        mutations.push(
          fc.record({
            where: fc.constant('parameter' as const),
            parameter: fc.constantFrom(...parameters),
            value: fc.constantFrom(...BREAKING_PARAMETERS),
          }).map(({ parameter, value }): Mutation => ({ where: parameter.in, name: parameter.name, value })),
        );
      }
      // Nothing to break (a logout without its optional body): the precondition skips it.
      return mutations.length === 0 ? fc.constant(request) : fc.oneof(...mutations).map((mutation) => mutated(request, mutation));
    });
}

describe('requests the document forbids are refused', () => {
  // A cursor is never drawn (only one the list gave is valid), so it gives nothing to break either.
  const breakable = operations.filter((operation) => operation.body || operation.parameters.some((parameter) => parameter.name !== 'Accept-Language' && parameter.name !== 'cursor'));
  it.each(breakable.map((operation) => [operation.key, operation] as const))('%s', async (_key, operation) => {
    await fc.assert(
      fc.asyncProperty(forbiddenRequests(operation), async (request) => {
        // Many a mutation is still allowed ('x' for a free text): only the ones the document forbids count.
        fc.pre(!documentAllows(operation, request));
        const response = await send(operation, request);
        expect(response.status, described(request, response)).toBe(400);
        expect(response.body.error, described(request, response)).toBe('VALIDATION_FAILED');
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});

/** The requests of issue 28's table: each was valid under the document and refused by the service. */
describe('issue 28: requests the document allowed and the service refused', () => {
  const operationAt = (key: string) => operations.find((operation) => operation.key === key)!;

  async function refusedByBoth(key: string, body: unknown, detailPath: string) {
    const operation = operationAt(key);
    expect(validates(operation.body!.pointer, body), `${key} ${JSON.stringify(body)}: the document allows it`).toBe(false);
    const response = await api.request(operation.method, `/api${operation.template.replace('{id}', '1')}`, {
      body,
      ...(operation.bearer ? { token: (await signIn(api, uniqueEmail('table'))).token } : {}),
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('VALIDATION_FAILED');
    expect(response.body.details.map((detail: { path: string }) => detail.path)).toContain(detailPath);
  }

  it('an event value of another type: {"eventType":"volume_detection","eventValue":"bottom"}, alone and in a batch', async () => {
    const event = { eventType: 'volume_detection', eventValue: 'bottom' };
    await refusedByBoth('POST /behavior/events', event, 'body.eventValue');
    await refusedByBoth('POST /behavior/events/batch', { events: [event] }, 'body.events.0.eventValue');
  });

  it('an empty voice_provider value in a batch', async () => {
    await refusedByBoth('POST /behavior/events/batch', { events: [{ eventType: 'voice_provider', eventValue: '' }] }, 'body.events.0.eventValue');
  });

  it('the e-mail 0@com: send, login, register', async () => {
    await refusedByBoth('POST /verify-code/send', { type: 'email', target: '0@com' }, 'body.target');
    await refusedByBoth('POST /auth/login', { email: '0@com', password: 'violet-harbor-42' }, 'body.email');
    await refusedByBoth('POST /auth/register', { email: '0@com', verifyCode: '123456', password: 'violet-harbor-42' }, 'body.email');
  });

  it('an empty phone: login, register, PUT /users/me/phone, an SMS target', async () => {
    await refusedByBoth('POST /auth/login', { phone: '', password: 'violet-harbor-42' }, 'body.phone');
    await refusedByBoth('POST /auth/register', { phone: '', verifyCode: '123456', password: 'violet-harbor-42' }, 'body.phone');
    await refusedByBoth('PUT /users/me/phone', { phone: '', verifyCode: '123456' }, 'body.phone');
    await refusedByBoth('POST /verify-code/send', { type: 'sms', target: '' }, 'body.target');
  });

  it('an empty PATCH: /users/me and /transcriptions/{id}', async () => {
    await refusedByBoth('PATCH /users/me', {}, 'body');
    await refusedByBoth('PATCH /transcriptions/{id}', {}, 'body');
  });

  it('an empty time zone', async () => {
    await refusedByBoth('PATCH /users/me', { timeZone: '' }, 'body.timeZone');
  });

  it('a blank product model', async () => {
    await refusedByBoth('POST /devices', { sn: 'CG2-EXACT-1', mac: '3C:71:BF:4A:92:1E', productModel: ' ' }, 'body.productModel');
  });
});

/**
 * The other way round (issue 46): what the server enforces, the document states. Every answer of
 * the shared wrapper (shared/http/endpoint.ts) that a request can provoke is among its
 * operation's responses, with its `error`: a body over the limit on every operation, a body sent
 * to one that declares none, a body that is not JSON, a missing token. And every rule the server
 * applies to a parameter is in the parameter's schema: a value the server refuses as invalid for
 * that parameter (`details` naming it) is one the document refuses too.
 */
describe('what the server enforces, the document states', () => {
  /** A request the document allows, to change one thing of. */
  const baseRequest = (operation: Operation): DrawnRequest => {
    const request = fc.sample(requests(operation), { numRuns: 50, seed: 46 }).find((drawn) => documentAllows(operation, drawn));
    if (!request) throw new Error(`${operation.key}: no request the document allows was drawn`);
    return request;
  };

  /** The operation's path with parameters of its schemas: the wrapper answers before anything reads them. */
  const somePath = (operation: Operation): string => {
    const values = Object.fromEntries(
      operation.parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => [parameter.name, parameter.schema.examples?.[0] ?? fc.sample(sampler.arbitrary(parameter.schema, parameter.name), { numRuns: 1, seed: 46 })[0]]),
    );
    return `/api${operation.template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(String(values[name])))}`;
  };

  /** The answer is one the operation lists: its status, and a body of that status's schema (the `error` among its names). */
  function documented(operation: Operation, response: ApiResponse, what: string) {
    const described = `${operation.key} ${what}: ${response.status} ${JSON.stringify(response.body)?.slice(0, 300)}`;
    const listed = atPointer(committed, operation.pointer).responses[String(response.status)];
    expect(listed, `${described}: the status is not in the operation`).toBeDefined();
    const pointer = listed.$ref ? `${listed.$ref as string}/content/application~1json/schema` : `${operation.pointer}/responses/${response.status}/content/application~1json/schema`;
    expect(validates(pointer, response.body), `${described}: not the documented body (its error not listed?)`).toBe(true);
  }

  it.each(allOperations.map((operation) => [operation.key, operation] as const))('%s: the wrapper’s answers', async (_key, operation) => {
    const path = somePath(operation);
    const as = (options: RequestOptions) => asCaller(operation, (token) => api.request(operation.method, path, { ...options, ...(token ? { token } : {}) }));
    const oversized = await as({ body: { text: 'x'.repeat(1_600_000) } });
    expect(oversized.status).toBe(413);
    documented(operation, oversized, 'a body over 1.5 MB');
    if (operation.body) {
      const notJson = await as({ rawBody: 'text=1', headers: { 'content-type': 'application/json' } });
      expect(notJson.body.error).toBe('INVALID_JSON');
      documented(operation, notJson, 'a body that is not JSON');
    } else {
      // The server gives a body only to an operation that declares one: any other is refused, not ignored.
      const unread = await as({ body: {} });
      expect(unread.status).toBe(400);
      expect(unread.body.details).toEqual([{ path: 'body', message: 'this operation takes no body' }]);
      documented(operation, unread, 'a body it does not take');
    }
    if (operation.bearer) {
      const anonymous = await api.request(operation.method, path);
      expect(anonymous.status).toBe(401);
      documented(operation, anonymous, 'without a token');
    }
  }, 60_000);

  /** Values a parameter's rules may refuse: blank ones, lengths, numbers out of range, words. */
  const PROBES = ['', ' ', '  ', '\t', '\u3000', 'a', 'a b', ' a ', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(100), 'x'.repeat(101), `${'x'.repeat(100)} `, ...BREAKING_PARAMETERS];
  /** What a header can carry as sent: visible ASCII (HTTP trims the white space around a value). */
  const HEADER_PROBES = PROBES.filter((value) => /^[\x21-\x7e]*$/.test(value));

  const probed = operations.filter((operation) => operation.parameters.some((parameter) => parameter.name !== 'cursor'));
  it.each(probed.map((operation) => [operation.key, operation] as const))('%s: a parameter value the server refuses, the document refuses', async (_key, operation) => {
    const request = baseRequest(operation);
    const undocumented: string[] = [];
    // A cursor's rule is beyond any schema: only a cursor the list gave is one (named in the description).
    for (const parameter of operation.parameters.filter((candidate) => candidate.name !== 'cursor')) {
      for (const value of parameter.in === 'header' ? HEADER_PROBES : PROBES) {
        const probe = mutated(request, { where: parameter.in, name: parameter.name, value });
        const response = await send(operation, probe);
        const named = response.status === 400 && (response.body.details ?? []).some((detail: { path: string }) => detail.path === `${parameter.in}.${parameter.name}`);
        if (named && documentAllows(operation, probe)) undocumented.push(`${parameter.in} ${parameter.name}=${JSON.stringify(value)}: ${JSON.stringify(response.body.details)}`);
      }
    }
    expect(undocumented, 'refused by the server, allowed by the parameter\'s schema').toEqual([]);
  }, 120_000);
});
