import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project-root';
import { MARKER, editsOf, handlerSource, likeTestSource, likeText, planOf, routeLine, testSource, withRoute } from '../../infra/tools/new-endpoint';

/**
 * npm run new:endpoint (infra/tools/new-endpoint.ts): the plan it makes of its arguments, and that
 * each file it edits still has the place it writes into (a changed layout fails here, not in the
 * hands of the next route's author).
 */
describe('npm run new:endpoint', () => {
  it('picks the template, table access and handler file from the method and path', () => {
    expect(planOf(['GET /api/gadgets/{gadgetId}'])).toMatchObject({ template: 'read', auth: 'bearer', table: 'read', actions: ['GetItem'], handler: 'functions/gadgets/get.ts', testFile: 'test/integration/gadgets-get.test.ts' });
    expect(planOf(['POST /api/gadgets/{gadgetId}/rename'])).toMatchObject({ template: 'write', table: 'read-write', handler: 'functions/gadgets/create-rename.ts' });
    expect(planOf(['DELETE /api/gadgets/{gadgetId}'])).toMatchObject({ template: 'write', actions: ['DeleteItem', 'ConditionCheckItem'], handler: 'functions/gadgets/delete.ts' });
    expect(planOf(['GET /api/gadgets', '--response', 'deviceListSchema'])).toMatchObject({ template: 'list', actions: ['GetItem', 'Query'] });
    expect(() => planOf(['GET /api/gadgets'])).toThrow(/--response/);
    expect(planOf(['GET /api/gadgets/{gadgetId}', '--template', 'public'])).toMatchObject({ auth: 'none' });
    expect(() => planOf(['GET /api/devices'])).toThrow(/already/);
  });

  it('writes an auth kind it does not know as given, and marks how it refuses a request without credentials', () => {
    const plan = planOf(['GET /api/gadgets/{gadgetId}', '--auth', 'mtls', '--actions', 'GetItem,Query']);
    expect(routeLine(plan)).toBe("  route('GET', '/api/gadgets/{gadgetId}', 'functions/gadgets/get.ts', { auth: 'mtls', dynamodb: { actions: ['GetItem', 'Query'] } }),\n");
    const test = testSource(plan);
    expect(test).toContain(`${MARKER}: how mtls refuses a request without credentials`);
    // Isolation is between accounts: a kind not known to be an account's gets the case as a marker to decide.
    expect(test).toContain('stranger');
  });

  it('knows that the support team\'s iam routes refuse an unsigned request with 403 (issue 37), and signs the others as the support CLI does (issue 46)', () => {
    const plan = planOf(['GET /admin/gadgets/{gadgetId}', '--auth', 'iam', '--actions', 'GetItem,Query']);
    expect(plan).toMatchObject({ handler: 'functions/admin/get-gadgets.ts', table: 'read-write', actions: ['GetItem', 'Query', 'PutItem'] });
    expect(routeLine(plan)).toBe("  route('GET', '/admin/gadgets/{gadgetId}', 'functions/admin/get-gadgets.ts', admin('read', ['GetItem', 'Query', 'PutItem'])),\n");
    expect(handlerSource(plan)).toContain("adminEndpoint('GET /admin/gadgets/{gadgetId}'");
    const test = testSource(plan);
    expect(test).not.toContain(`${MARKER}: how iam refuses`);
    expect(test).toMatch(/refuses a request without a signature[\s\S]*toBe\(403\)/);
    expect(test).toContain("admin.call({ method: 'GET', path: `/admin/gadgets/${item.gadgetId}` })");
    expect(test).not.toContain('token');
    expect(handlerSource(planOf(['POST /admin/gadgets/{gadgetId}/polish', '--auth', 'iam']))).toContain('body: adminReasonBody');
    expect(() => planOf(['GET /admin/gadgets'])).not.toThrow();
    expect(() => planOf(['GET /api/gadgets/{gadgetId}', '--auth', 'iam'])).toThrow(/only they/);
    expect(() => planOf(['PATCH /admin/gadgets/{gadgetId}', '--auth', 'iam'])).toThrow(/GET, POST, PUT and DELETE/);
  });

  it("--like: takes the sibling's needs, renames what names it and marks what may differ (issue 47)", () => {
    const plan = planOf(['GET /api/behavior/subtitle-layout', '--like', 'GET /api/behavior/translation']);
    expect(plan).toMatchObject({ id: 'GET /api/behavior/subtitle-layout', template: 'list', auth: 'bearer', table: 'read', actions: ['GetItem', 'Query'], handler: 'functions/behavior/list-subtitle-layout.ts' });
    const source = readFileSync(join(PROJECT_ROOT, 'shared/routes.ts'), 'utf8');
    expect(withRoute(source, plan)).toContain("  route('GET', '/api/behavior/subtitle-layout', 'functions/behavior/list-subtitle-layout.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),");
    // Its needs come from the sibling, whatever they are: a public one's auth, a strict one's throttle.
    expect(planOf(['POST /api/verify-code/resend', '--like', 'POST /api/verify-code/send'])).toMatchObject({ auth: 'none', needs: { sender: true, strict: true } });
    const text = [
      "const translation = await list(account, '/api/v1/behavior/translation?limit=1');",
      "await postEvent(api, account, 'translation_on', 'true');",
      "expect(entry.eventValue).toBe('true');",
      'expect(newestTranslation).toBeDefined();',
      "expect(entry.location).toBe('Home');",
    ].join('\n');
    const lines = likeText(text, plan, plan.like!).split('\n');
    const markedLine = (needle: string) => lines[lines.findIndex((line) => line.includes(needle)) - 1]!.includes(MARKER);
    expect(lines).toContain("const subtitleLayout = await list(account, '/api/v1/behavior/subtitle-layout?limit=1');");
    expect(lines).toContain('expect(newestSubtitleLayout).toBeDefined();');
    expect(markedLine('const subtitleLayout')).toBe(true); // its path
    expect(markedLine("'translation_on'")).toBe(true); // what it reads
    expect(markedLine("toBe('true')")).toBe(true); // a value beside it
    expect(markedLine("toBe('Home')")).toBe(false);
    expect(markedLine('newestSubtitleLayout')).toBe(false);
    expect(likeTestSource(plan, plan.like!)).toMatch(/^describe\('GET \/api\/behavior\/subtitle-layout'/m);
    expect(() => planOf(['GET /api/behavior/subtitle-layout', '--like', 'GET /api/behavior/nothing'])).toThrow(/no such route/);
  });

  it('puts the route after the last of its area', () => {
    const source = readFileSync(join(PROJECT_ROOT, 'shared/routes.ts'), 'utf8');
    const lines = withRoute(source, planOf(['GET /api/devices/{gadget}/x'])).split('\n');
    const at = lines.findIndex((line) => line.includes("'/api/devices/{gadget}/x'"));
    expect(lines[at - 1]).toContain("'/api/devices/{sn}'");
  });

  it('finds in each file the place it writes into', () => {
    for (const args of [['GET /api/gadgets/{gadgetId}'], ['POST /api/gadgets'], ['GET /api/gadgets', '--response', 'deviceListSchema'], ['GET /api/gadgets/{gadgetId}', '--auth', 'none'], ['POST /admin/gadgets/{gadgetId}', '--auth', 'iam']]) {
      const plan = planOf(args);
      for (const edit of editsOf(plan)) {
        const source = readFileSync(join(PROJECT_ROOT, edit.file), 'utf8');
        expect(edit.apply(source), `${args.join(' ')}: ${edit.file}`).not.toBe(source);
      }
      expect(handlerSource(plan)).toContain(`${plan.template === 'list' ? 'listEndpoint' : plan.auth === 'iam' ? 'adminEndpoint' : 'endpoint'}('${plan.id}'`);
    }
  });
});
