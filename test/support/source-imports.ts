import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { PROJECT_ROOT } from '../../infra/project-root';
import type { RouteDefinition } from '../../shared/routes';

/**
 * What the sources import, read from their text: the tests that hold a route's bundle or grant to
 * what its handler needs derive the routes from here, not from a list. Only run-time imports count
 * (`import type` and `type` specifiers are erased); a relative specifier is resolved to its file,
 * a package's is kept as written.
 */
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:([\s\S]*?)\s+from\s+)?['"]([^'"]+)['"];?/gm;

const cache = new Map<string, Map<string, Set<string>>>();

const resolve = (from: string, specifier: string): string => {
  if (!specifier.startsWith('.')) return specifier;
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => existsSync(join(PROJECT_ROOT, candidate))) ?? base;
};

/** The modules a file (relative to the project root) imports at run time, each with the names it takes (`*` for a namespace or default, nothing for a bare import). */
export function importsOf(file: string): Map<string, Set<string>> {
  const known = cache.get(file);
  if (known) return known;
  const found = new Map<string, Set<string>>();
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  for (const [, typeOnly, clause, specifier] of text.matchAll(IMPORT)) {
    if (typeOnly) continue;
    const names = new Set<string>();
    const braces = clause?.match(/\{([\s\S]*)\}/)?.[1];
    for (const part of braces?.split(',') ?? []) {
      const name = part.trim().split(/\s+as\s+/)[0]!.trim();
      if (name && !name.startsWith('type ')) names.add(name);
    }
    if (clause && (!braces || /^\s*[\w$]+\s*,|\*/.test(clause))) names.add('*');
    // `import { type A } from`: nothing of it at run time.
    if (braces !== undefined && names.size === 0 && !/^\s*[\w$]+\s*,/.test(clause!)) continue;
    const module = resolve(file, specifier!);
    found.set(module, new Set([...(found.get(module) ?? []), ...names]));
  }
  cache.set(file, found);
  return found;
}

/** Every project file a file reaches through run-time imports, itself included. */
export function importGraph(entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    for (const module of importsOf(file).keys()) if (module.endsWith('.ts')) pending.push(module);
  }
  return reached;
}

/** The project's TypeScript files under a folder, relative to the project root. */
export function sourcesUnder(folder: string): string[] {
  return readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => posix.join(relative(PROJECT_ROOT, entry.parentPath).split(sep).join('/'), entry.name));
}

/** The route's handler file imports one of the names from the module (directly, not through another module). */
export const handlerImports = (route: RouteDefinition, module: string, names: readonly string[]): boolean =>
  [...(importsOf(route.entry).get(module) ?? [])].some((name) => names.includes(name) || name === '*');
