import { routeId, routes } from '../../shared/routes';
import type { Account, Bench, RequestSpec } from './harness';

/**
 * Accounts with data, written through the service's own POST handlers (validation, id allocation,
 * aggregates in the same transaction), a few at a time as real clients would.
 */
export interface SeedPlan {
  devices?: number;
  transcriptions?: number;
  /** Behavior events: every fifth a login, the rest cycling through the general types. */
  events?: number;
  /** Spread the writes over this many past days (daily usage then has that many days). */
  days?: number;
  concurrency?: number;
}

export interface SeededAccount extends Account {
  deviceSerials: string[];
  transcriptionIds: number[];
}

const GENERAL_EVENTS: { eventType: string; eventValue: string }[] = [
  { eventType: 'translation_on', eventValue: 'true' },
  { eventType: 'voice_provider', eventValue: 'neural-voice-2' },
  { eventType: 'language_choice', eventValue: 'zh-CN' },
  { eventType: 'ambient_sound', eventValue: 'enabled' },
  { eventType: 'subtitle_layout', eventValue: 'bottom' },
  { eventType: 'volume_detection', eventValue: 'auto' },
];

const SAMPLE_TEXT =
  'Good morning everyone, thanks for joining. Today we will go through the quarterly numbers and then the plan for the next release.';

/** Runs `count` tasks, at most `concurrency` at once, in index order of start. */
export async function inParallel(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export async function seedAccount(bench: Bench, label: string, plan: SeedPlan): Promise<SeededAccount> {
  const account = await bench.signUp(label);
  const concurrency = plan.concurrency ?? 8;
  const days = plan.days ?? 1;
  const deviceSerials: string[] = [];
  const transcriptionIds: number[] = [];

  for (let index = 0; index < (plan.devices ?? 0); index++) {
    const sn = `CAP-${account.userId}-${index}`;
    const hex = (index + 16).toString(16).toUpperCase().padStart(2, '0');
    await bench.call('POST /api/devices', { account, body: { sn, mac: `00:1A:2B:3C:4D:${hex}`, productModel: 'Captions Glass 2' } });
    deviceSerials.push(sn);
  }

  // The clock walks from `days` ago to now as the writes go, so records and events land on many days.
  const total = (plan.transcriptions ?? 0) + (plan.events ?? 0);
  const startMs = Date.now() - days * 86_400_000;
  const stepMs = total > 0 ? (days * 86_400_000) / total : 0;
  let written = 0;
  const tick = () => bench.clock.set(new Date(startMs + stepMs * written++));
  try {
    await inParallel(plan.transcriptions ?? 0, concurrency, async (index) => {
      tick();
      const record = await bench.call<{ transcriptionRecordId: number }>('POST /api/transcriptions', {
        account,
        body: { recordTitle: `Meeting ${index + 1}`, text: SAMPLE_TEXT, language: index % 3 === 0 ? 'zh-CN' : 'en-US', durationSeconds: 60 + (index % 50) * 7 },
      });
      transcriptionIds.push(record.transcriptionRecordId);
    });
    await inParallel(plan.events ?? 0, concurrency, async (index) => {
      tick();
      if (index % 5 === 0) await bench.call('POST /api/behavior/login', { account, body: { location: 'Shanghai, CN' } });
      else await bench.call('POST /api/behavior/events', { account, body: GENERAL_EVENTS[index % GENERAL_EVENTS.length] });
    });
  } finally {
    bench.clock.reset();
  }
  return { ...account, deviceSerials, transcriptionIds };
}

/**
 * How to call each read route for a seeded account. A route without path parameters or a required
 * query needs no entry (it is called with none); a route with parameters is measured once it has
 * one here; a route that requires a query must have one (test/integration/bench-operations.test.ts
 * calls every operation the bench times and fails on an answer that would stop the bench).
 */
export const READ_FIXTURES: Record<string, (account: SeededAccount) => Omit<RequestSpec, 'account'>> = {
  'GET /api/transcriptions/{id}': (account) => ({ pathParameters: { id: String(account.transcriptionIds.at(-1)) } }),
  'GET /api/devices/{sn}': (account) => ({ pathParameters: { sn: account.deviceSerials[0]! } }),
  // The support team's reads (issue 37): a lookup names whom it looks for (one without answers 400),
  // here by e-mail, the way a ticket usually names the person; the audit trail is read for that account.
  'GET /admin/users': (account) => ({ query: { email: account.email } }),
  'GET /admin/audit': (account) => ({ query: { userId: String(account.userId) } }),
};

/** The account the per-operation benchmarks read: a typical user (lists return a full first page). */
export const TYPICAL_ACCOUNT: SeedPlan = { devices: 3, transcriptions: 60, events: 60, days: 20 };

export interface ReadOperation {
  id: string;
  spec: (account: SeededAccount) => RequestSpec;
}

/** Every GET route that reads the table, with how to call it; `skipped` lists those that lack a fixture. */
export function readOperations(): { operations: ReadOperation[]; skipped: string[] } {
  const operations: ReadOperation[] = [];
  const skipped: string[] = [];
  for (const route of routes) {
    if (route.method !== 'GET' || route.table === 'none') continue;
    const id = routeId(route);
    const fixture = READ_FIXTURES[id];
    if (!fixture && route.path.includes('{')) {
      skipped.push(id);
      continue;
    }
    operations.push({ id, spec: (account) => ({ account, ...(fixture ? fixture(account) : {}) }) });
  }
  return { operations, skipped };
}
