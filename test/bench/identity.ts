import { hashPassword } from '../../shared/identity/passwords';
import { findRoute } from './harness';
import type { Bench } from './harness';
import { median, ratio, round } from './stats';

/**
 * scrypt at the contract's parameters, one hash at a time (one thread of the pool, one core).
 * Wall time is the figure; the CPU time of the process (the hashing thread, the main thread idles)
 * is what it would be on a core of its own, whatever else the machine is running.
 */
export async function measureScrypt(runs: number): Promise<{ medianMs: number; cpuMedianMs: number }> {
  await hashPassword('warm-up password');
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let index = 0; index < runs; index++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await hashPassword(`correct horse battery staple ${index}`);
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  return { medianMs: round(median(wall), 1), cpuMedianMs: round(median(cpu), 1) };
}

export interface EnumerationResult {
  existingMedianMs: number;
  unknownMedianMs: number;
  ratio: number;
}

const LOCK_WINDOW_SECONDS = 16 * 60;

/**
 * Issue 5: a wrong password for an existing account must take as long as any password for an
 * unknown one, or timing tells which e-mail addresses have accounts. Both are measured alternately
 * through the login handler; the clock moves past the lock window before each attempt, so every
 * attempt is a first failure (a lock would answer early, without scrypt, for both).
 */
export async function measureEnumeration(bench: Bench, samples: number): Promise<EnumerationResult> {
  const password = 'a-Real-passphrase-42';
  const account = await bench.signUp('enumeration', password);
  const unknown = `nobody-${process.pid}@example.com`;
  const route = findRoute('POST /api/auth/login');
  const run = await bench.handler(route);
  const attempt = async (email: string) => {
    bench.clock.advance(LOCK_WINDOW_SECONDS);
    const event = bench.event(route, { body: { email, password: 'wrong-Passphrase-17' } });
    const context = bench.context(route, event);
    const started = performance.now();
    const result = await run(event, context);
    const duration = performance.now() - started;
    const error = (JSON.parse(result.body) as { error?: string }).error;
    if (result.statusCode !== 400 || error !== 'INVALID_CREDENTIALS') throw new Error(`login answered ${result.statusCode} ${result.body}`);
    return duration;
  };
  try {
    for (let index = 0; index < 3; index++) {
      await attempt(account.email);
      await attempt(unknown);
    }
    const existing: number[] = [];
    const missing: number[] = [];
    for (let index = 0; index < samples; index++) {
      if (index % 2 === 0) {
        existing.push(await attempt(account.email));
        missing.push(await attempt(unknown));
      } else {
        missing.push(await attempt(unknown));
        existing.push(await attempt(account.email));
      }
    }
    const existingMedian = median(existing);
    const unknownMedian = median(missing);
    return { existingMedianMs: round(existingMedian, 2), unknownMedianMs: round(unknownMedian, 2), ratio: ratio(existingMedian, unknownMedian) };
  } finally {
    bench.clock.reset();
  }
}
