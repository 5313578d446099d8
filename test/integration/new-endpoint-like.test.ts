import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, editCopy, runInCopy } from '../support/project-copy';

/**
 * npm run new:endpoint --like (issue 47), run as its author runs it, in a temporary copy of the
 * project: GET /api/behavior/subtitle-layout made like GET /api/behavior/translation. Once the
 * lines it marks are made the new route's (as a person would: the event type and its values), and
 * the generators run (`--regenerate`), the test file it copied passes in that copy (on this run's
 * DynamoDB Local) and route coverage names no place missing but the two cost rows, which
 * `npm run cost -- --write-budget 'GET /api/behavior/subtitle-layout'` and
 * `npm run cost -- --only 'GET /api/behavior/subtitle-layout'` write by measuring for minutes.
 */
let copy: string;
const ID = 'GET /api/behavior/subtitle-layout';
const MARKER = `TODO(${'new:endpoint'})`;

const inCopy = (command: string, args: string[]) => runInCopy(copy, command, args);
const read = (file: string) => readFileSync(join(copy, file), 'utf8');

/** What its author does with each marked line of a copied file: translation_on ('true'/'false') becomes subtitle_layout ('top'/'bottom'). */
function resolveMarkedLines(file: string): void {
  const lines = read(file).split('\n');
  const out: string[] = [];
  for (let at = 0; at < lines.length; at++) {
    if (!lines[at]!.includes(MARKER)) {
      out.push(lines[at]!);
      continue;
    }
    at++;
    out.push(lines[at]!.replaceAll("'translation_on'", "'subtitle_layout'").replaceAll("'true'", "'top'").replaceAll("'false'", "'bottom'"));
  }
  writeFileSync(join(copy, file), out.join('\n'));
}

beforeAll(() => {
  copy = copyProject('scaffold-like');
}, 120_000);
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('npm run new:endpoint --like in a copy of the project', () => {
  it("makes GET /api/behavior/subtitle-layout like GET /api/behavior/translation: its copied test passes once the marked lines are the new route's, and no place is missing", () => {
    const output = inCopy('tsx', ['infra/tools/new-endpoint.ts', ID, '--like', 'GET /api/behavior/translation', '--no-generate']);
    // The last thing it prints is the one command to run after the markers.
    expect(output.trimEnd().split('\n').at(-1)).toBe('npm run new:endpoint -- --regenerate');

    const handler = 'functions/behavior/list-subtitle-layout.ts';
    const testFile = 'test/integration/behavior-list-subtitle-layout.test.ts';
    // The sibling's route line, needs and all, for the new path.
    expect(read('shared/routes.ts')).toContain(`route('GET', '/api/behavior/subtitle-layout', '${handler}', { dynamodb: { actions: ['GetItem', 'Query'] } }),`);
    // Its handler: the path is the new one, the event type it reads is marked.
    expect(read(handler)).toMatch(new RegExp(`${MARKER.replace(/[()]/g, '\\$&')}.*\\n.*eventListEndpoint\\('GET /api/behavior/subtitle-layout', 'translation_on'\\)`));
    // Its test: the cases of behavior.test.ts that request the sibling, re-aimed (identifiers renamed, the /api/v1 alias too), nothing of the sibling's path left.
    const test = read(testFile);
    expect(test).toContain("describe('GET /api/behavior/subtitle-layout'");
    expect(test).toContain("const subtitleLayout = await list(account, '/api/behavior/subtitle-layout');");
    expect(test).toContain("'/api/v1/behavior/subtitle-layout'");
    expect(test).not.toMatch(/['`]\/api\/(v1\/)?behavior\/translation/);
    expect(test).not.toContain("describe('POST /api/behavior/login"); // only the cases that request the sibling
    // Its usage profile figure (0: nobody calls it yet) and cost driver.
    expect(JSON.parse(read('cost/usage-profile.json')).callsPerUserPerMonth[ID]).toBe(0);
    expect(read('test/bench/cost-drivers.ts')).toContain(`'${ID}': { prepare: async ({ typical }) => ({ account: typical }) },`);

    // What the author writes: each marked line made the new route's.
    resolveMarkedLines(handler);
    resolveMarkedLines(testFile);
    // The stats case lists types in the seed's order, where subtitle_layout comes after voice_provider.
    editCopy(copy, testFile, /( +\{ eventType: 'subtitle_layout'.*\n)( +\{ eventType: 'voice_provider'.*\n)/, '$2$1');
    // The conformance block and table-grants flow it wrote already drive the 200 (a list takes no item).
    editCopy(copy, 'test/integration/openapi-conformance.test.ts', new RegExp(` *// ${MARKER.replace(/[()]/g, '\\$&')}: drive it to 200.*\\n`), '');
    editCopy(copy, 'test/integration/table-grants.test.ts', `${ID}: ${MARKER}: calls that take each branch`, `${ID}: a page of the caller's subtitle_layout events`);

    // The generators, once, now that the handler says what it does.
    inCopy('tsx', ['infra/tools/new-endpoint.ts', '--regenerate']);
    const operation = JSON.parse(read('shared/http/openapi-document.generated.json')).paths['/behavior/subtitle-layout'].get;
    expect(operation.summary).toBe('List your subtitle_layout events');
    expect(read('docs/api.md')).toContain('| GET | `/api/behavior/subtitle-layout` |');

    const run = inCopy('vitest', ['run', testFile, '--reporter=verbose']);
    expect(run).toContain('lists only events of the path’s type, newest first, with location null');
    expect(run).toMatch(/Tests\s+.*2 passed/);

    // Route coverage in the copy: no marker left, no place missing but the measured cost rows (see above).
    const coverage = inCopy('tsx', [
      '-e',
      "import { missingCoverage, scaffoldMarkers } from './test/support/route-coverage'; console.log(JSON.stringify({ missing: missingCoverage(), markers: scaffoldMarkers() }));",
    ]);
    const { missing, markers } = JSON.parse(coverage.trim().split('\n').at(-1)!) as { missing: string[]; markers: string[] };
    expect(markers).toEqual([]);
    expect(missing.map((line) => line.split(': edit ')[0])).toEqual([`${ID}: no capacity budget entry`, `${ID}: no cost measurement entry`]);
  }, 300_000);
});
