import { describe, expect, it } from 'vitest';
import { JOBS_AREA, areaConstructId, areaOf } from '../../infra/constructs/service-area';
import { routeId, routes, versionedPaths } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';
import { asArray, ofType, refOf, synthesize, synthesizeOnce } from './synth';
import type { StackTemplate, Synthesized } from './synth';

// Settings and structure only: no bundling (the bundles are checked in stack.test.ts).
const PROD = { stage: 'prod', SES_FROM_ADDRESS: 'no-reply@example.com', waf: 'true', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:on-call' };
// The route table's own stack is the one the other infra files share (synthesizeOnce); another table is a synthesis of its own.
const synth = (tables?: { routes?: readonly RouteDefinition[] }) => (tables ? synthesize(PROD, { bundle: false, tables }) : synthesizeOnce(PROD, { bundle: false }));
const ALL_ROUTES: readonly RouteDefinition[] = routes;

/**
 * CloudFormation's limits per template: 500 resources, 200 parameters, 200 outputs. Every stack,
 * the parent and each area, keeps a tenth of each free.
 */
const RESOURCE_GUARD = 450;
const PARAMETER_GUARD = 180;
const OUTPUT_GUARD = 180;

const countOf = (template: StackTemplate) => ({
  resources: Object.keys(template.json.Resources).length,
  parameters: Object.keys(template.json.Parameters ?? {}).length,
  outputs: Object.keys(template.json.Outputs ?? {}).length,
});
const nameOf = (template: StackTemplate) => template.stack.node.id;
const stackNamed = (synthesized: Synthesized, id: string) => synthesized.stacks.find((template) => nameOf(template) === id);

function expectWithinGuards(synthesized: Synthesized): void {
  for (const template of synthesized.stacks) {
    const counts = countOf(template);
    expect(counts.resources, `${nameOf(template)} resources`).toBeLessThan(RESOURCE_GUARD);
    expect(counts.parameters, `${nameOf(template)} parameters`).toBeLessThan(PARAMETER_GUARD);
    expect(counts.outputs, `${nameOf(template)} outputs`).toBeLessThan(OUTPUT_GUARD);
  }
}

/** A route of no consequence but its path: an existing handler, reading one item. */
const extraRoute = (path: string): RouteDefinition => ({
  method: 'GET',
  path,
  entry: 'functions/health/get.ts',
  auth: 'bearer',
  table: 'read',
  dynamodb: { actions: ['GetItem'] },
  sender: false,
  secret: false,
  providers: false,
  providerSecret: false,
  speech: false,
  hashesPasswords: false,
});

describe('areas: the area of a route comes from its path', () => {
  it('groups sign-in under identity, health and the document under operations, and gives any other top segment its own area', () => {
    expect(areaOf('/api/verify-code/send')).toBe('identity');
    expect(areaOf('/api/auth/passkeys/{passkeyId}')).toBe('identity');
    expect(areaOf('/api/users/me/summary')).toBe('users');
    expect(areaOf('/api/users/me/export')).toBe('users');
    expect(areaOf('/api/transcriptions/{id}')).toBe('transcriptions');
    expect(areaOf('/api/health')).toBe('operations');
    expect(areaOf('/api/openapi.json')).toBe('operations');
    expect(areaOf('/api/search')).toBe('search');
    // Not "constructor" from Object.prototype: a segment so named is an area of its own.
    expect(areaOf('/api/constructor/x')).toBe('constructor');
    expect(areaConstructId('identity')).toBe('IdentityArea');
  });

  it('refuses a path outside /api/<segment>/ and one under the version prefix', () => {
    expect(() => areaOf('/health')).toThrow(/not under/);
    expect(() => areaOf('/api')).toThrow(/not under/);
    expect(() => areaOf('/api/v1/users')).toThrow(/not under/);
  });
});

describe('nested stacks', () => {
  const prod = synth();

  it('put each route function, its methods and its error alarm in the stack of its area, nowhere else', () => {
    for (const route of ALL_ROUTES) {
      const area = stackNamed(prod, areaConstructId(areaOf(route.path)));
      expect(area, routeId(route)).toBeDefined();
      const resources = area!.json.Resources;
      const functions = ofType(resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Description === routeId(route));
      expect(functions, routeId(route)).toHaveLength(1);
      const [functionId] = functions[0]!;
      const invoking = ofType(resources, 'AWS::ApiGateway::Method').filter(([, method]) => JSON.stringify(method.Properties.Integration?.Uri ?? '').includes(`"${functionId}"`));
      // Its path and its /api/v1 alias; an /admin route has no alias.
      expect(invoking.map(([, method]) => method.Properties.HttpMethod), routeId(route)).toEqual(versionedPaths(route.path).map(() => route.method));
      const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => asArray(alarm.Properties.Dimensions).some((dimension: any) => refOf(dimension.Value) === functionId));
      expect(alarms, routeId(route)).toHaveLength(1);
    }
    const parent = prod.stacks[0]!.json.Resources;
    expect(ofType(parent, 'AWS::ApiGateway::Method')).toEqual([]);
    // The parent keeps the authorizer's function only.
    expect(ofType(parent, 'AWS::Lambda::Function')).toHaveLength(1);
    const expectedAreas = new Set([...ALL_ROUTES.map((route) => areaConstructId(areaOf(route.path))), areaConstructId(JOBS_AREA)]);
    expect(new Set(prod.stack.areas.map((area) => area.node.id))).toEqual(expectedAreas);
  });

  it('keep every stack, parent and nested, under the resource, parameter and output guards', () => {
    expect(prod.stacks.length).toBeGreaterThan(1);
    expectWithinGuards(prod);
  });

  it('deploy the API only once every area stack is in place, with the methods', () => {
    const parent = prod.stacks[0]!.json.Resources;
    const [[, deployment]] = ofType(parent, 'AWS::ApiGateway::Deployment') as [[string, any]];
    // The areas' stacks; the live channel's (a WebSocket API of its own) is not the REST API's.
    const nestedStacks = ofType(parent, 'AWS::CloudFormation::Stack')
      .map(([id]) => id)
      .filter((id) => !id.startsWith('LiveChannel'));
    expect(nestedStacks).toHaveLength(prod.stack.areas.length);
    expect(asArray(deployment.DependsOn)).toEqual(expect.arrayContaining(nestedStacks));
  });

  it('redeploy the API when a method in an area stack changes', () => {
    const deploymentId = (synthesized: Synthesized) => ofType(synthesized.stacks[0]!.json.Resources, 'AWS::ApiGateway::Deployment')[0]![0];
    const devices = ALL_ROUTES.find((route) => routeId(route) === 'GET /api/devices')!;
    const changed = synth({ routes: ALL_ROUTES.map((route) => (route === devices ? { ...route, auth: 'none' as const } : route)) });
    expect(deploymentId(changed)).not.toBe(deploymentId(prod));
    // A synthesis of its own: the same routes make the same deployment.
    expect(deploymentId(synthesize(PROD, { bundle: false }))).toBe(deploymentId(prod));
  });
});

describe('room for more routes', () => {
  const prod = synth();
  const resourcesOf = (synthesized: Synthesized) => Object.fromEntries(synthesized.stacks.map((template) => [nameOf(template), countOf(template).resources]));

  it('30 more routes, each on a path of its own, spread over the areas: every stack stays under the guards and the parent does not grow', () => {
    const areas = [...new Set(ALL_ROUTES.filter((route) => route.path.startsWith('/api/')).map((route) => route.path.split('/')[2]!))];
    const extra = Array.from({ length: 30 }, (_, index) => extraRoute(`/api/${areas[index % areas.length]}/headroom-${index}`));
    const grown = synth({ routes: [...ALL_ROUTES, ...extra] });
    expectWithinGuards(grown);
    const before = resourcesOf(prod);
    const after = resourcesOf(grown);
    expect(after[nameOf(prod.stacks[0]!)]).toBe(before[nameOf(prod.stacks[0]!)]);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const route of extra) {
      const area = stackNamed(grown, areaConstructId(areaOf(route.path)))!;
      expect(ofType(area.json.Resources, 'AWS::Lambda::Function').some(([, fn]) => fn.Properties.Description === routeId(route)), routeId(route)).toBe(true);
    }
  });

  it('a route under a new top segment lands in a new area stack of its own, with no other edit', () => {
    const grown = synth({ routes: [...ALL_ROUTES, extraRoute('/api/search'), extraRoute('/api/search/{query}')] });
    const search = stackNamed(grown, 'SearchArea');
    expect(search).toBeDefined();
    expect(ofType(search!.json.Resources, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Description).sort()).toEqual(['GET /api/search', 'GET /api/search/{query}']);
    // One resource more in the parent: the nested stack itself.
    expect(countOf(grown.stacks[0]!).resources).toBe(countOf(prod.stacks[0]!).resources + 1);
    expectWithinGuards(grown);
  });
});
