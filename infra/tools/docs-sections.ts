import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-root';

/**
 * Generated sections of the documents: the text between `<!-- generated:<name> -->` and
 * `<!-- /generated:<name> -->` is written by a script (npm run docs:generate, bench, cost) and
 * compared with the code by test/unit/docs-generated.test.ts, so a figure cannot drift.
 */
const SECTION = /<!-- generated:([\w-]+) -->\n?([\s\S]*?)<!-- \/generated:\1 -->/g;

/** Every generated section of a text, by name: its content, without the markers. */
export function sectionsOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(SECTION)].map(([, name, content]) => [name!, content!]));
}

/** The text with the named sections' content replaced; a section the text lacks is an error, not silently skipped. */
export function withSections(text: string, contents: Readonly<Record<string, string>>): string {
  const present = sectionsOf(text);
  const missing = Object.keys(contents).filter((name) => !present.has(name));
  if (missing.length > 0) throw new Error(`no generated section ${missing.join(', ')}`);
  return text.replace(SECTION, (whole, name: string) =>
    name in contents ? `<!-- generated:${name} -->\n${ensureNewline(contents[name]!)}<!-- /generated:${name} -->` : whole,
  );
}

const ensureNewline = (content: string) => (content === '' || content.endsWith('\n') ? content : `${content}\n`);

/** Rewrites the named sections of a file under the project root; answers whether it changed. */
export function writeSections(file: string, contents: Readonly<Record<string, string>>): boolean {
  const path = join(PROJECT_ROOT, file);
  const before = readFileSync(path, 'utf8');
  const after = withSections(before, contents);
  if (after !== before) writeFileSync(path, after);
  return after !== before;
}

/** The content of one generated section of a file under the project root. */
export function readSection(file: string, name: string): string | undefined {
  return sectionsOf(readFileSync(join(PROJECT_ROOT, file), 'utf8')).get(name);
}
