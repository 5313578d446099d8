import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, editCopy, runInCopy } from '../support/project-copy';

/**
 * npm run new:endpoint, run as its author runs it, in a temporary copy of the project: the route
 * it scaffolds, once the places it marks are written, passes the test it wrote, run by vitest in
 * that copy (on this run's DynamoDB Local). Issue 46: an /admin route's test signs its requests as the
 * support CLI does (SigV4 with the local admin credentials), so it passes as a bearer route's does.
 */
let copy: string;

const inCopy = (command: string, args: string[]) => runInCopy(copy, command, args);
const resolve = (file: string, from: string | RegExp, to: string) => editCopy(copy, file, from, to);

beforeAll(() => {
  copy = copyProject('scaffold');
}, 120_000);
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('npm run new:endpoint in a copy of the project', () => {
  it("an /admin route (--auth iam): its test signs as the support CLI does and passes once the handler's marks are resolved", () => {
    inCopy('tsx', ['infra/tools/new-endpoint.ts', 'POST /admin/users/{userId}/note', '--auth', 'iam', '--no-generate']);
    const handler = 'functions/admin/create-users-note.ts';
    const testFile = 'test/integration/admin-create-users-note.test.ts';
    const test = readFileSync(join(copy, testFile), 'utf8');
    expect(test).toContain('adminHelpers');
    expect(test).toContain("admin.call({ method: 'POST', path: `/admin/users/${item.userId}/note`, body: { reason: REASON } })");
    expect(test).not.toContain('token');
    expect(readFileSync(join(copy, 'shared/routes.ts'), 'utf8')).toContain("route('POST', '/admin/users/{userId}/note', 'functions/admin/create-users-note.ts', admin('write', ");

    // What the author writes: the behaviour (here: an answer) and the item the test acts on.
    resolve(handler, /run: async \(_input, _ctx\) => \{[\s\S]*?\n {2}\},/, "run: async () => succeeded('Noted.'),");
    resolve(handler, "import { adminEndpoint } from '../../shared/http/admin-endpoint';", "import { adminEndpoint } from '../../shared/http/admin-endpoint';\nimport { succeeded } from '../../shared/http/response';");
    resolve(testFile, /throw new Error\(`TODO\(new:endpoint\): an item of account \$\{account\.userId\}`\);/, 'return { userId: String(account.userId) };');

    const run = inCopy('vitest', ['run', testFile, '--reporter=verbose']);
    expect(run).toContain('answers 200 for an existing one');
    expect(run).toContain('refuses a request without a signature');
    expect(run).toMatch(/Tests\s+.*3 passed/);
  }, 240_000);
});
