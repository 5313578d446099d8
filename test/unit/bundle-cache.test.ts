import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BundleCache } from '../../infra/bundling/bundle-cache';

/**
 * The bundle cache of `cdk synth` (infra/bundling/bundle-cache.ts) on a small project of its own:
 * a bundle comes from the cache only for the sources it was built from, built by esbuild as the
 * stack builds them.
 */
let work: string;
let project: string;
let cacheDirectory: string;

const write = (path: string, text: string) => {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
};

function makeProject(root: string) {
  project = root;
  write('functions/hello.ts', "import { greeting } from '../shared/greeting';\nexport const handler = () => greeting;\n");
  write('shared/greeting.ts', "export const greeting = 'hello from the first version';\n");
  mkdirSync(join(project, 'infra/bundling'), { recursive: true });
  write('package.json', '{"name":"small","type":"module"}');
  write('package-lock.json', '{"lockfileVersion":3}');
  write('tsconfig.json', '{}');
  write('node_modules/.package-lock.json', '{"lockfileVersion":3,"packages":{}}');
}

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
  cacheDirectory = join(work, 'cache');
  makeProject(join(work, 'project'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A synthesis's bundling of the one function: its bundle's text, and whether esbuild ran. */
function synthesize(cache = new BundleCache(project, cacheDirectory), beforeBuild = () => {}): { text: string; built: boolean; metafile: Metafile } {
  const options: BuildOptions = { entryPoints: [join(project, 'functions/hello.ts')], absWorkingDir: project, bundle: true, format: 'esm', platform: 'node', logLevel: 'silent' };
  const outfile = join(mkdtempSync(join(work, 'asset-')), 'index.mjs');
  let built = false;
  const metafile = cache.bundle(options, outfile, () => {
    built = true;
    beforeBuild();
    return buildSync({ ...options, outfile, metafile: true }).metafile!;
  });
  return { text: readFileSync(outfile, 'utf8'), built, metafile };
}

const trees = () => readdirSync(cacheDirectory).filter((name) => !name.includes('.'));

describe('the bundle cache of cdk synth', () => {
  it('serves a second synthesis of the same sources from the cache: the same bytes and metafile, esbuild not run', () => {
    const first = synthesize();
    const second = synthesize();
    expect(first.built).toBe(true);
    expect(second.built).toBe(false);
    expect(second.text).toBe(first.text);
    expect(second.text).toContain('hello from the first version');
    expect(second.metafile).toEqual(first.metafile);
    expect(Object.keys(second.metafile.inputs).sort()).toEqual(['functions/hello.ts', 'shared/greeting.ts']);
  });

  it('builds again after a change to any source, or to the installed packages, and the bundle carries the change', () => {
    synthesize();
    write('shared/greeting.ts', "export const greeting = 'hello from the second version';\n");
    const changed = synthesize();
    expect(changed.built).toBe(true);
    expect(changed.text).toContain('hello from the second version');
    expect(synthesize().built).toBe(false);

    write('node_modules/.package-lock.json', '{"lockfileVersion":3,"packages":{"node_modules/x":{"version":"2.0.0"}}}');
    expect(synthesize().built).toBe(true);
    // The old content again: its bundle carries the old text.
    write('shared/greeting.ts', "export const greeting = 'hello from the first version';\n");
    write('node_modules/.package-lock.json', '{"lockfileVersion":3,"packages":{}}');
    const back = synthesize();
    expect(back.text).toContain('hello from the first version');
  });

  it('keeps no bundle whose sources changed while esbuild read them', () => {
    const original = "export const greeting = 'hello from the first version';\n";
    // An edit lands between the cache's reading of the sources and esbuild's.
    const during = synthesize(undefined, () => write('shared/greeting.ts', "export const greeting = 'edited during the build';\n"));
    expect(during.text).toContain('edited during the build');
    // Put back: the sources are the ones read before the edit, and their bundle must be built from them.
    write('shared/greeting.ts', original);
    const after = synthesize();
    expect(after.built).toBe(true);
    expect(after.text).toContain('hello from the first version');
  });

  it('keeps nothing where npm left no record of the installed packages', () => {
    rmSync(join(project, 'node_modules/.package-lock.json'));
    expect(synthesize().built).toBe(true);
    expect(synthesize().built).toBe(true);
    expect(readdirSync(work)).not.toContain('cache');
  });

  it('lets the bundle of another synthesis that kept it first stand, and answers its own', () => {
    const other = new BundleCache(project, cacheDirectory);
    // While this synthesis builds, another (a second `cdk synth`) builds and keeps the same bundle.
    const raced = synthesize(undefined, () => expect(synthesize(other).built).toBe(true));
    expect(raced.built).toBe(true);
    expect(raced.text).toContain('hello from the first version');
    expect(readdirSync(join(cacheDirectory, trees()[0]!))).toHaveLength(1);
    expect(synthesize().built).toBe(false);
  });

  it("keeps this checkout's two newest trees and leaves other checkouts' alone", () => {
    const mine = project;
    makeProject(join(work, 'other-checkout'));
    synthesize();
    project = mine;
    for (const version of ['one', 'two', 'three']) {
      write('shared/greeting.ts', `export const greeting = '${version}';\n`);
      // A new cache each time, as each `cdk synth` is a process of its own.
      synthesize();
    }
    expect(trees()).toHaveLength(3);
    expect(synthesize().built).toBe(false);
    write('shared/greeting.ts', "export const greeting = 'two';\n");
    expect(synthesize().built).toBe(false);
    write('shared/greeting.ts', "export const greeting = 'one';\n");
    expect(synthesize().built).toBe(true);
  });
});
