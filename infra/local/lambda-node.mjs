// The Node.js the deployed bundles run on locally (`npm run start:deployed`, its tests): the Lambda
// runtime's major (nodejs24.x, RUNTIME of infra/constructs/service-function.ts). This machine's Node
// when it is that major; otherwise the one infra/lambda-node locks (the npm registry's `node`
// package), installed there by the root `postinstall` (this file run as a script) so that a
// newcomer on Node 20 or 22 runs the bundles on the same Node as everyone else after `npm ci`.
// It lives in its own folder, not among the root's devDependencies: there its `node` binary would
// be linked into node_modules/.bin and every npm script (tests, npm start) would run on it, where
// the project runs and tests on the machine's Node too. Plain JavaScript: it runs at install time.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'lambda-node');
const locked = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).dependencies.node;
/** The Lambda runtime's Node major, from the version infra/lambda-node locks. */
export const LAMBDA_NODE_MAJOR = Number(locked.split('.')[0]);
const binary = join(folder, 'node_modules', 'node', 'bin', 'node');

const majorOf = (version) => Number(version.replace(/^v/, '').split('.')[0]);
const versionOf = (path) => spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim();

/** Installs infra/lambda-node's Node unless this machine's Node or an installed copy already is the one. */
export function installLambdaNode({ quiet = false } = {}) {
  if (majorOf(process.versions.node) === LAMBDA_NODE_MAJOR) return;
  if (existsSync(binary) && versionOf(binary) === `v${locked}`) return;
  if (!quiet) console.log(`Installing Node ${locked} (the Lambda runtime's) into infra/lambda-node for npm run start:deployed...`);
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder, stdio: quiet ? 'ignore' : 'inherit' });
  if (result.status !== 0) throw new Error(`npm ci in ${folder} failed (${result.status}): Node ${locked} could not be installed from the npm registry`);
}

/** The path of a Node of the Lambda runtime's major, installing it first if needed. */
export function lambdaNodeBinary() {
  if (majorOf(process.versions.node) === LAMBDA_NODE_MAJOR) return process.execPath;
  installLambdaNode();
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    installLambdaNode();
  } catch (error) {
    // `npm ci` goes on: the sources need no second Node; start:deployed says what is missing.
    console.error(`${error.message}; npm run start:deployed will try again.`);
  }
}
