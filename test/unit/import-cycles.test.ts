import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project-root';
import { sourcesUnder } from '../support/source-imports';

/**
 * Dependencies point one way (functions -> http -> domain -> api/db -> config): no two files of
 * ours import each other, directly or around a circle, type imports included (a type-only circle
 * is the same knot for whoever changes either file). `npm run lint` holds value imports to this
 * with import-x/no-cycle, which by design passes over `import type`; this test covers those too.
 */
const SOURCE_FOLDERS = ['functions', 'shared', 'infra', 'client/src'];
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm;

const sourceFiles = (): string[] => SOURCE_FOLDERS.flatMap(sourcesUnder).map((file) => join(PROJECT_ROOT, file));

/** Every circle of relative imports, each as the files around it. */
function importCycles(files: readonly string[], read: (file: string) => string): string[][] {
  const known = new Set(files);
  const edges = new Map(
    files.map((file) => [
      file,
      [...read(file).matchAll(IMPORT)].map(([, specifier]) => resolve(dirname(file), specifier!).replace(/(?<!\.ts)$/, '.ts')).filter((target) => known.has(target)),
    ]),
  );
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of edges.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push(path.slice(path.indexOf(target)));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

describe('imports', () => {
  it('finds a circle when there is one (the check itself)', () => {
    const sources: Record<string, string> = {
      '/p/a.ts': "import { b } from './b';",
      '/p/b.ts': "import type { c } from './c';",
      '/p/c.ts': "export { a } from './a';",
      '/p/d.ts': "import { a } from './a';",
    };
    expect(importCycles(Object.keys(sources), (file) => sources[file]!)).toEqual([['/p/a.ts', '/p/b.ts', '/p/c.ts']]);
  });

  it('form no circle between the files of functions/, shared/ and infra/', () => {
    const cycles = importCycles(sourceFiles(), (file) => readFileSync(file, 'utf8'));
    expect(cycles.map((cycle) => cycle.map((file) => relative(PROJECT_ROOT, file)).join(' -> '))).toEqual([]);
  });
});
