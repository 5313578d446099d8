import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import type { BundlingOptions, ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';
import { PROJECT_ROOT } from '../project-root';
import { BundleCache, sha256 } from './bundle-cache';
import { lambdaEsbuildOptions } from './options';

/** The file every bundle is written to; a function's handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
export const BUNDLE_HANDLER = 'index.handler';

export interface BundleInput {
  /** Handler source, relative to the project root. */
  entry: string;
  /** esbuild conditions (`routeConditions` of ./options.ts). */
  conditions?: readonly string[];
  /** esbuild defines (`routeDefine` / `authorizerDefine` of ./options.ts). */
  define?: Record<string, string>;
}

/** The esbuild options of one function: `lambdaEsbuildOptions` as they are, its entry, conditions and defines. */
export function functionBuildOptions(input: BundleInput): BuildOptions {
  return {
    ...lambdaEsbuildOptions,
    mainFields: [...lambdaEsbuildOptions.mainFields],
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [join(PROJECT_ROOT, input.entry)],
    ...(input.conditions ? { conditions: [...input.conditions] } : {}),
    ...(input.define ? { define: input.define } : {}),
    logLevel: 'warning',
  };
}

/**
 * CDK's local bundling, done by esbuild's JavaScript API inside the synthesizing process, through
 * the project's bundle cache (./bundle-cache.ts). Its fields are what CDK's in-memory asset cache
 * keys on (CDK hashes the bundling options as JSON), so two functions with the same entry and
 * settings share one bundle within a synthesis.
 */
class InProcessEsbuild implements ILocalBundling {
  constructor(readonly options: BuildOptions) {}

  tryBundle(outputDir: string): boolean {
    const outfile = join(outputDir, BUNDLE_FILE);
    // buildSync throws with esbuild's messages on an error; warnings go to stderr as the CLI's
    // would. The metafile (kept with the bundle) changes nothing in the bundle.
    const metafile = bundleCache.bundle(this.options, outfile, () => buildSync({ ...this.options, outfile, metafile: true }).metafile!);
    recorded?.set(bundleDigest(readFileSync(outfile)), metafile);
    return true;
  }
}

/** Where the bundles of this checkout are kept between syntheses (the conventional place of tools' caches). */
const bundleCache = new BundleCache(PROJECT_ROOT, join(PROJECT_ROOT, 'node_modules/.cache/captioning-bundles'));

let recorded: Map<string, Metafile> | undefined;

/** The SHA-256 of a bundle's bytes, by which `recordBundleMetafiles` keys its metafile. */
export const bundleDigest = (bundle: Buffer): string => sha256(bundle);

/**
 * From now on, every bundle this process builds also leaves esbuild's metafile (what each input
 * contributes) here, by the digest of the bundle's bytes. The tests' cache of the deployed bundles
 * (test/support/built-functions.ts) turns it on, so that the bundle goals are checked on the
 * bundles a synthesis makes rather than on a second build; a deployment never does.
 */
export function recordBundleMetafiles(): ReadonlyMap<string, Metafile> {
  recorded ??= new Map();
  return recorded;
}

/**
 * A function's code: its entry bundled by esbuild as `lambdaEsbuildOptions` say, into one
 * `index.mjs`, hashed by its output (an unchanged bundle is an unchanged asset).
 *
 * Why not NodejsFunction's own bundling: it runs esbuild as `npx --no-install esbuild ...`, a
 * shell and an npm process per function (~0.3 s of CPU each here before esbuild starts, 73
 * functions per stage), and passes the options as command-line flags translated from its own
 * props. Here the same options object the benchmarks build with (test/bench/bundles.ts) goes to
 * esbuild's API, and one esbuild service serves every function of the synthesis (measured in
 * docs/architecture.md, "Bundling").
 */
export function bundledCode(input: BundleInput): Code {
  const options = functionBuildOptions(input);
  const bundling: BundlingOptions = {
    local: new InProcessEsbuild(options),
    // Never run: local bundling always succeeds or throws. CDK requires an image (NodejsFunction names the same placeholder).
    image: DockerImage.fromRegistry('dummy'),
  };
  return Code.fromAsset(PROJECT_ROOT, { assetHashType: AssetHashType.OUTPUT, bundling });
}
