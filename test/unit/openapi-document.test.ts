import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TYPES_MODULE, GENERATED_ADMIN_DOCUMENT, GENERATED_DOCUMENT, buildOpenApiDocument, documentPath, loadHandlers, routesOf } from '../../infra/tools/openapi';
import { renderAdminTypes } from '../../infra/tools/admin-types';
import type { OpenApiDocument, Operation } from '../../infra/tools/openapi';
import * as domainErrors from '../../shared/errors';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { openApiDocument } from '../../shared/http/openapi-document';
import { routeId, routes } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';

/**
 * The committed OpenAPI document (what GET /api/openapi.json serves) is what the generator makes
 * of today's routes and schemas, is a valid OpenAPI 3.1 document, and describes every route with
 * the contract's auth, errors, pagination and Idempotency-Key. test/integration/openapi-conformance
 * checks real answers against it.
 */
let fresh: OpenApiDocument;
let committed: OpenApiDocument;

beforeAll(async () => {
  fresh = await buildOpenApiDocument();
  committed = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as OpenApiDocument;
});

const operations = (document: OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ id: `${method.toUpperCase()} ${path}`, operation })));

const resolve = (document: OpenApiDocument, value: Record<string, unknown>): Record<string, any> => {
  const target = value.$ref;
  if (typeof target !== 'string') return value;
  return target
    .slice(2)
    .split('/')
    .reduce<any>((node, key) => node[key], document);
};

const routeOf = (path: string, method: string): RouteDefinition | undefined => routesOf('public').find((route) => documentPath(route.path) === path && route.method === method.toUpperCase());

describe('the committed OpenAPI document', () => {
  it('is what `npm run generate:openapi` makes of the current routes and schemas (run it after changing them)', () => {
    expect(committed).toEqual(fresh);
  });

  it('is what the function serves (the compressed copy matches too)', () => {
    expect(openApiDocument()).toEqual(fresh);
  });

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const validated = await SwaggerParser.validate(structuredClone(fresh) as never);
    expect((validated as { openapi: string }).openapi).toBe('3.1.0');
    expect(fresh.info).toMatchObject({ license: { name: expect.any(String), identifier: expect.any(String) }, contact: { name: expect.any(String) } });
  });

  it('has examples that match their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(fresh, 'openapi.json');
    const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
    const responses = [
      ...Object.entries(fresh.components.responses ?? {}).map(([name, response]) => ({ pointer: `#/components/responses/${name}`, response })),
      ...Object.entries(fresh.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([method, operation]) =>
          Object.entries(operation.responses).map(([status, response]) => ({ pointer: `#/paths/${escape(path)}/${method}/responses/${status}`, response })),
        ),
      ),
    ];
    const wrong: string[] = [];
    let checked = 0;
    for (const { pointer, response } of responses) {
      for (const [type, media] of Object.entries<any>((response as any).content ?? {})) {
        const validate = ajv.getSchema(`openapi.json${pointer}/content/${escape(type)}/schema`)!;
        for (const [name, example] of Object.entries<{ value: unknown }>(media.examples ?? {})) {
          checked++;
          if (!validate(example.value)) wrong.push(`${pointer} ${name}: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('has unique operation ids', () => {
    const ids = operations(fresh).map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the document and the route table', () => {
  it('lists every route of the route table but the admin API\'s', () => {
    const missing = routesOf('public').filter((route) => !fresh.paths[documentPath(route.path)]?.[route.method.toLowerCase()]).map(routeId);
    expect(missing).toEqual([]);
  });

  it('lists nothing that is not a route', () => {
    const extra = operations(fresh)
      .filter(({ id }) => {
        const [method, path] = id.split(' ');
        return !routeOf(path!, method!);
      })
      .map(({ id }) => id);
    expect(extra).toEqual([]);
  });

  it('lists no /admin operation (issue 37: the support team\'s API has a document of its own)', () => {
    expect(Object.keys(fresh.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
    expect(JSON.stringify(fresh)).not.toContain('AdminUser');
  });

  it('serves the /api/v1 aliases as a second server', () => {
    expect(fresh.servers.map((server) => server.url)).toEqual(['.', './v1']);
  });
});

describe('each operation', () => {
  const each = (check: (operation: Operation, route: RouteDefinition) => void) => {
    for (const { id, operation } of operations(fresh)) {
      const [method, path] = id.split(' ');
      try {
        check(operation, routeOf(path!, method!)!);
      } catch (error) {
        throw new Error(`${id}: ${(error as Error).message}`);
      }
    }
  };

  it('requires the bearer token exactly where the route table says, and then documents 401', () => {
    each((operation, route) => {
      expect(operation.security).toEqual(route.auth === 'bearer' ? [{ bearerAuth: [] }] : []);
      // The public operations with a 401: a refresh token that does not refresh, a passkey or a provider's credential (or Apple's notification) that does not verify.
      const refusesCredential = ['/api/auth/token/refresh', '/api/auth/passkey/verify', '/api/auth/apple', '/api/auth/google', '/api/auth/wechat', '/api/auth/apple/notifications'].includes(route.path);
      expect(Boolean(operation.responses['401'])).toBe(route.auth === 'bearer' || refusesCredential);
    });
  });

  it('documents 429 and 500 everywhere, 503 wherever the table, the secret, the authorizer or delivery can fail, 400 and 413 everywhere (a body over the limit, a body where none is taken)', () => {
    each((operation, route) => {
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '413', '429', '500']));
      expect(Boolean(operation.responses['503'])).toBe(route.table !== 'none' || route.sender || route.secret || route.auth === 'bearer');
    });
  });

  it('documents every error body as the contract’s {code, message, error}', () => {
    each((operation) => {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === '200' || status === '201') continue;
        const schema = resolve(fresh, response).content['application/json'].schema;
        expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
      }
    });
  });

  it('names every error the service answers somewhere in the document', () => {
    const documented = new Set(
      operations(fresh).flatMap(({ operation }) =>
        Object.entries(operation.responses)
          .filter(([status]) => status !== '200' && status !== '201')
          .flatMap(([, response]) => resolve(fresh, response).content['application/json'].schema.allOf[1].properties.error.enum as string[]),
      ),
    );
    const declared = Object.values(domainErrors).flatMap((value) => (domainErrors.isDeclaration(value) ? [value.code] : []));
    expect(declared.length).toBeGreaterThan(15);
    const answered = [...declared, GATEWAY_RESPONSES.THROTTLED.body.error, GATEWAY_RESPONSES.DEFAULT_5XX.body.error];
    expect(answered.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('documents Retry-After with the code cooldown and the login lock', () => {
    const retryAfter = (path: string) => resolve(fresh, fresh.paths[path]!.post!.responses['400']!).headers?.['Retry-After'];
    expect(retryAfter('/verify-code/send')).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(retryAfter('/auth/login')).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(retryAfter('/verify-code/verify')).toBeUndefined();
  });

  it('takes an Idempotency-Key where the handler replays a repeat (its `idempotency`), and only there: POSTs that write', async () => {
    const withKey = operations(fresh)
      .filter(({ operation }) => operation.parameters?.some((parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey'))
      .map(({ id }) => id);
    // Issue 47: no list of them to keep here. Which routes replay is their handlers' to say, and
    // test/integration/idempotency.test.ts (behavior-batch.test.ts for the batch) drives each replay.
    const replaying = (await loadHandlers('public')).filter((handler) => handler.definition.idempotency !== undefined).map((handler) => handler.route);
    expect(withKey.sort()).toEqual(replaying.map((route) => `${route.method} ${documentPath(route.path)}`).sort());
    expect(replaying.length).toBeGreaterThan(0);
    for (const route of replaying) expect([route.method, route.table], routeId(route)).toEqual(['POST', 'read-write']);
    expect(fresh.components.parameters!.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  });

  it('paginates every list that can grow: limit and cursor in, X-Next-Cursor and Link out', () => {
    const arrays = operations(fresh).filter(({ operation }) => (operation.responses['200']!.content as any)['application/json'].schema.type === 'array');
    // The sessions of an account are at most 20 (a sign-in beyond ends the least recently used): one page.
    const sessions = arrays.find(({ id }) => id === 'GET /auth/sessions');
    expect(sessions?.operation.parameters).toBeUndefined();
    // The passkeys of an account are at most 10: one page too.
    const passkeys = arrays.find(({ id }) => id === 'GET /auth/passkeys');
    expect(passkeys?.operation.parameters).toBeUndefined();
    // The linked identities are at most one per provider: one page.
    const identities = arrays.find(({ id }) => id === 'GET /users/me/identities');
    expect(identities?.operation.parameters).toBeUndefined();
    // Every other list, whatever the route table holds (issue 47: no list of them to keep here): paged.
    const lists = arrays.filter((list) => list !== sessions && list !== passkeys && list !== identities);
    expect(lists.length).toBeGreaterThan(5);
    for (const { id, operation } of lists) {
      const hint = `${id} answers a list without paging: serve it with listEndpoint (shared/http/list-endpoint.ts), or, when it cannot grow, name it above with why`;
      // The records' list also searches and filters (issue 31): its own parameters come after the page's.
      expect(operation.parameters?.slice(0, 2).map((parameter) => parameter.name), hint).toEqual(['limit', 'cursor']);
      expect(Object.keys((operation.responses['200']!.headers as object | undefined) ?? {}), hint).toEqual(['X-Next-Cursor', 'Link']);
    }
    expect(lists.find(({ id }) => id === 'GET /transcriptions')?.operation.parameters?.map((parameter) => parameter.name)).toEqual(['limit', 'cursor', 'q', 'language', 'from', 'to']);
  });

  it('describes request bodies, path parameters and responses from the zod schemas', () => {
    const bind = fresh.paths['/devices']!.post!;
    expect((bind.requestBody as any).content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['sn', 'mac', 'productModel'],
      properties: { productModel: { type: 'string', minLength: 1, maxLength: 100 } },
    });
    expect((bind.responses['200']!.content as any)['application/json'].schema).toEqual({ $ref: '#/components/schemas/Device' });
    expect(fresh.components.schemas!.Device).toMatchObject({ additionalProperties: false, required: ['sn', 'userId', 'mac', 'productModel', 'createdAt'] });
    expect(fresh.paths['/transcriptions/{id}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect((fresh.components.schemas!.User as any).properties).not.toHaveProperty('passwordHash');
  });
});

describe('the admin API\'s document (issue 37)', () => {
  let admin: OpenApiDocument;
  beforeAll(async () => {
    admin = await buildOpenApiDocument('admin');
  });

  it('is committed as `npm run generate:openapi` makes it, with the support CLI\'s types', async () => {
    expect(JSON.parse(readFileSync(GENERATED_ADMIN_DOCUMENT, 'utf8'))).toEqual(admin);
    expect(readFileSync(ADMIN_TYPES_MODULE, 'utf8')).toBe(await renderAdminTypes(admin));
  });

  it('is a valid OpenAPI 3.1 document listing exactly the iam routes, each signed (SigV4) and answering 403 to a refused signature', async () => {
    await SwaggerParser.validate(structuredClone(admin) as never);
    const listed = operations(admin).map(({ id }) => id).sort();
    expect(listed).toEqual(routes.filter((route) => route.auth === 'iam').map((route) => `${route.method} ${route.path}`).sort());
    for (const { operation } of operations(admin)) {
      expect(operation.security).toEqual([{ sigv4: [] }]);
      expect(resolve(admin, operation.responses['403']!).content['application/json'].schema.allOf[1].properties.error.enum).toEqual(['FORBIDDEN']);
      // Every change says why (its audit entry keeps it).
      if (operation.requestBody) expect((operation.requestBody as any).content['application/json'].schema.required).toContain('reason');
    }
    expect(admin.paths['/admin/audit']!.get!.responses['200']!.headers).toMatchObject({ 'X-Next-Cursor': expect.anything() });
  });
});

