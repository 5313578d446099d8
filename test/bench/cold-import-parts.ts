import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { PROJECT_ROOT, buildWithFloors } from './bundles';
import type { BuiltBundle, BundleTarget } from './bundles';
import { measureColdImports, runProbe } from './cold-import';
import { KB } from './goals';
import { median, round, shuffled } from './stats';

/**
 * `npx tsx test/bench/cold-import-parts.ts [runs] [--in-process]`: what each part our functions
 * bundle (test/bench/parts/) adds to a cold import. Explains the cold-import ratios of `npm run
 * bench`; not part of it.
 *
 * By default each part is imported alone in a fresh process, against the empty bundle. With
 * `--in-process`, each fresh process first imports the floor (the DynamoDB client created, as in
 * every function), then times importing the part and, where the part exports `firstUse`, calling
 * it once: what the part adds next to what a function already has loaded, and what its first
 * request pays, both beyond what loading an empty module costs. That is steadier (about ±0.2 ms)
 * and leaves out what the floor has already loaded.
 */
const args = process.argv.slice(2);
const inProcess = args.includes('--in-process');
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 30);

const parts: BundleTarget[] = readdirSync(join(PROJECT_ROOT, 'test/bench/parts'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ name: basename(file, '.ts'), entry: `test/bench/parts/${file}`, kind: 'part', floor: inProcess ? 'dynamodb' : 'empty' }));
const { built: builtParts, floors } = await buildWithFloors(parts);

async function measureAlone(measuredParts: BuiltBundle[]) {
  const measured = [...measuredParts, { ...floors.dynamodb, name: 'DynamoDB client created (the floor)', floor: 'empty' as const }];
  const { results, cpu } = await measureColdImports(measured, floors, runs);
  const rows = results.map((row, index) => ({
    part: row.function,
    KB: round(measured[index]!.bytes / KB, 1),
    'ms over empty': round(row.medianMs - row.baselineMedianMs, 1),
    'CPU ms over empty': round(cpu[index]!.cpuMedianMs - cpu[index]!.baselineCpuMedianMs, 1),
  }));
  return rows.sort((a, b) => b['CPU ms over empty'] - a['CPU ms over empty']);
}

const EMPTY_PART = 'empty-module';

const IN_PROCESS_PROBE = `await import(process.argv[2]);
const started = performance.now();
const part = await import(process.argv[3]);
const imported = performance.now();
if (typeof part.firstUse === 'function') await part.firstUse();
const used = performance.now();
process.stdout.write(JSON.stringify({ importMs: imported - started, firstUseMs: used - imported }));
`;

async function measureInProcess(measuredParts: BuiltBundle[], floor: BuiltBundle) {
  if (!measuredParts.some((part) => part.name === EMPTY_PART)) throw new Error(`test/bench/parts/${EMPTY_PART}.ts is missing`);
  const probe = join(dirname(floor.file), 'in-process-probe.mjs');
  writeFileSync(probe, IN_PROCESS_PROBE);
  const samples = new Map(measuredParts.map((part) => [part.name, { importMs: [] as number[], firstUseMs: [] as number[] }]));
  for (let run = 0; run < runs; run++) {
    for (const part of shuffled(measuredParts)) {
      const sample = await runProbe<{ importMs: number; firstUseMs: number }>(probe, [floor.file, part.file], `importing ${part.name}`);
      samples.get(part.name)!.importMs.push(sample.importMs);
      samples.get(part.name)!.firstUseMs.push(sample.firstUseMs);
    }
  }
  // Loading any second module costs ~1.5 ms of resolution and loader work, which a part inside a
  // function's bundle does not pay: the empty module's median import is taken off every part.
  const loading = median(samples.get(EMPTY_PART)!.importMs);
  const rows = measuredParts
    .filter((part) => part.name !== EMPTY_PART)
    .map((part) => {
      const { importMs, firstUseMs } = samples.get(part.name)!;
      return {
        part: part.name,
        KB: round(part.bytes / KB, 1),
        'import ms': round(median(importMs) - loading, 2),
        'first use ms': round(median(firstUseMs), 2),
        'together ms': round(median(importMs.map((value, index) => value + firstUseMs[index]!)) - loading, 2),
      };
    });
  return rows.sort((a, b) => b['together ms'] - a['together ms']);
}

if (inProcess) console.table(await measureInProcess(builtParts, floors.dynamodb));
else console.table(await measureAlone(builtParts));
rmSync(dirname(floors.empty.file), { recursive: true, force: true });
