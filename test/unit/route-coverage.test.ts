import { describe, expect, it } from 'vitest';
import { routeId, routes } from '../../shared/routes';
import { COVERAGE_PLACES, missingCoverage, routesRequestedIn, scaffoldMarkers } from '../support/route-coverage';

/**
 * Issue 35: every place a route must appear (test/support/route-coverage.ts lists them, and why),
 * checked for every route at once. A failure is one line per missing place, naming the file to
 * edit and what to write there; `npm run new:endpoint` fills these for a new route.
 */
describe('route coverage', () => {
  it('finds every route of the route table in every place that applies to it', () => {
    expect(missingCoverage(), 'each line names the file to edit (docs/contributing.md, "Where a route must appear")').toEqual([]);
  });

  it('leaves no marker of npm run new:endpoint: each marks what only the route\'s author can write', () => {
    expect(scaffoldMarkers()).toEqual([]);
  });

  it('names the place, the file and what to write for a route missing from it', () => {
    const newRoute = { ...routes[0], method: 'GET' as const, path: '/api/gadgets/{gadgetId}' };
    const missing = missingCoverage(COVERAGE_PLACES, [newRoute]);
    const id = routeId(newRoute);
    expect(missing).toContain(`${id}: no cost driver entry: edit test/bench/cost-drivers.ts: add '${id}': { prepare: ... } to COST_DRIVERS: the request of one typical successful call`);
    expect(missing.some((line) => line.includes('test/integration/isolation.test.ts'))).toBe(false); // public, as routes[0] is
    const bearer = missingCoverage(COVERAGE_PLACES, [{ ...newRoute, auth: 'bearer' }]);
    expect(bearer.map((line) => line.split(': edit ')[1]!.split(':')[0])).toEqual(
      expect.arrayContaining(['test/integration/isolation.test.ts', 'test/integration/openapi-conformance.test.ts', 'cost/capacity-budget.json', 'cost/usage-profile.json', 'test/bench/fixtures.ts']),
    );
  });

  it('reads the routes a test requests from its text, a parameter only where the route has one', () => {
    const text = [
      "call('GET', `/api/transcriptions/${id}`, auth)",
      "api.request('GET', '/api/v1/transcriptions/usage?days=7')",
      "call(api, 'DELETE', `/api/devices/${sn}`)",
      "call('GET', `/api/behavior/${list}?limit=1`)",
    ].join('\n');
    const found = routesRequestedIn(text);
    expect(found).toContain('GET /api/transcriptions/{id}');
    expect(found).toContain('GET /api/transcriptions/usage');
    expect(found).toContain('DELETE /api/devices/{sn}');
    expect(found).toContain('GET /api/behavior/translation');
    expect(found).not.toContain('GET /api/transcriptions');
    expect(found).not.toContain('PATCH /api/transcriptions/{id}');
  });
});
