import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeBundle, functionTargets } from '../bench/bundles';
import type { BuiltBundle } from '../bench/bundles';
import { DATA_CEILINGS, GOALS, KB, isIdentityBundle, ownCodeGoal, isWebauthnBundle } from '../bench/goals';
import { GENERATED_ADMIN_DOCUMENT, GENERATED_DOCUMENT } from '../../infra/tools/openapi';
import { PHONE_PATTERN } from '../../shared/identity/phone-targets';
import { routeId, routes } from '../../shared/routes';
import type { Metafile } from 'esbuild';
import { BUNDLE_SOURCES } from '../../infra/bundling/bundle-cache';
import { BUNDLE_FILE } from '../../infra/bundling/esbuild-code';
import { builtFunctions } from '../support/built-functions';
import { handlerImports, importGraph, importsOf, sourcesUnder } from '../support/source-imports';

/**
 * Every function's bundle as `cdk synth` builds it (the deployment's bundles, test/support/built-functions.ts,
 * made with the options `npm run bench` measures with): nothing may be left to load at run time but Node's own modules, and the bundles
 * stay within the size goals of issue 17 (docs/performance.md).
 *
 * Classic zod is gone from every bundle (ESLint forbids it in shared/ and functions/), and this test
 * fails should it come back. Data (the password list, libphonenumber-js's metadata and the packed
 * OpenAPI document: goals.ts `DATA_CEILINGS`) is not code: each module is held to a ceiling of its
 * own, outside the bundle and own-code goals.
 */
const CLASSIC_ZOD = /node_modules\/zod\/v4\/classic\//;
const PHONE_PARSING = /node_modules\/libphonenumber-js\//;

const contains = (bundle: BuiltBundle, pattern: RegExp) => Object.keys(bundle.inputs).some((input) => pattern.test(input));
const inputsOf = (bundle: BuiltBundle, pattern: RegExp) => Object.keys(bundle.inputs).filter((input) => pattern.test(input));

/**
 * The operations of both documents whose request (a parameter or the body) has a field of the
 * phone pattern: those that read a phone number.
 */
function operationsReadingPhones(): string[] {
  const found: string[] = [];
  for (const [file, prefix] of [[GENERATED_DOCUMENT, '/api'], [GENERATED_ADMIN_DOCUMENT, '']] as const) {
    const document = JSON.parse(readFileSync(file, 'utf8')) as { paths: Record<string, Record<string, { parameters?: unknown; requestBody?: unknown }>> };
    const refs = new Set<string>();
    const hasPhone = (node: unknown): boolean => {
      if (Array.isArray(node)) return node.some(hasPhone);
      if (node === null || typeof node !== 'object') return false;
      const record = node as Record<string, unknown>;
      if (typeof record.$ref === 'string') {
        if (refs.has(record.$ref)) return false;
        refs.add(record.$ref);
        return hasPhone(record.$ref.slice(2).split('/').reduce((at: any, name) => at[name.replaceAll('~1', '/').replaceAll('~0', '~')], document));
      }
      return record.pattern === PHONE_PATTERN.source || Object.values(record).some(hasPhone);
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        refs.clear();
        if (hasPhone([operation.parameters, operation.requestBody])) found.push(`${method.toUpperCase()} ${prefix}${path}`);
      }
    }
  }
  return found.sort();
}

function sizeLimit(bundle: BuiltBundle): { bytes: number; why: string } {
  if (bundle.kind === 'authorizer') return { bytes: GOALS.authorizerBytes, why: 'authorizer goal' };
  if (isWebauthnBundle(bundle.inputs)) return { bytes: GOALS.webauthnBytes, why: 'passkey verification goal' };
  // Identity functions (test/bench/goals.ts) carry libphonenumber-js, jose or the common-password list by design.
  return isIdentityBundle(bundle.inputs) ? { bytes: GOALS.identityBytes, why: 'identity function goal' } : { bytes: GOALS.functionBytes, why: 'function goal' };
}

describe('Lambda bundles', () => {
  let bundles: BuiltBundle[];
  let metafiles: Record<string, Metafile>;
  let deployed: string[];

  beforeAll(async () => {
    const built = await builtFunctions();
    metafiles = built.metafiles();
    deployed = [...built.deployment.functions.values()].filter((fn) => fn.codeDirectory).map((fn) => fn.key);
    bundles = functionTargets().map((target) => {
      const directory = built.deployment.functions.get(target.name)?.codeDirectory;
      if (!directory) throw new Error(`${target.name}: no bundle in the deployment`);
      return describeBundle(target, join(directory, BUNDLE_FILE), metafiles[target.name]!);
    });
  }, 600_000);

  it('is made of nothing but the files the bundle cache of cdk synth keys on (BUNDLE_SOURCES) and node_modules', () => {
    // A bundle that read another file would be served from the cache after that file changed.
    const keyed = (input: string) => input.startsWith('node_modules/') || BUNDLE_SOURCES.some((source) => input === source || input.startsWith(`${source}/`));
    const outside = Object.entries(metafiles).flatMap(([name, metafile]) => Object.keys(metafile.inputs).filter((input) => !keyed(input)).map((input) => `${name}: ${input}`));
    expect(Object.keys(metafiles).sort()).toEqual(deployed.sort());
    expect(outside).toEqual([]);
  });

  it('builds one bundle per route and the authorizer', () => {
    expect(bundles.length).toBe(functionTargets().length);
    expect(bundles.filter((bundle) => bundle.kind === 'authorizer')).toHaveLength(1);
  });

  it('bundles the DynamoDB client only into functions whose route uses the table', () => {
    const DYNAMODB = /node_modules\/@aws-sdk\/(client-dynamodb|lib-dynamodb)\//;
    const tableOf = new Map<string, string>(routes.map((route) => [routeId(route), route.table]));
    const withClient = bundles.filter((bundle) => bundle.kind === 'function' && contains(bundle, DYNAMODB)).map((bundle) => bundle.name);
    const expected = bundles.filter((bundle) => bundle.kind === 'function' && tableOf.get(bundle.name) !== 'none').map((bundle) => bundle.name);
    expect(withClient.sort()).toEqual(expected.sort());
    expect(routes.some((route) => route.table === 'none')).toBe(true);
    // The authorizer's read is signed with the SDK's signer instead (shared/adapters/signed-reads.ts).
    expect(bundles.filter((bundle) => bundle.kind === 'authorizer' && contains(bundle, DYNAMODB))).toEqual([]);
  });

  it('reads the root secret with the SDK: its Secrets Manager client, and the authorizer with its signer', () => {
    const SECRETS_CLIENT = /node_modules\/@aws-sdk\/client-secrets-manager\//;
    const SIGNED_READS = /^shared\/adapters\/signed-reads\.ts$/;
    // The speech functions read the speech secret (the providers' keys) with the same client.
    const secretRoutes = routes.filter((route) => route.secret || route.speech).map(routeId);
    const withClient = bundles.filter((bundle) => contains(bundle, SECRETS_CLIENT)).map((bundle) => bundle.name);
    const signed = bundles.filter((bundle) => contains(bundle, SIGNED_READS)).map((bundle) => bundle.name);
    expect(signed).toEqual(['authorizer']);
    expect(withClient.sort()).toEqual(secretRoutes.sort());
  });

  it('leaves nothing to load at run time but node: built-ins', () => {
    const offending = bundles.flatMap((bundle) => bundle.runtimeImports.filter((path) => !path.startsWith('node:')).map((path) => `${bundle.name}: ${path}`));
    expect(offending).toEqual([]);
  });

  it('keeps every function within its size limit, its data aside', () => {
    const over = bundles
      .map((bundle) => ({ bundle, limit: sizeLimit(bundle) }))
      .filter(({ bundle, limit }) => bundle.bytes - bundle.dataBytes > limit.bytes)
      .map(({ bundle, limit }) => `${bundle.name}: ${((bundle.bytes - bundle.dataBytes) / KB).toFixed(1)} KB without data > ${limit.bytes / KB} KB (${limit.why})`);
    expect(over).toEqual([]);
  });

  it('carries its own route entry in each function, never the whole route table', () => {
    // The table is ~7 KB minified; the entry arrives as a define (infra/bundling/options.ts
    // routeDefine). What is left of shared/routes.ts is its small helpers.
    const withTable = bundles.filter((bundle) => bundle.kind === 'function' && (bundle.inputs['shared/routes.ts'] ?? 0) > 1024).map((bundle) => bundle.name);
    expect(withTable).toEqual([]);
    for (const route of routes) {
      const text = readFileSync(bundles.find((bundle) => bundle.name === routeId(route))!.file, 'utf8');
      // Its own entry, and no other route's handler file.
      expect(text, routeId(route)).toContain(JSON.stringify(route.entry));
      const others = routes.filter((other) => other.entry !== route.entry && text.includes(JSON.stringify(other.entry))).map(routeId);
      expect(others, routeId(route)).toEqual([]);
    }
  });

  it('carries the providers\' settings, keys and code only where a route talks to Apple, Google or WeChat', () => {
    // BUNDLED_PROVIDERS (shared/bundle-defines.d.ts): the authorizer and every other function are
    // built without them; a function that needs them and lacks the flag would fail on AWS only.
    const providers = new Set(routes.filter((route) => route.providers).map(routeId));
    // The route table's `providers` is where the handler's imports reach the providers' code
    // (shared/identity/social/): a flag missing, or set where nothing needs it, fails here.
    const reachingProviders = routes.filter((route) => [...importGraph(route.entry)].some((file) => file.startsWith('shared/identity/social/'))).map(routeId);
    expect(reachingProviders.length).toBeGreaterThan(0);
    expect([...providers].sort()).toEqual(reachingProviders.sort());
    for (const bundle of bundles) {
      const text = readFileSync(bundle.file, 'utf8');
      const expected = providers.has(bundle.name);
      // The nonce key's derivation, the settings' readers and the secrets port.
      expect(text.includes('"apple-token"') && text.includes('APPLE_CLIENT_IDS') && text.includes('providerSecrets'), bundle.name).toBe(expected);
      if (!expected) {
        expect(text.includes('APPLE_CLIENT_IDS') || text.includes('"apple-token"'), bundle.name).toBe(false);
        expect(inputsOf(bundle, /^shared\/identity\/social\//), bundle.name).toEqual([]);
      }
    }
  });

  it('bundles no classic zod: request and response schemas are zod/mini', () => {
    expect(bundles.filter((bundle) => contains(bundle, CLASSIC_ZOD)).map((bundle) => bundle.name)).toEqual([]);
  });

  it('keeps the authorizer free of AWS SDK clients and within its goal', () => {
    const authorizer = bundles.find((bundle) => bundle.kind === 'authorizer')!;
    // The signer, the environment credential provider and what they import; no client.
    expect(Object.keys(authorizer.inputs).filter((input) => /node_modules\/@aws-sdk\/client-/.test(input))).toEqual([]);
    expect(contains(authorizer, /node_modules\/@smithy\/signature-v4\//)).toBe(true);
    expect(authorizer.bytes).toBeLessThanOrEqual(GOALS.authorizerBytes);
  });

  it('keeps our own code within its goal per function (GOALS.ownBytes), and each data module within its ceiling', () => {
    const codeOver = bundles.filter((bundle) => bundle.ownBytes > ownCodeGoal(bundle.name)).map((bundle) => `${bundle.name}: own code ${(bundle.ownBytes / KB).toFixed(1)} KB`);
    expect(codeOver).toEqual([]);
    // Our data files, our generated modules and the package's metadata: a data module nobody
    // declared fails here.
    const DATA_MODULE = /(?:^shared\/.*(?:-data\.ts|\.json)|\/metadata\.[\w.]+\.js)$/;
    const dataModules = new Map(bundles.flatMap((bundle) => Object.entries(bundle.inputs).filter(([input]) => DATA_MODULE.test(input))));
    expect([...dataModules.keys()].sort()).toEqual(Object.keys(DATA_CEILINGS).sort());
    const dataOver = [...dataModules]
      .filter(([input, bytes]) => !(input in DATA_CEILINGS) || bytes > DATA_CEILINGS[input]!)
      .map(([input, bytes]) => `${input}: ${(bytes / KB).toFixed(1)} KB (ceiling: ${input in DATA_CEILINGS ? `${DATA_CEILINGS[input]! / KB} KB` : 'none declared'})`);
    expect(dataOver).toEqual([]);
    // The goals set aside exactly these modules as data.
    for (const bundle of bundles) {
      expect(bundle.dataBytes, bundle.name).toBe(Object.entries(bundle.inputs).reduce((sum, [input, bytes]) => sum + (input in DATA_CEILINGS ? bytes : 0), 0));
    }
  });

  it('carries the WebAuthn library only where a passkey ceremony is verified', () => {
    // One module imports the library: the one that verifies the ceremonies (its verify…Response).
    // The functions that verify one import that module themselves; another module taking the
    // library, or a shared module that drags the verification into another function, fails here.
    const importingLibrary = sourcesUnder('shared').filter((file) => [...importsOf(file).keys()].some((module) => module.startsWith('@simplewebauthn/')));
    expect(importingLibrary).toHaveLength(1);
    const verifying = importingLibrary[0]!;
    expect([...importsOf(verifying).get('@simplewebauthn/server')!].filter((name) => /^verify\w+Response$/.test(name)), verifying).not.toEqual([]);
    const verifiers = routes.filter((route) => importsOf(route.entry).has(verifying)).map(routeId);
    expect(verifiers.length).toBeGreaterThan(0);
    expect(bundles.filter((bundle) => isWebauthnBundle(bundle.inputs)).map((bundle) => bundle.name).sort()).toEqual(verifiers.sort());
  });

  it('carries the common-password list only where a new password is chosen, phone parsing only where a phone number is read', () => {
    const withFile = (pattern: RegExp) => bundles.filter((bundle) => contains(bundle, pattern)).map((bundle) => bundle.name).sort();
    // A new password is chosen where the handler takes newPasswordSchema, the schema that checks the list.
    const choosingPasswords = routes.filter((route) => handlerImports(route, 'shared/identity/password-schemas.ts', ['newPasswordSchema'])).map(routeId).sort();
    expect(choosingPasswords.length).toBeGreaterThan(0);
    expect(withFile(/shared\/identity\/common-passwords\.json$/)).toEqual(choosingPasswords);
    // A phone number is read where the document's request has a field of the phone pattern (changing
    // the e-mail takes a code and an address: none; support's lookup takes one, issue 37).
    const readingPhones = operationsReadingPhones();
    expect(readingPhones.length).toBeGreaterThan(0);
    expect(withFile(PHONE_PARSING)).toEqual(readingPhones);
    // The package's smallest metadata (libphonenumber-js/min), never its larger sets.
    expect(withFile(/libphonenumber-js\/metadata\.min\.json\.js$/)).toEqual(withFile(PHONE_PARSING));
    expect(bundles.flatMap((bundle) => inputsOf(bundle, /libphonenumber-js\/metadata\.(?!min\.json\.js$)/))).toEqual([]);
  });
});
