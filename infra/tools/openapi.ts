import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import * as domainErrors from '../../shared/errors';
import type { DocumentedHeader, ProxyHandler } from '../../shared/http/endpoint';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { CORS_EXPOSED_HEADERS } from '../../shared/http/headers';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_WINDOW_SECONDS } from '../../shared/http/idempotency';
import { IF_MATCH_HEADER, IF_MATCH_PATTERN } from '../../shared/http/if-match';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageQuerySchema } from '../../shared/http/pagination';
import { MAX_BODY_BYTES } from '../../shared/http/request';
import * as responseSchemas from '../../shared/api/schemas';
import { errorBodySchema } from '../../shared/api/schemas';
import { SUPPORTED_LOCALES } from '../../shared/identity/messages';
import { VERSION_PREFIX, routeId, routes } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';
import { PROJECT_ROOT } from '../project-root';

/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the schemas each
 * handler declares (request schemas with io 'input', response schemas with io 'output'): nothing
 * here restates a field. What only a reader needs (which errors mean what, the tags) is written
 * here, next to the code that derives the rest.
 *
 * Paths are written relative to `/api` and the document has two servers, `.` and `./v1`: every
 * operation answers at `/api/...` and identically at `/api/v1/...` (shared/routes.ts
 * `versionedPaths`), and a relative server resolves against wherever the document is served
 * (`<base>/api/openapi.json`), so the document is right for `npm start` on any port and for any
 * deployed stage without knowing its URL. `npm run build:docs -- --api-url <url>` makes them
 * absolute for a reference hosted elsewhere.
 */

export const API_PREFIX = '/api';
export const GENERATED_DOCUMENT = join(PROJECT_ROOT, 'shared', 'http', 'openapi-document.generated.json');
export const GENERATED_DATA_MODULE = join(PROJECT_ROOT, 'shared', 'http', 'openapi-document-data.ts');
/**
 * The support team's admin API (`/admin/...`, `auth: 'iam'`, issue 37) has a document of its own,
 * beside the public one and never served: the public document (and /docs) does not list it. The
 * support CLI's types are generated from it (ADMIN_TYPES_MODULE, by `npm run generate:openapi`).
 */
export const GENERATED_ADMIN_DOCUMENT = join(PROJECT_ROOT, 'shared', 'http', 'admin-openapi-document.generated.json');
export const ADMIN_TYPES_MODULE = join(PROJECT_ROOT, 'infra', 'tools', 'admin-api.generated.ts');

/** `public`: every route but the admin API's (GET /api/openapi.json serves it); `admin`: the `iam` routes only. */
export type DocumentKind = 'public' | 'admin';
export const routesOf = (kind: DocumentKind): RouteDefinition[] => routes.filter((route) => (route.auth === 'iam') === (kind === 'admin'));

export type JsonSchema = Record<string, unknown>;
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers: { url: string; description: string; variables?: Record<string, { default: string }> }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}
export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
  /**
   * On a POST that writes nothing and sends nothing (the route table says so): sending it twice
   * changes nothing, so a client may retry it after a lost answer like a GET.
   */
  'x-writes-nothing'?: true;
}

/** The document path of a route: `/api/devices/{sn}` -> `/devices/{sn}`; an admin route's is its own (`/admin/users`). */
export function documentPath(routePath: string): string {
  if (routePath.startsWith('/admin/')) return routePath;
  if (!routePath.startsWith(`${API_PREFIX}/`)) throw new Error(`${routePath} is not under ${API_PREFIX}/`);
  return routePath.slice(API_PREFIX.length);
}

/** The route path of a request path (`/api/v1/devices/X` or `/api/devices/X`) in document form. */
export function requestDocumentPath(requestPath: string): string {
  const prefix = requestPath.startsWith(`${VERSION_PREFIX}/`) ? VERSION_PREFIX : API_PREFIX;
  return requestPath.slice(prefix.length);
}

/** Tags by the folder of the handler (functions/<folder>/...), in the order the reference shows them. */
const TAGS: Record<string, { name: string; description: string }> = {
  'verify-code': { name: 'Sign-in', description: 'Codes by e-mail or SMS, passwords and tokens.' },
  auth: { name: 'Sign-in', description: '' },
  sessions: { name: 'Sessions', description: 'The signed-in devices of the account, and signing them out.' },
  passkeys: { name: 'Passkeys', description: 'Signing in with the face or fingerprint that unlocks the phone: adding, listing and removing passkeys, and signing in with one.' },
  social: { name: 'Apple, Google and WeChat', description: 'Signing in with Apple, Google or WeChat, and the identities linked to the account (docs/social-sign-in.md).' },
  users: { name: 'Account', description: 'The signed-in user.' },
  devices: { name: 'Devices', description: 'Captioning devices bound to the user.' },
  transcriptions: { name: 'Transcriptions', description: 'Transcription records and usage.' },
  realtime: { name: 'Live updates', description: 'The live channel that tells open apps to pull the change feed (docs/realtime.md).' },
  behavior: { name: 'Behavior', description: 'Logins and interface choices the app records, and their statistics.' },
  health: { name: 'Service', description: 'Health (the table can be read) and this reference.' },
  openapi: { name: 'Service', description: '' },
  speech: { name: 'Speech', description: 'Speech sessions: short-lived credentials of the speech providers, minutes metered by the service and limited per person (docs/speech.md).' },
  admin: { name: 'Support', description: 'The support team\'s operations on accounts and serials, IAM-signed and audited (docs/support.md).' },
};

/** Every domain error class of shared/errors.ts, by its `error` name, with what it declares. */
const DECLARED: Record<string, domainErrors.ErrorDeclaration> = Object.fromEntries(
  Object.values(domainErrors)
    .flatMap((value) => (domainErrors.isDeclaration(value) ? [value] : []))
    // By status, then name: a module namespace's order is not the same under every loader.
    .sort((a, b) => a.http.status - b.http.status || a.code.localeCompare(b.code))
    .map((declaration) => [declaration.code, declaration]),
);

// The limit is stated in words in shared/errors.ts (the domain knows no HTTP module): keep it true.
if (!DECLARED.PAYLOAD_TOO_LARGE?.description.includes(`${MAX_BODY_BYTES / 1024 / 1024} MB`)) {
  throw new Error(`PayloadTooLargeError's description must say ${MAX_BODY_BYTES / 1024 / 1024} MB (shared/http/request.ts MAX_BODY_BYTES)`);
}

/** The gateway's own answers (shared/http/gateway-responses.ts), which no domain error declares. */
const GATEWAY_ERRORS: Record<string, domainErrors.ErrorDeclaration> = {
  THROTTLED: {
    code: 'THROTTLED',
    http: { status: GATEWAY_RESPONSES.THROTTLED.status, code: GATEWAY_RESPONSES.THROTTLED.body.code },
    description: 'too many requests (gateway throttling, or the per-IP limit on code requests)',
  },
  INTERNAL: {
    code: 'INTERNAL',
    http: { status: GATEWAY_RESPONSES.DEFAULT_5XX.status, code: GATEWAY_RESPONSES.DEFAULT_5XX.body.code },
    description: 'an unexpected error; `requestId` identifies it in the logs',
  },
};

/** The gateway's refusals of the admin API's requests (AWS_IAM), in its document only. */
const ADMIN_GATEWAY_ERRORS: Record<string, domainErrors.ErrorDeclaration> = {
  FORBIDDEN: {
    code: 'FORBIDDEN',
    http: { status: GATEWAY_RESPONSES.INVALID_SIGNATURE.status, code: GATEWAY_RESPONSES.INVALID_SIGNATURE.body.code },
    description:
      'the request is not signed (Signature Version 4, service `execute-api`), is signed wrongly or for another request, is dated more than 15 minutes away, or its signer may not call this operation',
  },
};

/** What each `error` means to a caller, and its HTTP status and body code: the handlers' and the gateway's. */
const ERRORS: Record<string, domainErrors.ErrorDeclaration> = { ...DECLARED, ...GATEWAY_ERRORS, ...ADMIN_GATEWAY_ERRORS };
const ERROR_MEANINGS: Record<string, string> = Object.fromEntries(Object.entries(ERRORS).map(([name, error]) => [name, error.description]));
const ERROR_STATUS: Record<string, { status: number; code: number }> = Object.fromEntries(
  Object.entries(ERRORS).map(([name, error]) => [name, error.http]),
);

/** The `error` names whose answers carry `Retry-After`: those of the RetryLaterError classes. */
const RETRY_AFTER_ERRORS = new Set(
  Object.values(domainErrors)
    .filter((value): value is typeof domainErrors.RetryLaterError => typeof value === 'function' && value.prototype instanceof domainErrors.RetryLaterError)
    .map((ErrorClass) => (ErrorClass as unknown as domainErrors.ErrorDeclaration).code),
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition failed',
  413: 'Payload too large',
  422: 'Idempotency-Key reused',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADER_PARAMETERS: Record<DocumentedHeader, { component: string; parameter: Record<string, unknown> }> = {
  'Idempotency-Key': {
    component: 'IdempotencyKey',
    parameter: {
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description:
        `A key of your choice (a UUID, say) that makes a retry safe: a repeat with the same key within ${IDEMPOTENCY_WINDOW_SECONDS / 3600} hours ` +
        'answers the first response (with `Idempotent-Replayed: true`) and writes nothing, also when the repeats run concurrently. ' +
        'The same key with a different body answers 422. Keys are scoped to your account and this operation.',
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
      example: '3f1c2a9e-5b7d-4c1e-9f0a-6d2b8e4c7a15',
    },
  },
  'If-Match': {
    component: 'IfMatch',
    parameter: {
      name: IF_MATCH_HEADER,
      in: 'header',
      required: false,
      description:
        'The record\'s `ETag` as you last saw it (its `revision`, quoted): the change is made only on that revision, else 412 `RECORD_CHANGED` with the record as it is now in `current`, or 410 `RECORD_DELETED` when it was deleted. Without it the last writer wins. Anything but one quoted revision is a 400.',
      schema: { type: 'string', pattern: IF_MATCH_PATTERN.source },
      example: '"3"',
    },
  },
  'Accept-Language': {
    component: 'AcceptLanguage',
    parameter: {
      name: 'Accept-Language',
      in: 'header',
      required: false,
      description: `The language of the message when the body has no \`locale\`: the first supported one of ${SUPPORTED_LOCALES.map((locale) => `\`${locale}\``).join(', ')} by weight; English otherwise.`,
      schema: { type: 'string' },
      example: 'zh-CN,zh;q=0.9,en;q=0.8',
    },
  },
};

const RESPONSE_HEADERS = {
  XNextCursor: {
    description: 'Present when more items exist: pass it as `?cursor=` for the next page. Its absence, not a short page, marks the end.',
    schema: { type: 'string' },
  },
  Link: {
    description: 'With `X-Next-Cursor`: the next page as an RFC 8288 link, relative to the URL you called: `<?limit=50&cursor=...>; rel="next"`.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again: with CODE_COOLDOWN, CODE_DAILY_LIMIT and LOGIN_LOCKED (also as `retryAfterSeconds`), and on every 429 and 503.',
    schema: { type: 'integer', minimum: 1 },
  },
  ETag: {
    description: 'The record\'s `revision`, quoted (`"3"`): send it back as `If-Match` to change exactly this revision.',
    schema: { type: 'string', pattern: IF_MATCH_PATTERN.source },
  },
  IdempotentReplayed: {
    description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`, or the record an earlier create with the same `clientRecordId` saved.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/**
 * Converts zod schemas and collects the named ones (`id` metadata) as components, and the rules a
 * request schema checks that JSON Schema cannot state (`beyondSchema` metadata: a phone number
 * that exists, a time zone ICU knows), which the operation's description then names.
 */
class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};
  readonly beyondSchema = new Set<string>();

  convert(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema: _dialect, $defs, ...json } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'throw',
      // zod drops `examples` of a transforming schema in input mode (they could be outputs); ours
      // are written on request schemas, as inputs.
      override: ({ zodSchema, jsonSchema }) => {
        const meta = z.globalRegistry.get(zodSchema);
        const examples = meta?.examples;
        if (io === 'input' && examples && !jsonSchema.examples) jsonSchema.examples = examples as unknown[];
        if (typeof meta?.beyondSchema === 'string') {
          delete jsonSchema.beyondSchema;
          if (io === 'input') this.beyondSchema.add(meta.beyondSchema);
        }
        // Path and query parameters that arrive as digits and mean a number (`limit`, `days`, ids):
        // documented as the integers they are, with their bounds, so generated clients take numbers.
        const integer = meta?.integer as { minimum: number; maximum: number; default?: number } | undefined;
        if (integer) {
          delete jsonSchema.integer;
          if (io === 'input') {
            delete jsonSchema.pattern;
            Object.assign(jsonSchema, { type: 'integer', ...integer });
          }
        }
      },
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, definition] of Object.entries($defs ?? {})) {
      const known = this.components[id];
      if (known && JSON.stringify(known) !== JSON.stringify(definition)) throw new Error(`Two different schemas are named ${id}`);
      this.components[id] = definition;
    }
    return json;
  }
}

/** `#/$defs/X` (zod's) -> `#/components/schemas/X`, everywhere in the document. */
function componentRefs<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as T;
}

function operationId(route: RouteDefinition): string {
  const name = route.entry.replace(/^functions\//, '').replace(/\.ts$/, '');
  return name.replace(/[-/](\w)/g, (_match, letter: string) => letter.toUpperCase());
}

function tagOf(route: RouteDefinition) {
  const folder = route.entry.split('/')[1]!;
  const tag = TAGS[folder];
  if (!tag) throw new Error(`${routeId(route)}: no tag for functions/${folder} in infra/tools/openapi.ts`);
  return tag;
}

function parameters(converter: SchemaConverter, schema: z.core.$ZodType, location: 'query' | 'path'): Record<string, unknown>[] {
  const json = converter.convert(schema, 'input') as { type?: string; properties?: Record<string, JsonSchema>; required?: string[] };
  if (json.type !== 'object' || !json.properties) throw new Error(`${location} schema must be an object`);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: propertySchema,
    };
  });
}

/** An answer with this error as a caller may see it; the message is illustrative (it is for people and may change). */
function errorExample(name: string): Record<string, unknown> {
  const meaning = ERROR_MEANINGS[name]!.replace(/ \(`Retry-After`\)/, '').replaceAll('`', '');
  return {
    code: ERROR_STATUS[name]!.code,
    message: `${meaning[0]!.toUpperCase()}${meaning.slice(1).split(';')[0]}.`,
    error: name,
    ...(name === 'VALIDATION_FAILED' ? { details: [{ path: 'body.verifyCode', message: 'must be 6 digits' }] } : {}),
    ...(RETRY_AFTER_ERRORS.has(name) ? { retryAfterSeconds: 42 } : {}),
    ...(ERROR_STATUS[name]!.status >= 500 ? { requestId: 'c0a8e4b2-5f1d-4e7a-9b3c-2d6f8a1e0b47' } : {}),
  };
}

const pascalCase = (name: string) => name.toLowerCase().replace(/(?:^|_)(\w)/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The answer of one status. A status with a single possible error is the same answer everywhere:
 * it becomes a shared component (`#/components/responses/Unauthorized`), which keeps the document
 * (and the function that serves it) small.
 */
function errorResponse(names: string[], shared: Record<string, unknown>) {
  if (names.length === 1) {
    const component = pascalCase(names[0]!);
    shared[component] ??= errorResponseBody(names);
    return ref('responses', component);
  }
  return errorResponseBody(names);
}

function errorResponseBody(names: string[]) {
  const status = ERROR_STATUS[names[0]!]!.status;
  const codes = [...new Set(names.map((name) => ERROR_STATUS[name]!.code))].sort((a, b) => a - b);
  const lines = names.map((name) => `- \`${name}\`: ${ERROR_MEANINGS[name]}`);
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}.\n\n${lines.join('\n')}`,
    ...(names.some((name) => RETRY_AFTER_ERRORS.has(name)) || status === 429 || status === 503 ? { headers: { 'Retry-After': ref('headers', 'RetryAfter') } } : {}),
    content: {
      'application/json': {
        schema: { allOf: [ref('schemas', 'Error'), { properties: { code: { enum: codes }, error: { enum: names } } }] },
        examples: Object.fromEntries(names.map((name) => [name, { value: errorExample(name) }])),
      },
    },
  };
}

function operation(converter: SchemaConverter, sharedResponses: Record<string, unknown>, handler: ProxyHandler): Operation {
  const { route, definition } = handler;
  const id = routeId(route);
  converter.beyondSchema.clear();
  if (!definition.response) throw new Error(`${id} has no response schema`);
  const idempotent = definition.idempotency !== undefined;
  const headers: DocumentedHeader[] = [...(idempotent ? (['Idempotency-Key'] as const) : []), ...(definition.docs.headers ?? [])];
  // A list's query is the page query, or extends it (the records' search and filters).
  const isList = definition.query === pageQuerySchema || (definition.query as { shape?: { cursor?: unknown } } | undefined)?.shape?.cursor === pageQuerySchema.shape.cursor;

  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const pathParameters = definition.params ? parameters(converter, definition.params as z.core.$ZodType, 'path') : [];
  if (JSON.stringify(pathParameters.map((parameter) => parameter.name).sort()) !== JSON.stringify([...pathNames].sort())) {
    throw new Error(`${id}: the path parameters of the schema do not match the path`);
  }

  const errorNames = new Set<string>();
  // Every operation refuses a body over the limit (413), and one that takes no body refuses any
  // body (400 VALIDATION_FAILED, shared/http/middlewares/json-body.ts noBody).
  errorNames.add('VALIDATION_FAILED');
  if (definition.body) errorNames.add('INVALID_JSON');
  errorNames.add('PAYLOAD_TOO_LARGE');
  if (route.auth === 'bearer') errorNames.add('UNAUTHORIZED');
  if (route.auth === 'iam') errorNames.add('FORBIDDEN');
  if (idempotent) errorNames.add('IDEMPOTENCY_KEY_REUSED');
  for (const name of definition.docs.errors ?? []) errorNames.add(name);
  if (route.sender) errorNames.add('DELIVERY_FAILED');
  // The table, the root secret, or (on a 🔒 route) the authorizer's reads of them may be unavailable.
  if (route.table !== 'none' || route.secret || route.auth === 'bearer') errorNames.add('SERVICE_UNAVAILABLE');
  errorNames.add('THROTTLED');
  errorNames.add('INTERNAL');
  const byStatus = new Map<number, string[]>();
  for (const name of errorNames) {
    const mapped = ERROR_STATUS[name];
    if (!mapped || !ERROR_MEANINGS[name]) throw new Error(`${id}: unknown error ${name}`);
    byStatus.set(mapped.status, [...(byStatus.get(mapped.status) ?? []), name]);
  }

  const responseSchema = converter.convert(responseSchemas[definition.response], 'output');
  const successHeaders = {
    ...(isList ? { 'X-Next-Cursor': ref('headers', 'XNextCursor'), Link: ref('headers', 'Link') } : {}),
    ...(idempotent ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}),
    ...(definition.etag ? { ETag: ref('headers', 'ETag') } : {}),
  };
  const responses: Operation['responses'] = definition.created
    ? {
        '200': {
          description: 'A repeat of the request that made it: the same resource, with `Idempotent-Replayed: true`.',
          headers: { ...successHeaders, 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') },
          content: { 'application/json': { schema: responseSchema } },
        },
        '201': {
          description: 'Created',
          ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
          content: { 'application/json': { schema: responseSchema } },
        },
      }
    : {
        '200': {
          description: isList ? `A page of the list, newest first (up to \`limit\`, default ${DEFAULT_PAGE_SIZE}).` : 'OK',
          ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
          content: { 'application/json': { schema: responseSchema } },
        },
      };
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) responses[String(status)] = errorResponse(byStatus.get(status)!, sharedResponses);

  const allParameters = [
    ...pathParameters,
    ...(definition.query ? parameters(converter, definition.query as z.core.$ZodType, 'query') : []),
    ...headers.map((header) => ref('parameters', HEADER_PARAMETERS[header].component)),
  ];
  const requestBody = definition.body
    ? { required: !definition.bodyOptional, content: { 'application/json': { schema: converter.convert(definition.body as z.core.$ZodType, 'input') } } }
    : undefined;
  const description = [
    definition.docs.description,
    converter.beyondSchema.size > 0 ? `Checked beyond the schema (400 \`VALIDATION_FAILED\`): ${[...converter.beyondSchema].join('; ')}.` : undefined,
  ].filter(Boolean);
  return {
    operationId: operationId(route),
    tags: [tagOf(route).name],
    summary: definition.docs.summary,
    ...(description.length > 0 ? { description: description.join('\n\n') } : {}),
    security: route.auth === 'bearer' ? [{ bearerAuth: [] }] : route.auth === 'iam' ? [{ sigv4: [] }] : [],
    ...(allParameters.length > 0 ? { parameters: allParameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    ...(route.method === 'POST' && route.table !== 'read-write' && !route.sender ? { 'x-writes-nothing': true as const } : {}),
  };
}

function introduction(): string {
  const errorRows = Object.keys(ERROR_MEANINGS).filter((name) => !ADMIN_GATEWAY_ERRORS[name]).map((name) => {
    const { status, code } = ERROR_STATUS[name]!;
    return `| ${status} | ${code} | \`${name}\` | ${ERROR_MEANINGS[name]} |`;
  });
  return [
    'The backend of the captioning app: sign-in with codes or passwords, the user, bound devices, transcription records with usage, and behavior events with statistics.',
    '',
    '**Base URL and versions.** Every operation answers at `<base>/api/...` and identically at `<base>/api/v1/...` (the two servers of this document, relative to where it is served). ' +
      '`<base>` is `http://localhost:8080` for `npm start` and the `ApiUrl` output of the stack on AWS.',
    '',
    '**Authentication.** Operations with a lock need `Authorization: Bearer <token>`. Get a token from `POST /verify-code/verify` (a code sent by `POST /verify-code/send`) or `POST /auth/login`.',
    '',
    `**Requests and answers.** Bodies are JSON with \`Content-Type: application/json\`; an operation that declares no request body refuses one (400 \`VALIDATION_FAILED\`), and every operation refuses a body over ${MAX_BODY_BYTES / 1024 / 1024} MB (413 \`PAYLOAD_TOO_LARGE\`). ` +
      'Timestamps are ISO 8601 UTC at second precision (`2026-01-29T10:30:00Z`); ids are positive integers. ' +
      'The request schemas state every rule the service checks that JSON Schema can state; the few it cannot are named in the operation\'s description. ' +
      'Text is well-formed Unicode (a lone surrogate such as a `\\ud800` escape is refused) and lengths count characters (code points), as JSON Schema counts them. ' +
      `Lists are plain arrays, newest first, paginated with \`?limit=\` (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and \`?cursor=\`: more items exist while a response carries \`X-Next-Cursor\` (and \`Link: <...>; rel="next"\`). ` +
      `Browsers may read these headers: ${CORS_EXPOSED_HEADERS.split(',').map((name) => `\`${name}\``).join(', ')}.`,
    '',
    '**Errors.** Every non-2xx body is `{code, message, error}`, with `details` on validation errors, `retryAfterSeconds` (and a `Retry-After` header) when waiting helps, and `requestId` on 5xx. ' +
      'Program against `error`; `message` is for people.',
    '',
    '| HTTP | code | error | meaning |',
    '|---|---|---|---|',
    ...errorRows,
  ].join('\n');
}

function adminIntroduction(): string {
  return [
    'The support team\'s admin API (docs/support.md): look an account up, sign it out, unlock, disable or enable it, delete it on an erasure request, release a serial, read the audit trail. ' +
      'Not part of the app\'s API: its paths are under `<base>/admin/...` (no `/v1` alias) and the app\'s reference does not list them.',
    '',
    '**Authentication.** Every request is signed with Signature Version 4 for service `execute-api` (API Gateway\'s `AWS_IAM`) by an IAM principal whose policy allows the operation ' +
      '(the stack\'s SupportRead, SupportWrite and SupportDelete managed policies); `npm run admin` signs with the AWS SDK. A bearer token is refused (403 `FORBIDDEN`).',
    '',
    '**Audit.** Every request that reaches an operation, answered or refused, writes one audit entry (`GET /admin/audit`). Every change takes `{"reason": "..."}` (1 to 500 characters, not blank).',
    '',
    '**Errors.** As the app\'s API: `{code, message, error}`; program against `error`.',
  ].join('\n');
}

/** Every route's handler module, as the local server loads them. */
export async function loadHandlers(kind: DocumentKind | 'all' = 'all'): Promise<ProxyHandler[]> {
  return Promise.all(
    (kind === 'all' ? routes : routesOf(kind)).map(async (route) => {
      const module = (await import(pathToFileURL(join(PROJECT_ROOT, route.entry)).href)) as { handler: ProxyHandler };
      if (!module.handler?.definition) throw new Error(`${route.entry} does not export an endpoint handler`);
      return module.handler;
    }),
  );
}

export async function buildOpenApiDocument(kind: DocumentKind = 'public'): Promise<OpenApiDocument> {
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  const converter = new SchemaConverter();
  converter.convert(errorBodySchema, 'output');
  const sharedResponses: Record<string, unknown> = {};
  const paths: OpenApiDocument['paths'] = {};
  for (const handler of await loadHandlers(kind)) {
    const path = documentPath(handler.route.path);
    (paths[path] ??= {})[handler.route.method.toLowerCase()] = operation(converter, sharedResponses, handler);
  }
  const used = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.tags)));
  const tags = [...new Map(Object.values(TAGS).filter((tag) => tag.description && used.has(tag.name)).map((tag) => [tag.name, tag])).values()];
  const parameterComponents = Object.fromEntries(Object.values(HEADER_PARAMETERS).map(({ component, parameter }) => [component, parameter]));
  const sorted = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  return componentRefs({
    openapi: '3.1.0',
    info: {
      title: kind === 'admin' ? 'Captioning account service: admin API' : 'Captioning account service',
      version,
      description: kind === 'admin' ? adminIntroduction() : introduction(),
      // The service is the deploying team's own (package.json is private): no open-source license.
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'The team that deploys this service' },
    },
    servers:
      kind === 'admin'
        ? [
            {
              url: '{base}',
              description: 'The API\'s base: a stage\'s ApiUrl output (without its final slash), or the local server',
              variables: { base: { default: 'http://localhost:8080' } },
            },
          ]
        : [
            { url: '.', description: 'Paths as the seed names them: <base>/api/...' },
            { url: `./${VERSION_PREFIX.slice(API_PREFIX.length + 1)}`, description: 'The same operations, versioned: <base>/api/v1/...' },
          ],
    tags,
    paths,
    components: {
      securitySchemes:
        kind === 'admin'
          ? {
              sigv4: {
                type: 'apiKey',
                name: 'Authorization',
                in: 'header',
                'x-amazon-apigateway-authtype': 'awsSigv4',
                description: 'Signature Version 4 for service `execute-api` (API Gateway `AWS_IAM`), by an IAM principal allowed to call the operation.',
              },
            }
          : {
              bearerAuth: {
                type: 'http',
                scheme: 'bearer',
                bearerFormat: 'JWT',
                description: 'The token from `POST /verify-code/verify` or `POST /auth/login`.',
              },
            },
      schemas: sorted(converter.components),
      responses: sorted(sharedResponses),
      parameters: parameterComponents,
      headers: RESPONSE_HEADERS,
    },
  });
}

/** The document as committed: two-space JSON with a final newline. */
export const serializeDocument = (document: OpenApiDocument): string => `${JSON.stringify(document, null, 2)}\n`;
