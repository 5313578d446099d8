import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/project-root';
import { routeId, routes } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';
import { readBudget, readProfile } from '../bench/cost-data';
import { COST_DRIVERS } from '../bench/cost-drivers';
import { pricedProfile, readMeasurements } from '../bench/cost-measurements';
import { READ_FIXTURES } from '../bench/fixtures';
import { sampledElsewhere } from './sampled-elsewhere';

/**
 * Every place a route must appear besides its line in shared/routes.ts, its handler and its own
 * tests, in one list: test/unit/route-coverage.test.ts holds every route to every place that
 * applies to it and fails with one line per missing place, naming the file to edit and what to
 * write there. `npm run new:endpoint` fills what it can of these for a new route.
 *
 * What is derived from the route table needs no entry and is not listed: the stack, grants,
 * alarms, the local server, the authorizer's policy, the property-based test, the bundle
 * budget (test/unit/bundles.test.ts).
 */
export interface CoveragePlace {
  /** Short name, as the failure message and docs/contributing.md spell it. */
  name: string;
  /** The file to edit (or to regenerate), relative to the project root. */
  file: string;
  /** Why the place exists: what would go unnoticed without it. */
  why: string;
  /** What to do when it is missing; `{id}` stands for the route id. */
  fix: string;
  appliesTo(route: RouteDefinition): boolean;
  has(route: RouteDefinition): boolean;
}

const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');
const memo = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

const hasPathParameter = (route: RouteDefinition) => route.path.includes('{');
const usesTable = (route: RouteDefinition) => route.table !== 'none';

/**
 * The routes a test file sends requests to, read from its text: every `'METHOD', '/api/…'` or
 * `'METHOD', \`/api/…${x}…\``, as `api.request(...)` and the tests' `call(...)` helpers take them.
 * An interpolated segment stands for a path parameter of a route that has one there (so
 * `/api/transcriptions/${id}` is not `/api/transcriptions/usage`); where no route has one, for
 * any literal (`/api/behavior/${list}`).
 */
export function routesRequestedIn(text: string): Set<string> {
  const found = new Set<string>();
  const pattern = /'(GET|POST|PUT|PATCH|DELETE)',\s*(?:'(\/(?:api|admin)\/[^']*)'|`(\/(?:api|admin)\/[^`]*)`)/g;
  for (const match of text.matchAll(pattern)) {
    const method = match[1]!;
    const raw = (match[2] ?? match[3]!).replace(/\$\{[^}]*\}/g, '\u0000').split('?')[0]!.replace(/^\/api\/v1\//, '/api/');
    const segments = raw.split('/');
    const candidates = routes.filter((route) => route.method === method && route.path.split('/').length === segments.length);
    const matches = (route: RouteDefinition, wildcardTakesLiteral: boolean) =>
      route.path.split('/').every((part, at) => {
        const segment = segments[at]!;
        const parameter = /^\{\w+\}$/.test(part);
        if (segment.includes('\u0000')) return parameter || (wildcardTakesLiteral && segment === '\u0000');
        return parameter || part === segment;
      });
    // A concrete path resolves as API Gateway resolves it: the literal resource wins over a parameter.
    const strict = candidates.filter((route) => matches(route, false));
    const literalFirst = strict.filter((route) => strict.every((other) => other === route || literalness(route) >= literalness(other)));
    const resolved = literalFirst.length > 0 ? literalFirst : candidates.filter((route) => matches(route, true));
    for (const route of resolved) found.add(routeId(route));
  }
  return found;
}

const literalness = (route: RouteDefinition) => route.path.split('/').filter((part) => !part.startsWith('{')).length;

const requestedIn = (file: string) => {
  const requested = memo(() => routesRequestedIn(read(file)));
  return (route: RouteDefinition) => requested().has(routeId(route));
};

/** The test file npm run new:endpoint writes for a route: functions/devices/get.ts -> test/integration/devices-get.test.ts. */
export const ownTestFile = (route: RouteDefinition) => `test/integration/${route.entry.replace(/^functions\//, '').replace(/\.ts$/, '').replaceAll('/', '-')}.test.ts`;

function ownTestIsolates(route: RouteDefinition): boolean {
  const file = ownTestFile(route);
  if (!existsSync(join(PROJECT_ROOT, file))) return false;
  const text = read(file);
  return text.includes('stranger') && routesRequestedIn(text).has(routeId(route));
}

/** The scaffold's marker, spelled so this file does not carry it. */
export const SCAFFOLD_MARKER = `TODO(${'new:endpoint'})`;

/** Every marker of the scaffold left in the sources and tests, as `file:line: text`. */
export function scaffoldMarkers(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|json)$/.test(entry.name) && path !== 'infra/tools/new-endpoint.ts') {
        read(path).split('\n').forEach((line, at) => {
          if (line.includes(SCAFFOLD_MARKER)) found.push(`${path}:${at + 1}: ${line.trim()}`);
        });
      }
    }
  };
  for (const dir of ['shared', 'functions', 'test', 'cost']) walk(dir);
  return found;
}

const openApiDocument = memo(() => JSON.parse(read('shared/http/openapi-document.generated.json')) as { paths: Record<string, Record<string, unknown>> });
const inOpenApiDocument = (route: RouteDefinition) => Boolean(openApiDocument().paths[route.path.replace(/^\/api/, '')]?.[route.method.toLowerCase()]);
const adminOpenApiDocument = memo(() => JSON.parse(read('shared/http/admin-openapi-document.generated.json')) as { paths: Record<string, Record<string, unknown>> });
/** The support team's `/admin` routes (issue 37): their own document and conformance test, never the public ones. */
const isAdmin = (route: RouteDefinition) => route.auth === 'iam';
const apiDocsRoutes = memo(() => read('docs/api.md'));

export const COVERAGE_PLACES: readonly CoveragePlace[] = [
  {
    name: 'OpenAPI document',
    file: 'shared/http/openapi-document.generated.json',
    why: 'the reference, the client types and the conformance test read it',
    fix: 'run npm run generate:openapi',
    appliesTo: (route) => !isAdmin(route),
    has: (route) => inOpenApiDocument(route),
  },
  {
    name: 'admin OpenAPI document',
    file: 'shared/http/admin-openapi-document.generated.json',
    why: "the admin API's reference, the support CLI's types and the admin conformance test read it (the public document must not list it)",
    fix: 'run npm run generate:openapi',
    appliesTo: isAdmin,
    has: (route) => Boolean(adminOpenApiDocument().paths[route.path]?.[route.method.toLowerCase()]),
  },
  {
    name: 'operations list',
    file: 'docs/api.md',
    why: 'the readable list of operations (generated section "routes")',
    fix: 'run npm run docs:generate',
    appliesTo: () => true,
    has: (route) => apiDocsRoutes().includes(`| ${route.method} | \`${route.path}\` |`),
  },
  {
    name: 'conformance',
    file: 'test/integration/openapi-conformance.test.ts',
    why: 'every answer is checked against the document, and every documented status must be driven (the test itself names a status not driven)',
    fix: "drive {id} to 200 and to each error status its document lists, through call('METHOD', '/api/...')",
    appliesTo: (route) => !isAdmin(route),
    has: requestedIn('test/integration/openapi-conformance.test.ts'),
  },
  {
    name: 'exactness',
    file: 'test/integration/openapi-exactness.test.ts',
    why: 'requests drawn from the document must be accepted and broken ones refused; an operation it leaves to another file (test/support/sampled-elsewhere.ts) is held to its rules there, and must be requested there',
    fix: 'request {id} in the file test/support/sampled-elsewhere.ts names for it, or let openapi-exactness sample it (it samples every operation of the OpenAPI document it is not told to leave)',
    appliesTo: (route) => !isAdmin(route),
    has: (route) => {
      const elsewhere = sampledElsewhere(route);
      return elsewhere === undefined ? inOpenApiDocument(route) : existsSync(join(PROJECT_ROOT, elsewhere)) && requestedIn(elsewhere)(route);
    },
  },
  {
    name: 'admin conformance',
    file: 'test/integration/admin-conformance.test.ts',
    why: 'every signed answer is checked against the admin document, and every documented status must be driven',
    fix: "drive {id} to 200 and to each error status its document lists, through call('METHOD', '/admin/...')",
    appliesTo: isAdmin,
    has: requestedIn('test/integration/admin-conformance.test.ts'),
  },
  {
    name: 'isolation',
    file: 'test/integration/isolation.test.ts',
    why: "a route that takes an id in its path must answer 404 for another account's item and leave it unchanged",
    fix: "request {id} with the stranger's token for the owner's item: 404, and the item unchanged",
    appliesTo: (route) => route.auth === 'bearer' && hasPathParameter(route),
    // Or in the route's own test file (npm run new:endpoint writes the case there), with the stranger's token.
    has: (route) => requestedIn('test/integration/isolation.test.ts')(route) || ownTestIsolates(route),
  },
  {
    name: 'deleted account 401',
    file: 'test/integration/account-deletion.test.ts',
    why: "a deleted account's token, even with the authorizer's Allow still cached, is refused by every Bearer route before it reads or writes",
    fix: "add a request of {id} that would otherwise succeed to the attempts of 'ends the tokens of the account at once'",
    appliesTo: (route) => route.auth === 'bearer',
    has: requestedIn('test/integration/account-deletion.test.ts'),
  },
  {
    name: 'table grants',
    file: 'test/integration/table-grants.test.ts',
    why: 'the IAM grant is exactly the DynamoDB actions the route declares, and those are exactly what its handler issues',
    fix: "add calls of {id} through call(api, 'METHOD', '/api/...') (an /admin route: signedCall(api, 'METHOD', '/admin/...')) to a flow, taking the branches that issue each declared action",
    appliesTo: usesTable,
    has: requestedIn('test/integration/table-grants.test.ts'),
  },
  {
    name: 'cost driver',
    file: 'test/bench/cost-drivers.ts',
    why: 'npm run cost, the capacity budget test and the response contract test call each route through it',
    fix: "add '{id}': { prepare: ... } to COST_DRIVERS: the request of one typical successful call",
    appliesTo: () => true,
    has: (route) => Boolean((COST_DRIVERS as Record<string, unknown>)[routeId(route)]),
  },
  {
    name: 'capacity budget',
    file: 'cost/capacity-budget.json',
    why: 'test/integration/capacity-budget.test.ts holds each route to its DynamoDB requests and units',
    fix: "run npm run cost -- --write-budget '{id}' (adds the row, measured for this route alone)",
    appliesTo: () => true,
    has: (route) => readBudget().some((row) => row.operation === routeId(route)),
  },
  {
    name: 'cost measurement',
    file: 'cost/measurements.json',
    why: 'the cost report prices what npm run cost measured of each route, kept per route so another route does not move its figures',
    fix: "run npm run cost -- --only '{id}' (measures this route alone, prices the report)",
    appliesTo: () => true,
    has: (route) => Boolean(readMeasurements()?.operations[routeId(route)]),
  },
  {
    name: 'usage profile',
    file: 'cost/usage-profile.json',
    why: 'npm run cost prices only what the profile calls; 0 says on purpose that users do not call it (yet)',
    fix: 'add "{id}": 0 (or the calls per user a month you expect) to callsPerUserPerMonth, then npm run cost',
    appliesTo: () => true,
    // Its own figure, or one its captioning implies (the speech routes: withDerivedCalls).
    has: (route) => pricedProfile(readProfile()).callsPerUserPerMonth[routeId(route)] !== undefined,
  },
  {
    name: 'bench read fixture',
    file: 'test/bench/fixtures.ts',
    why: 'npm run bench times every read of the table; a read with a path parameter needs to know which item to read',
    fix: "add '{id}': (account) => ({ pathParameters: { ... } }) to READ_FIXTURES",
    appliesTo: (route) => route.method === 'GET' && usesTable(route) && hasPathParameter(route),
    has: (route) => Boolean(READ_FIXTURES[routeId(route)]),
  },
];

/** One line per route and place that applies to it and misses it. */
export function missingCoverage(places: readonly CoveragePlace[] = COVERAGE_PLACES, table: readonly RouteDefinition[] = routes): string[] {
  const missing: string[] = [];
  for (const route of table) {
    const id = routeId(route);
    for (const place of places) {
      if (place.appliesTo(route) && !place.has(route)) missing.push(`${id}: no ${place.name} entry: edit ${place.file}: ${place.fix.replaceAll('{id}', id)}`);
    }
  }
  return missing;
}
