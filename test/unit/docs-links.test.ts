import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchorsOf, documentFiles, isExternal, linksOf, readDocument, relativeToRoot } from '../support/markdown';

/** Issue 27: every relative link of README.md and docs/ leads somewhere, down to its #anchor, and every file they name exists. */
describe('links in README.md and docs/', () => {
  const files = documentFiles();

  it('finds the pages and their links', () => {
    expect(files).toContain('docs/api.md');
    expect(files.flatMap((file) => linksOf(file, readDocument(file))).length).toBeGreaterThan(20);
  });

  it('resolve: every relative file exists, and every #anchor names a heading of its page', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of linksOf(file, readDocument(file))) {
        if (isExternal(link.target)) continue;
        const [path, anchor] = link.target.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
        const where = `${link.file}:${link.line} ${link.target}`;
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
          broken.push(`${where}: no file ${relativeToRoot(resolved)}`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile() && !anchorsOf(readDocument(relativeToRoot(resolved))).has(anchor)) {
          broken.push(`${where}: no heading #${anchor} in ${relativeToRoot(resolved)}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only files that exist where they name a file of the repository in code (`shared/...`)', () => {
    // Named as what was removed, on purpose.
    const removed = new Set(['shared/packed-text.ts', 'infra/tools/packed-text.ts']);
    const missing = files.flatMap((file) =>
      [...readDocument(file).matchAll(/`((?:shared|infra|functions|test|cost|client|docs|\.ci)\/[\w./-]*)`/g)]
        .map((match) => match[1]!)
        .filter((path) => !path.includes('...') && !removed.has(path) && !existsSync(join(ROOT, path)))
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('are checked for real: a missing page and a missing anchor are found', () => {
    const text = '# Title\n\n[ok](#title) [gone](#nowhere) [missing](no-such-page.md)\n\n```sh\n# not a heading\n```\n';
    expect([...anchorsOf(text)]).toEqual(['title']);
    expect(linksOf('docs/x.md', text).map((link) => link.target)).toEqual(['#title', '#nowhere', 'no-such-page.md']);
    expect(anchorsOf('## How `npm run bench` measures\n## The reference: OpenAPI and /docs\n## A\n## A').has('how-npm-run-bench-measures')).toBe(true);
    expect([...anchorsOf('## The reference: OpenAPI and /docs\n## A\n## A')]).toEqual(['the-reference-openapi-and-docs', 'a', 'a-1']);
  });
});
