import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { version as esbuildVersion } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';

/**
 * What a bundle is made from besides the packages in node_modules: a deployed bundle that read a
 * file outside these (and node_modules) would be served stale, so test/unit/bundles.test.ts fails
 * on one. The installed packages count through npm's record of them (node_modules/.package-lock.json,
 * rewritten by every install): without it nothing is kept.
 */
export const BUNDLE_SOURCES = ['functions', 'shared', 'infra/bundling', 'package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json'];

/** The sources' trees kept per checkout: this one and the one before (a branch switched back and forth). */
const TREES_KEPT = 2;

const BUNDLE = 'index.mjs';
// Gzipped: a metafile is larger than its bundle (32 MB against 23 MB for a stage) and shrinks tenfold.
const METAFILE = 'metafile.json.gz';

/**
 * Bundles already built from the very same sources, kept on disk so that the next synthesis
 * (`cdk synth` of another stage, `cdk deploy` after `cdk synth`, the tests' three CLI syntheses)
 * copies them instead of building again. A bundle is kept under the digest of everything it is
 * made from: its esbuild options (entry, conditions, defines, esbuild's version) and the content
 * of every file of `BUNDLE_SOURCES`. Any change there is a new digest, so a bundle is never served
 * for sources other than its own; a bundle whose sources changed while it was built is not kept.
 * Its measured gain: docs/architecture.md, "The bundle cache".
 */
export class BundleCache {
  private known: { signature: string; digest: string } | undefined;
  private evicted = false;

  /** `root`: the project whose `BUNDLE_SOURCES` are read; `directory`: where bundles are kept. */
  constructor(
    readonly root: string,
    readonly directory: string,
  ) {}

  /**
   * Puts the bundle of `options` at `outfile` and answers its metafile: copied from the cache when
   * the sources are the ones it was built from, else made by `build` (which writes `outfile`) and kept.
   */
  bundle(options: BuildOptions, outfile: string, build: () => Metafile): Metafile {
    const tree = this.sourcesDigest();
    if (tree === undefined) return build();
    const kept = join(this.directory, tree, sha256(JSON.stringify([esbuildVersion, options])));
    if (existsSync(join(kept, METAFILE))) {
      copyFileSync(join(kept, BUNDLE), outfile);
      return JSON.parse(gunzipSync(readFileSync(join(kept, METAFILE))).toString('utf8')) as Metafile;
    }
    const metafile = build();
    // Kept only if no source changed while esbuild read them: else it would stand for sources it was not built from.
    if (this.sourcesDigest() === tree) this.keep(tree, kept, outfile, metafile);
    return metafile;
  }

  /**
   * The digest of the sources' content, under a prefix naming the checkout (so that eviction leaves
   * other checkouts' trees alone); undefined when one is missing. Read again only when a file's
   * size or time changed since the last reading (what `git status` trusts as well).
   */
  private sourcesDigest(): string | undefined {
    const { files, missing } = filesUnder(this.root, BUNDLE_SOURCES);
    if (missing.length > 0) return undefined;
    const signature = files
      .map((path) => {
        const stat = statSync(join(this.root, path), { bigint: true });
        return `${path}\0${stat.size}\0${stat.mtimeNs}\0${stat.ino}`;
      })
      .join('\n');
    if (this.known?.signature !== signature) {
      this.known = { signature, digest: `${sha256(this.root).slice(0, 8)}-${contentDigest(this.root, files).slice(0, 32)}` };
    }
    return this.known.digest;
  }

  /** Publishes a built bundle by renaming a complete directory into place: a reader sees all of it or nothing. */
  private keep(tree: string, kept: string, outfile: string, metafile: Metafile): void {
    const staging = `${kept}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      mkdirSync(staging, { recursive: true });
      copyFileSync(outfile, join(staging, BUNDLE));
      writeFileSync(join(staging, METAFILE), gzipSync(JSON.stringify(metafile)));
      renameSync(staging, kept);
    } catch {
      // Another process kept the same bundle first, or the disk refused: the bundle built here stands either way.
      rmSync(staging, { recursive: true, force: true });
    }
    if (!this.evicted) this.evictOlderTrees(tree);
  }

  /** Leaves this checkout's newest trees (this one included), removing the older ones. */
  private evictOlderTrees(tree: string): void {
    this.evicted = true;
    const checkout = tree.split('-')[0]!;
    const trees = readdirSync(this.directory)
      .filter((name) => name.startsWith(`${checkout}-`) && name !== tree)
      .map((name) => ({ name, at: statSync(join(this.directory, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { name } of trees.slice(TREES_KEPT - 1)) rmSync(join(this.directory, name), { recursive: true, force: true });
  }
}

/** The SHA-256 of a text or bytes, in hex. */
export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The files under `paths` (folders walked in name order), relative to `root`, and the paths that do not exist. */
export function filesUnder(root: string, paths: readonly string[]): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (path: string) => {
    const full = join(root, path);
    if (!existsSync(full)) missing.push(path);
    else if (statSync(full).isDirectory()) for (const name of readdirSync(full).sort()) walk(`${path}/${name}`);
    else files.push(path);
  };
  paths.forEach(walk);
  return { files, missing };
}

/** The SHA-256 (hex) of the files' names and content, after `prefix`: equal exactly when every file is. */
export function contentDigest(root: string, files: readonly string[], prefix = ''): string {
  const hash = createHash('sha256').update(prefix);
  for (const path of files) hash.update(`${path}\0`).update(readFileSync(join(root, path))).update('\0');
  return hash.digest('hex');
}
