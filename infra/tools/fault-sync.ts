import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run fault:sync -- [--runs N] [--devices N] [--commands N] [--seed N] [--path P --replay R]`: the
 * model-based test of records on every device (test/client/sync-model.test.ts) for longer than
 * `npm test` runs it: by default 300 runs of up to 40 commands on 3 devices, from a new seed each
 * time (printed; `--seed`, and the `path` and `replayPath` fast-check printed, replay a failure). The
 * settings may also come as SYNC_MODEL_RUNS, SYNC_MODEL_DEVICES, SYNC_MODEL_COMMANDS, SYNC_MODEL_SEED,
 * SYNC_MODEL_PATH, SYNC_MODEL_REPLAY.
 */
export function main(args: string[]): number {
  const option = (name: string, variable: string, fallback: string) => {
    const at = args.indexOf(name);
    return (at >= 0 ? args[at + 1] : undefined) ?? process.env[variable] ?? fallback;
  };
  const settings = {
    SYNC_MODEL_RUNS: option('--runs', 'SYNC_MODEL_RUNS', '300'),
    SYNC_MODEL_DEVICES: option('--devices', 'SYNC_MODEL_DEVICES', '3'),
    SYNC_MODEL_COMMANDS: option('--commands', 'SYNC_MODEL_COMMANDS', '40'),
    SYNC_MODEL_SEED: option('--seed', 'SYNC_MODEL_SEED', String(Date.now() % 2 ** 31)),
    ...(option('--path', 'SYNC_MODEL_PATH', '') ? { SYNC_MODEL_PATH: option('--path', 'SYNC_MODEL_PATH', '') } : {}),
    ...(option('--replay', 'SYNC_MODEL_REPLAY', '') ? { SYNC_MODEL_REPLAY: option('--replay', 'SYNC_MODEL_REPLAY', '') } : {}),
  };
  console.log(`fault:sync ${Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(' ')}`);
  const run = spawnSync('npx', ['vitest', 'run', 'test/client/sync-model.test.ts'], { stdio: 'inherit', env: { ...process.env, ...settings } });
  return run.status ?? 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
