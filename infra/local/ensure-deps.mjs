// Runs before `npm start` and `npm test` so that both work on a fresh clone: installs the locked
// dependencies when node_modules is missing or was installed from a different package-lock.json.
// Plain JavaScript with no dependencies, because it runs before anything is installed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lockFile = join(root, 'package-lock.json');
const stampFile = join(root, 'node_modules', '.install-stamp');

const lockHash = createHash('sha256').update(readFileSync(lockFile)).digest('hex');
const installedHash = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';

// Run as the root `postinstall` (npm ci, npm install): node_modules now holds this lock, so
// `npm ci` then `npm start` installs once, not twice.
if (process.env.npm_lifecycle_event === 'postinstall') {
  writeFileSync(stampFile, `${lockHash}\n`);
  process.exit(0);
}

if (installedHash !== lockHash) {
  console.log('Installing dependencies (npm ci)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stampFile, `${lockHash}\n`);
}

// The browser test of the API reference (test/integration/docs-browser.test.ts) drives Debian's
// Chromium. Before `npm test` on a machine without it (a fresh CI runner runs as root), install it;
// where that is not possible the test is skipped and says why. `npm start` needs no browser.
const CHROMIUM = '/usr/bin/chromium';
if (process.env.npm_lifecycle_event === 'pretest' && !existsSync(CHROMIUM)) {
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (isRoot && hasApt) {
    console.log('Installing Chromium for the browser test (apt-get install -y chromium)...');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit', env }) : update;
    if (install.status !== 0) console.log(`Could not install Chromium: the browser test will be skipped.`);
  } else {
    console.log(`${CHROMIUM} is missing and cannot be installed here (${isRoot ? 'no apt-get' : 'not root'}): the browser test will be skipped. Install Debian's chromium package to run it.`);
  }
}
