import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import type { Metafile } from 'esbuild';
import { functionBuildOptions } from '../../infra/bundling/esbuild-code';
import { authorizerDefine, routeConditions, routeDefine } from '../../infra/bundling/options';
import { PROJECT_ROOT } from '../../infra/project-root';
import { authorizer, routeId, routes } from '../../shared/routes';
import { isData } from './goals';

/**
 * Every Lambda function built exactly as it is deployed (`functionBuildOptions`, as the stack builds it), one
 * esbuild run per function as the CDK stack does, plus the two floors the cold-import benchmark
 * compares against. Used by `npm run bench` and by test/unit/bundles.test.ts.
 */
export { PROJECT_ROOT };

export const AUTHORIZER = 'authorizer';
export const BASELINE_DYNAMODB = 'baseline: DynamoDB document client';
export const BASELINE_EMPTY = 'baseline: empty bundle';

export interface BundleTarget {
  /** A route id (`GET /api/users/me`), `authorizer`, or a baseline name. */
  name: string;
  entry: string;
  kind: 'function' | 'authorizer' | 'baseline' | 'part';
  /** What its cold import is compared with: the DynamoDB client alone, or an empty bundle. */
  floor: 'dynamodb' | 'empty';
  /** esbuild conditions, as the stack bundles the function (the adapters its route does not need). */
  conditions?: string[];
  /** esbuild defines, as the stack bundles the function (its own route entry, `routeDefine`). */
  define?: Record<string, string>;
}

export interface BuiltBundle extends BundleTarget {
  file: string;
  bytes: number;
  /** Bytes in the output from files outside node_modules that are code, not data: our own code. */
  ownBytes: number;
  /**
   * Bytes of the data modules (`DATA_CEILINGS` of goals.ts): the OpenAPI document, the common
   * passwords and libphonenumber-js's metadata. Not code: `bytes - dataBytes` meets the bundle goal.
   */
  dataBytes: number;
  /** Every import the bundle leaves to run time. */
  runtimeImports: string[];
  /** Bytes in the output per source file, for finding what makes a bundle big. */
  inputs: Record<string, number>;
  metafile: Metafile;
}

export function functionTargets(): BundleTarget[] {
  return [
    ...routes.map((route): BundleTarget => ({ name: routeId(route), entry: route.entry, kind: 'function', floor: 'dynamodb', conditions: routeConditions(route), define: routeDefine(route) })),
    { name: AUTHORIZER, entry: authorizer.entry, kind: 'authorizer', floor: 'empty', define: authorizerDefine },
  ];
}

export const baselineTargets = (): BundleTarget[] => [
  { name: BASELINE_DYNAMODB, entry: 'test/bench/baseline-dynamodb.ts', kind: 'baseline', floor: 'dynamodb' },
  { name: BASELINE_EMPTY, entry: 'test/bench/baseline-empty.ts', kind: 'baseline', floor: 'empty' },
];

const isOwn = (input: string) => !input.split(/[\\/]/).includes('node_modules');
const bytesOf = (inputs: Record<string, number>, include: (input: string) => boolean) =>
  Object.entries(inputs).reduce((sum, [path, bytes]) => sum + (include(path) ? bytes : 0), 0);

async function buildOne(target: BundleTarget, outdir: string, index: number): Promise<BuiltBundle> {
  // `.mjs` as the CDK's ESM bundling names it, so Node loads it as a module wherever it lies.
  const file = join(outdir, `${String(index).padStart(2, '0')}-${basename(target.entry, '.ts')}.mjs`);
  // The options the stack bundles with (functionBuildOptions of infra/bundling/esbuild-code.ts), plus the metafile the goals read.
  const result = await build({
    ...functionBuildOptions({ entry: target.entry, ...(target.conditions ? { conditions: target.conditions } : {}), ...(target.define ? { define: target.define } : {}) }),
    outfile: file,
    metafile: true,
    logLevel: 'error',
  });
  return describeBundle(target, file, result.metafile!);
}

/** A bundle and its metafile, read as the goals read them. */
export function describeBundle(target: BundleTarget, file: string, metafile: Metafile): BuiltBundle {
  const outputs = Object.values(metafile.outputs);
  if (outputs.length !== 1) throw new Error(`${target.entry}: expected one output file, got ${outputs.length}`);
  const output = outputs[0]!;
  const inputs = Object.fromEntries(Object.entries(output.inputs).map(([path, { bytesInOutput }]) => [path, bytesInOutput]));
  return {
    ...target,
    file,
    bytes: output.bytes,
    ownBytes: bytesOf(inputs, (input) => isOwn(input) && !isData(input)),
    dataBytes: bytesOf(inputs, isData),
    runtimeImports: [...new Set([...output.imports.filter((item) => item.external).map((item) => item.path), ...bareImportsIn(readFileSync(file, 'utf8'))])].sort(),
    inputs,
    metafile,
  };
}

/**
 * Module names the bundle text itself loads: `import ... from "x"`, `import("x")`, `require("x")`.
 * The metafile lists static externals; this also catches a `require` of a package that esbuild
 * could not resolve and left in place.
 */
export function bareImportsIn(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    // Not after a quote: a message quoting an import (tsyringe's "add 'import \"reflect-metadata\"'") loads nothing.
    /(?<!['"`])\bimport\s*(?:[\w*${}\s,]+from\s*)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.add(match[1]!);
  return [...found];
}

/** Builds the given targets into a fresh temporary directory (or `outdir`), in parallel. */
export async function buildBundles(targets: BundleTarget[], outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'))): Promise<BuiltBundle[]> {
  return Promise.all(targets.map((target, index) => buildOne(target, outdir, index)));
}

/** The two floors the cold-import benchmark compares against (`BundleTarget.floor`). */
export interface Floors {
  dynamodb: BuiltBundle;
  empty: BuiltBundle;
}

/** Builds `targets` and the two floors into one temporary directory (the floors' directory). */
export async function buildWithFloors(targets: BundleTarget[]): Promise<{ built: BuiltBundle[]; floors: Floors }> {
  const all = await buildBundles([...targets, ...baselineTargets()]);
  const floor = (name: string) => all.find((bundle) => bundle.name === name)!;
  return { built: all.filter((bundle) => bundle.kind !== 'baseline'), floors: { dynamodb: floor(BASELINE_DYNAMODB), empty: floor(BASELINE_EMPTY) } };
}

/** The biggest contributors to a bundle, by package (node_modules) or by file (our own code). */
export function largestInputs(bundle: BuiltBundle, count = 8): { input: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const [path, bytes] of Object.entries(bundle.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const key = match ? match[1]! : path;
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytes);
  }
  return [...byPackage]
    .map(([input, bytes]) => ({ input, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}
