import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeId, routes } from '../../shared/routes';

/** The API page's list of operations (docs/api.md, "Operations") lists exactly the operations of the route table. */
describe('the API page', () => {
  it('lists every operation, and only those, in "Operations", with the lock of the bearer routes', () => {
    const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
    const section = page.split(/^## Operations$/m)[1]?.split(/^## /m)[0] ?? '';
    // The auth column: the lock of a bearer route, nothing for a public one, another kind by its name (the admin API's `iam`).
    const rows = [...section.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| (🔒|`\w+`)? ?\|/gm)].map(([, method, path, lock]) => ({ id: `${method} ${path}`, bearer: lock === '🔒' }));
    expect(rows.map((row) => row.id).sort()).toEqual(routes.map(routeId).sort());
    for (const route of routes) expect(rows.find((row) => row.id === routeId(route))?.bearer, routeId(route)).toBe(route.auth === 'bearer');
  });
});
