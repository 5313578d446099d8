import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeId, routes } from '../../shared/routes';

/** The README's "API at a glance" table lists exactly the operations of the route table. */
describe('the README', () => {
  it('lists every operation, and only those, in "The API at a glance"', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.split(/^## The API at a glance$/m)[1]?.split(/^## /m)[0] ?? '';
    const rows = [...section.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| (🔒)? ?\|/gm)].map(([, method, path, lock]) => ({ id: `${method} ${path}`, bearer: lock === '🔒' }));
    expect(rows.map((row) => row.id).sort()).toEqual(routes.map(routeId).sort());
    for (const route of routes) expect(rows.find((row) => row.id === routeId(route))?.bearer, routeId(route)).toBe(route.auth === 'bearer');
  });
});
