/**
 * `npx tsx test/bench/overhead-cpu.ts [operation ...]`: the CPU time per request of each read
 * operation's handler and of its bare DynamoDB replay (this process only; DynamoDB Local runs in
 * its own), next to the wall-time p50s of `npm run bench`. Wall time on a two-core machine shared
 * with DynamoDB Local is noisy; CPU per request says what the wrapper itself adds. Not part of
 * `npm run bench`.
 */
import { TYPICAL_ACCOUNT, readOperations, seedAccount } from './fixtures';
import { startBench } from './harness';
import { pairOperation } from './overhead';
import { median } from './stats';
const bench = await startBench();
const acct = await seedAccount(bench, 'typical', { ...TYPICAL_ACCOUNT, transcriptions: 5, events: 5 });
const want = process.argv.slice(2);
for (const op of readOperations().operations.filter(o => want.length === 0 || want.includes(o.id))) {
  const p = await pairOperation(bench, op, acct);
  const N = 300;
  const res: Record<string, { wall: number[]; cpu: number }> = { handler: { wall: [], cpu: 0 }, bare: { wall: [], cpu: 0 } };
  for (let i = 0; i < N; i++) for (const side of (i % 2 ? ['handler', 'bare'] : ['bare', 'handler']) as ('handler' | 'bare')[]) {
    const c = process.cpuUsage(); const w = await p[side](); const u = process.cpuUsage(c);
    res[side]!.wall.push(w); res[side]!.cpu += u.user + u.system;
  }
  console.log(op.id.padEnd(36), 'wall p50 handler', (median(res.handler!.wall) * 1000).toFixed(0), 'bare', (median(res.bare!.wall) * 1000).toFixed(0), '| cpu/req handler', (res.handler!.cpu / N).toFixed(0), 'bare', (res.bare!.cpu / N).toFixed(0));
}
await bench.close();
