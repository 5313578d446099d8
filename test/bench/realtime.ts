import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { startLocalServer } from '../../infra/local/server';
import type { Bench } from './harness';
import { quantile, round } from './stats';

/**
 * Issue 45's figure: how soon another device hears of a save. The local server (its WebSocket
 * endpoint at /realtime, on the bench's table) with two connections of one person: the time from
 * a save's answer (POST /api/transcriptions on the first device) to the poke
 * (`{"type":"changes"}`) on the second, p50 and p95 over `iterations` saves, one at a time.
 * Local: on AWS the stream and the management API add their own latency.
 */
export interface RealtimeResult {
  saves: number;
  p50Ms: number;
  p95Ms: number;
}

export async function measureRealtime(bench: Bench, iterations: number, log: (line: string) => void): Promise<RealtimeResult> {
  const server = await startLocalServer({ config: { ...bench.config, LOG_LEVEL: 'silent' }, clock: bench.clock, rootSecret: randomBytes(32).toString('base64url'), outbox: bench.outbox, port: 0 });
  try {
    const post = async (path: string, body: unknown, token?: string) => {
      const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) };
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, any>;
    };
    const target = `realtime-bench-${Date.now()}@example.com`;
    const signIn = async () => {
      bench.clock.advance(120);
      await post('/api/verify-code/send', { type: 'email', target });
      return (await post('/api/verify-code/verify', { target, verifyCode: bench.outbox.list(target)[0]!.code })).token as string;
    };
    const saving = await signIn();
    const listening = await signIn();
    const { url } = await post('/api/realtime/ticket', undefined, listening);
    const socket = new WebSocket(url as string);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    let poked: (() => void) | undefined;
    socket.on('message', () => poked?.());
    log(`realtime: ${iterations} saves, from each answer to the poke at another connection`);
    const samples: number[] = [];
    for (let index = 0; index < iterations; index++) {
      const heard = new Promise<number>((resolve) => (poked = () => resolve(performance.now())));
      await post('/api/transcriptions', { recordTitle: `Bench ${index}`, text: 'x', language: 'en-US', durationSeconds: 1 }, saving);
      const answered = performance.now();
      samples.push(Math.max(0, (await heard) - answered));
      // Every poke of this save has arrived before the next (a save's own poke may come twice: create and usage).
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    socket.close();
    return { saves: iterations, p50Ms: round(quantile(samples, 0.5), 2), p95Ms: round(quantile(samples, 0.95), 2) };
  } finally {
    await server.close();
  }
}
