import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BASELINE_DYNAMODB, BASELINE_EMPTY, PROJECT_ROOT, baselineTargets, buildBundles } from './bundles';
import type { BundleTarget } from './bundles';
import { measureColdImports } from './cold-import';
import { KB } from './goals';

/**
 * `npx tsx test/bench/cold-import-parts.ts [runs]`: what each library our functions bundle adds
 * to a cold import, each part alone against the empty bundle (test/bench/parts/). Explains the
 * cold-import ratios of `npm run bench`; not part of it.
 */
const runs = Number(process.argv[2] ?? 30);
const parts: BundleTarget[] = readdirSync(join(PROJECT_ROOT, 'test/bench/parts'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ name: basename(file, '.ts'), entry: `test/bench/parts/${file}`, kind: 'part', floor: 'empty' }));
const built = await buildBundles([...parts, ...baselineTargets()]);
const floors = { dynamodb: built.find((bundle) => bundle.name === BASELINE_DYNAMODB)!, empty: built.find((bundle) => bundle.name === BASELINE_EMPTY)! };
const measured = [...built.filter((bundle) => bundle.kind === 'part'), { ...floors.dynamodb, name: 'DynamoDB client created (the floor)', floor: 'empty' as const }];
const { results, cpu } = await measureColdImports(measured, floors, runs);
const rows = results.map((row, index) => ({
  part: row.function,
  KB: Number((measured[index]!.bytes / KB).toFixed(1)),
  'ms over empty': Number((row.medianMs - row.baselineMedianMs).toFixed(1)),
  'CPU ms over empty': Number((cpu[index]!.cpuMedianMs - cpu[index]!.baselineCpuMedianMs).toFixed(1)),
}));
console.table(rows.sort((a, b) => b['CPU ms over empty'] - a['CPU ms over empty']));
rmSync(dirname(floors.empty.file), { recursive: true, force: true });
