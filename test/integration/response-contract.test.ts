import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GENERATED_ADMIN_DOCUMENT, GENERATED_DOCUMENT, requestDocumentPath } from '../../infra/tools/openapi';
import type { OpenApiDocument } from '../../infra/tools/openapi';
import { routeId, routes } from '../../shared/routes';
import type { RouteId } from '../../shared/routes';
import { COST_DRIVERS } from '../bench/cost-drivers';
import type { DriverContext } from '../bench/cost-drivers';
import { TYPICAL_ACCOUNT, seedAccount } from '../bench/fixtures';
import { startBench } from '../bench/harness';
import type { Bench } from '../bench/harness';
import { atPointer, documentAjv, pointerSegment } from '../support/openapi-ajv';

/**
 * The response contract: handlers answer what their typed mappers build from stored items, and
 * nothing checks or trims a body at run time. So here every route is driven to 2xx through its real
 * handler against DynamoDB Local (the drivers of `npm run cost`, test/bench/cost-drivers.ts, with a
 * typical account whose lists fill a page), and each body is held to the response schema of the
 * committed OpenAPI document: valid for ajv, no field the schema does not list (at any depth), and
 * the listed fields in the schema's order, so the bytes are the ones the schema fixes.
 */
type Schema = Record<string, any>;

let bench: Bench;
let context: DriverContext;
const appDocument = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as OpenApiDocument;
// The support team's /admin routes (issue 37) are in a document of their own.
const adminDocument = JSON.parse(readFileSync(GENERATED_ADMIN_DOCUMENT, 'utf8')) as OpenApiDocument;
const ajvs = { app: documentAjv(appDocument), admin: documentAjv(adminDocument) };
/** The document of the route under test. */
let document = appDocument;
const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(atPointer(document, schema.$ref as string)) : schema);

/** The document's pointer to the 200 body schema of a route. */
function successPointer(id: string): string {
  const [method, path] = id.split(' ') as [string, string];
  const documentPath = path.startsWith('/admin/') ? path : requestDocumentPath(path);
  return `#/paths/${pointerSegment(documentPath)}/${method.toLowerCase()}/responses/200/content/application~1json/schema`;
}

/**
 * The fields of `value` that `schema` does not list, and listed fields out of the schema's order,
 * at every depth, as paths. A schema whose objects allow other fields (the OpenAPI document's own,
 * `additionalProperties: {}`) lets them pass.
 */
function unlisted(schema: Schema, value: unknown, path = 'body'): string[] {
  const resolved = resolve(schema);
  // Only scalars are nullable in these schemas; a branch that describes objects or lists is the one to follow.
  if (resolved.anyOf) {
    if (typeof value !== 'object' || value === null) return [];
    const branch = (resolved.anyOf as Schema[]).find((option) => resolve(option).properties || resolve(option).items);
    return branch ? unlisted(branch, value, path) : [`${path}: matches no branch`];
  }
  if (Array.isArray(value)) return resolved.items ? value.flatMap((item, index) => unlisted(resolved.items, item, `${path}.${index}`)) : [];
  if (typeof value !== 'object' || value === null || !resolved.properties) return [];
  const listed = Object.keys(resolved.properties);
  const keys = Object.keys(value);
  const problems: string[] = [];
  if (resolved.additionalProperties === false || resolved.additionalProperties === undefined) {
    problems.push(...keys.filter((key) => !listed.includes(key)).map((key) => `${path}.${key}: not in the schema`));
  }
  const inOrder = listed.filter((key) => keys.includes(key));
  const known = keys.filter((key) => listed.includes(key));
  if (JSON.stringify(known) !== JSON.stringify(inOrder)) problems.push(`${path}: fields ${known.join(',')}, schema order ${inOrder.join(',')}`);
  for (const key of known) problems.push(...unlisted(resolved.properties[key], (value as Record<string, unknown>)[key], `${path}.${key}`));
  return problems;
}

beforeAll(async () => {
  bench = await startBench({ dynamo: { endpoint: inject('dynamoEndpoint'), stop: async () => undefined } });
  const typical = await seedAccount(bench, 'typical', TYPICAL_ACCOUNT);
  context = { bench, typical, fresh: (label) => bench.signUp(label) };
}, 300_000);
afterAll(() => bench?.close());

describe('the check itself', () => {
  const user = { userId: 7, phone: null, email: 'a@example.com', timeZone: null, locale: null, createdAt: '2026-01-29T10:30:00Z', updatedAt: '2026-01-29T10:30:00Z' };
  const schema = { $ref: '#/components/schemas/User' };

  it('finds a field the schema does not list, a field out of order, and nothing in an exact body', () => {
    expect(unlisted(schema, user)).toEqual([]);
    expect(unlisted(schema, { ...user, passwordHash: 'scrypt$...' })).toEqual(['body.passwordHash: not in the schema']);
    const { userId, ...rest } = user;
    expect(unlisted(schema, { ...rest, userId })).toHaveLength(1);
  });

  it('looks into lists', () => {
    const list = atPointer(document, '#/paths/~1devices/get/responses/200/content/application~1json/schema');
    const device = { sn: 'CAP2-1', userId: 7, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2', createdAt: '2026-01-29T10:30:00Z' };
    expect(unlisted(list, [device, { ...device, createdAtMs: '2026-01-29T10:30:00.123Z' }])).toEqual(['body.1.createdAtMs: not in the schema']);
  });
});

describe.each(routes.map(routeId))('%s', (id) => {
  it('answers exactly its response schema: valid, no other field, in the schema’s order', async () => {
    const driver = COST_DRIVERS[id as RouteId];
    expect(driver, 'every route has a driver in test/bench/cost-drivers.ts').toBeDefined();
    const admin = id.split(' ')[1]!.startsWith('/admin/');
    document = admin ? adminDocument : appDocument;
    const ajv = ajvs[admin ? 'admin' : 'app'];
    const spec = await driver!.prepare(context);
    const result = await bench.invoke(id, spec);
    // 201 where a route makes a resource (the same schema as its repeat's 200).
    expect([200, 201], result.body).toContain(result.statusCode);
    const body = JSON.parse(result.body) as unknown;
    const validate = ajv.getSchema(`openapi.json${successPointer(id)}`)!;
    expect(validate, `no 200 body schema for ${id}`).toBeDefined();
    expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
    const schema = atPointer(document, successPointer(id));
    expect(unlisted(schema, body)).toEqual([]);
    // A list answers a page of the typical account, not an empty array that would prove nothing.
    if (Array.isArray(body)) expect(body.length).toBeGreaterThan(0);
  });
});
