import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Metafile } from 'esbuild';
import { contentDigest, filesUnder } from '../../infra/bundling/bundle-cache';
import { BUNDLE_FILE, bundleDigest, recordBundleMetafiles } from '../../infra/bundling/esbuild-code';
import { LOCAL_ACCOUNT, buildDeployment, deploymentContext } from '../../infra/local/deployed';
import type { DeployedFunction, Deployment } from '../../infra/local/deployed-functions';
import { PROJECT_ROOT } from '../../infra/project-root';

/**
 * Every function bundled as `cdk synth` bundles it (`buildDeployment`: the app synthesized with
 * esbuild build per function; its cost: docs/architecture.md, "Bundling"), built once for the sources as they are and shared
 * by the tests that read bundles: the deployed-bundles suite (test/integration/openapi-conformance-
 * deployed.test.ts) and the bundle checks of test/infra/stack.test.ts. The cache is keyed on the
 * content of everything a bundle is made from (the sources, the bundling options, package.json's
 * imports, the lock file), so a change of any of them builds again; the first file that needs it
 * builds it while the others wait.
 */
export interface BuiltFunctions {
  /** As buildDeployment returns it; `remove()` leaves the cache in place. */
  deployment: Deployment;
  /** Each function's bundle directory (its asset in the cloud assembly) by the function's Description: every Lambda function of every stack. */
  byDescription: Record<string, string>;
  /** esbuild's metafile of each function's bundle (what each input contributes), by the function's key (a route id, `authorizer`, `job ...`). */
  metafiles(): Record<string, Metafile>;
}

/** What the bundles are made from. A file outside these that changed a bundle would be a new input to name here. */
const INPUTS = ['functions', 'shared', 'infra', 'package.json', 'package-lock.json', 'tsconfig.json', 'cdk.json', 'test/support/built-functions.ts'];
const CACHE = join(tmpdir(), 'captioning-built-functions');

interface Manifest {
  root: string;
  functions: DeployedFunction[];
  secrets: Deployment['secrets'];
  byDescription: Record<string, string>;
}

function inputsKey(): string {
  // A path missing from a checkout is no input of it.
  return contentDigest(PROJECT_ROOT, filesUnder(PROJECT_ROOT, INPUTS).files, `${PROJECT_ROOT}\0${process.platform}\0${process.arch}\0`).slice(0, 32);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function load(directory: string): BuiltFunctions {
  const manifest = JSON.parse(readFileSync(join(directory, 'built.json'), 'utf8')) as Manifest;
  const at = (name: string | undefined) => (name === undefined ? undefined : join(directory, name));
  const functions = new Map(manifest.functions.map((fn) => [fn.key, { ...fn, codeDirectory: at(fn.codeDirectory) }] as const));
  return {
    deployment: { functions, secrets: manifest.secrets, directory, remove: () => undefined },
    byDescription: Object.fromEntries(Object.entries(manifest.byDescription).map(([description, name]) => [description, at(name)!])),
    metafiles: () => JSON.parse(readFileSync(join(directory, METAFILES), 'utf8')) as Record<string, Metafile>,
  };
}

/** The metafiles, beside the manifest: read only by the files that check bundle goals. */
const METAFILES = 'metafiles.json';

type FunctionsTemplate = { Resources?: Record<string, { Type: string; Properties?: { Description?: string; Code?: { S3Key?: string } } }> };

/** Builds into the cache: the assembly moved under the key, with a manifest naming each bundle relative to it. */
function build(directory: string): void {
  const recorded = recordBundleMetafiles();
  const built = buildDeployment(deploymentContext({}), { region: 'us-east-1', account: LOCAL_ACCOUNT, tableName: 'built' });
  const metafiles: Record<string, Metafile> = {};
  for (const fn of built.functions.values()) {
    const metafile = fn.codeDirectory && recorded.get(bundleDigest(readFileSync(join(fn.codeDirectory, BUNDLE_FILE))));
    if (!metafile) throw new Error(`${fn.key}: no metafile recorded for its bundle`);
    metafiles[fn.key] = metafile;
  }
  writeFileSync(join(built.directory, METAFILES), JSON.stringify(metafiles));
  const byDescription: Record<string, string> = {};
  for (const file of readdirSync(built.directory).filter((name) => name.endsWith('.template.json'))) {
    const template = JSON.parse(readFileSync(join(built.directory, file), 'utf8')) as FunctionsTemplate;
    for (const resource of Object.values(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const { Description: description, Code: code } = resource.Properties ?? {};
      const asset = `asset.${String(code?.S3Key).replace(/\.zip$/, '')}`;
      if (!description || !existsSync(join(built.directory, asset))) throw new Error(`${description}: no bundle ${asset}`);
      if (description in byDescription) throw new Error(`Two functions are described ${description}`);
      byDescription[description] = asset;
    }
  }
  const relative = (path: string | undefined) => (path === undefined ? undefined : path.slice(built.directory.length + 1));
  const manifest: Manifest = {
    root: PROJECT_ROOT,
    functions: [...built.functions.values()].map((fn) => ({ ...fn, codeDirectory: relative(fn.codeDirectory) })),
    secrets: built.secrets,
    byDescription,
  };
  writeFileSync(join(built.directory, 'built.json'), JSON.stringify(manifest));
  renameSync(built.directory, directory);
}

let mine: Promise<BuiltFunctions> | undefined;

/** The bundles of the sources as they are: from the cache, else built now (or waited for, while another test file builds them). */
export function builtFunctions(): Promise<BuiltFunctions> {
  mine ??= obtain();
  return mine;
}

async function obtain(): Promise<BuiltFunctions> {
  const key = inputsKey();
  const directory = join(CACHE, key);
  const lock = `${directory}.lock`;
  mkdirSync(CACHE, { recursive: true });
  for (const deadline = Date.now() + 15 * 60_000; Date.now() < deadline; await sleep(500)) {
    if (existsSync(join(directory, 'built.json'))) return load(directory);
    try {
      mkdirSync(lock);
    } catch {
      // Another test file builds them; a lock whose process is gone is taken over.
      let owner = 0;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        // Not written yet, or released meanwhile.
      }
      if (owner && !alive(owner)) rmSync(lock, { recursive: true, force: true });
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (!existsSync(join(directory, 'built.json'))) {
        rmSync(directory, { recursive: true, force: true });
        build(directory);
        // Older builds of this checkout are stale now.
        for (const other of readdirSync(CACHE)) {
          const manifest = join(CACHE, other, 'built.json');
          if (other !== key && existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as Manifest).root === PROJECT_ROOT) {
            rmSync(join(CACHE, other), { recursive: true, force: true });
          }
        }
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  throw new Error(`The functions were not built within 15 minutes (${lock})`);
}
