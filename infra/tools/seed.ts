import { isoSeconds } from '../../shared/ports/clock';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneralEventType } from '../../shared/api/event-types';
import { DEV_NOW_HEADER } from '../local/server';
import { LocalToolError, latestOutboxCode } from './dev-outbox-code';
import { ApiError, createClient } from '../../client/src/index';

/**
 * `npm run seed`: a demo account with a month of realistic use, written through the app's client
 * (client/) to the real API of a running local server (`npm start`, http://localhost:8080 or PORT; API_URL overrides): devices,
 * transcription records and behavior events, each at its moment in the past (the local server's
 * `X-Dev-Now` header), then prints how to sign in. The data is the same on every run (a seeded
 * random sequence); running it again on a kept database (DATA_DIR) changes nothing.
 */
export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PASSWORD = 'caption-demo-2026';
const DAYS = 30;
const DAY_MS = 86_400_000;

export interface SeedSummary {
  created: boolean;
  userId: number;
  devices: number;
  records: number;
  usageSeconds: number;
  events: number;
}

/** mulberry32: a small deterministic generator, so every run writes the same demo month. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    /** A UUID (version 4, lower case) from the sequence: a record's clientRecordId, the same on every run. */
    uuid: () =>
      'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (char) => {
        const nibble = Math.floor(next() * 16);
        return (char === 'x' ? nibble : (nibble & 3) | 8).toString(16);
      }),
  };
}

const DEVICES = [
  { sn: 'CG2-24A7-000193', mac: '3C:71:BF:4A:92:1E', productModel: 'Caption Glasses 2', day: 29 },
  { sn: 'CG1-23B1-004512', mac: '3C:71:BF:08:5D:C4', productModel: 'Caption Glasses', day: 29 },
  { sn: 'CC1-25C3-010877', mac: 'A4:CF:12:6E:03:B9', productModel: 'Caption Clip', day: 12 },
];

/** What the demo user records: the kind of conversation, its language, its usual length. */
const RECORDINGS = [
  {
    titles: ['Weekly team meeting', 'Sprint planning', 'Release review'],
    language: 'en-US',
    minutes: [25, 60],
    sentences: [
      "Good morning, everyone. Let's start with a quick round of updates.",
      'The Android build is ready for testing; the iOS build still waits for the store review.',
      'Can we move the release to Thursday so that support has a day to prepare?',
      "I'll share the dashboard after the call, the crash rate is down to half a percent.",
      'Any blockers before we go through the backlog?',
      'Marketing wants the new captions screen in the launch video.',
    ],
  },
  {
    titles: ['周例会', '产品评审会', '项目复盘'],
    language: 'zh-CN',
    minutes: [30, 75],
    sentences: [
      '大家早上好，我们先快速过一下各组的进度。',
      '字幕延迟的问题这周已经修复了，平均降到了三百毫秒以内。',
      '下周三之前需要把测试报告发给客户。',
      '这个需求我们再评估一下工作量，周五给出结论。',
      '还有其他问题吗？没有的话今天就到这里。',
    ],
  },
  {
    titles: ["Doctor's appointment", 'Pharmacy', 'Physiotherapy'],
    language: 'en-US',
    minutes: [8, 25],
    sentences: [
      'Take one tablet twice a day with food, and finish the whole pack.',
      "Your blood pressure is fine today, a little lower than last time.",
      'Come back in two weeks, or earlier if the dizziness does not improve.',
      "Let's try the exercises for the shoulder, ten repetitions each, three times a day.",
    ],
  },
  {
    titles: ['复诊记录', '牙科检查'],
    language: 'zh-CN',
    minutes: [10, 20],
    sentences: ['这个药每天吃两次，饭后服用。', '检查结果都正常，不用太担心。', '两周以后再来复查一次。', '最近睡眠怎么样？有没有头晕？'],
  },
  {
    titles: ['Physics lecture', 'History seminar', 'Statistics class'],
    language: 'en-US',
    minutes: [45, 90],
    sentences: [
      "Today we'll look at how sound travels through different materials.",
      'In water, sound is about four times faster than in air.',
      'Write down the formula, it will be on the exam.',
      'For next week, read chapter seven and try the exercises at the end.',
      'Any questions so far? Good, then let us look at the second example.',
    ],
  },
  {
    titles: ['Coffee with Lin', 'Family dinner', 'Call with Mum'],
    language: 'en-US',
    minutes: [15, 50],
    sentences: [
      'How was the trip to Hangzhou? Did you see the lake?',
      'The kids start swimming lessons on Saturday morning.',
      "We should book the restaurant for Grandma's birthday.",
      'I finally fixed the bike, so I can ride to work again.',
    ],
  },
  {
    titles: ['和家人吃饭', '朋友聚会'],
    language: 'zh-CN',
    minutes: [30, 90],
    sentences: ['这道菜是妈妈的拿手菜，你多吃点。', '周末我们一起去爬山吧。', '孩子下个月就要开学了。', '最近工作忙不忙？注意休息。'],
  },
] as const;

const LOCATIONS = ['Shanghai, China', 'Shanghai, China', 'Shanghai, China', 'Hangzhou, China', 'Beijing, China'];

/** Interface choices the app reports now and then, as a person settles in. */
const CHOICES = [
  { eventType: 'translation_on', values: ['true', 'false'] },
  { eventType: 'voice_provider', values: ['Azure Speech', 'Whisper', 'iFlytek'] },
  { eventType: 'language_choice', values: ['zh-CN', 'en-US'] },
  { eventType: 'ambient_sound', values: ['enabled', 'disabled'] },
  { eventType: 'subtitle_layout', values: ['bottom', 'top'] },
  { eventType: 'volume_detection', values: ['auto', 'manual'] },
] as const satisfies readonly { eventType: GeneralEventType; values: readonly string[] }[];

export class SeedError extends LocalToolError {}

/** An API answer's data, or the seed stops saying what failed. */
async function ok<T>(what: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new SeedError(`${what} failed: ${response.status} ${JSON.stringify(error)}`);
  return data as T;
}

/** A client call's data, or the seed stops saying what failed. */
async function done<T>(what: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw new SeedError(`${what} failed: ${error instanceof ApiError ? `${error.status} ${error.error}: ${error.message}` : (error as Error).message}`);
  }
}

/**
 * Writes the demo month through the app's client (client/): its sign-in, its records outbox
 * (each record saved with a clientRecordId from the seeded sequence, so a second run could not
 * double it, and pushed at its moment), its event queue, `client.api` for the rest. A fetch of its own adds
 * `X-Dev-Now`, so each request happens at its moment of the month.
 */
export async function seedDemo(baseUrl: string, log: (line: string) => void = console.log): Promise<SeedSummary> {
  const base = baseUrl.replace(/\/$/, '');
  /** The moment the next requests happen at (undefined: now). */
  let moment: Date | undefined;
  const client = createClient({
    baseUrl: base,
    clientName: 'npm run seed',
    retry: { attempts: 2 },
    fetch: (input, init) => {
      const headers = new Headers(init.headers);
      if (moment) headers.set(DEV_NOW_HEADER, moment.toISOString());
      return fetch(input, { ...init, headers });
    },
  });
  async function at<T>(when: Date | undefined, work: () => Promise<T>): Promise<T> {
    moment = when;
    try {
      return await work();
    } finally {
      moment = undefined;
    }
  }

  /**
   * Sends a code and reads it from the dev outbox, as a person reads their mail. A code sent at a
   * later time (a code requested today, before a seed dated a month back) holds the cooldown for
   * a month: then the code is sent now, which works as well.
   */
  async function code(when?: Date): Promise<string> {
    let sendAt = when;
    for (;;) {
      const refusal = await at(sendAt, () => client.auth.sendCode({ type: 'email', target: DEMO_EMAIL })).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (!refusal) break;
      if (!(refusal instanceof ApiError) || refusal.error !== 'CODE_COOLDOWN') throw new SeedError(`Sending a code failed: ${(refusal as Error).message}`);
      const wait = refusal.retryAfterSeconds ?? 60;
      if (sendAt && wait > 120) {
        sendAt = undefined;
        continue;
      }
      log(`  waiting ${wait} s for the code cooldown...`);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
    return latestOutboxCode(base, DEMO_EMAIL);
  }

  try {
    await client.api.GET('/health');
  } catch (error) {
    throw new SeedError(`No API answers at ${base} (${(error as Error).message}). Start it with \`npm start\`, then run \`npm run seed\`.`);
  }
  const now = new Date();
  const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dayStart = (daysAgo: number) => startOfToday - daysAgo * DAY_MS;
  const firstDay = new Date(dayStart(DAYS - 1) + 6 * 3_600_000);
  const logIn = (when?: Date) => at(when, () => client.auth.login({ email: DEMO_EMAIL, password: DEMO_PASSWORD }));

  // A demo account with its data (a second run on a kept database) is left as it is.
  let created = false;
  const existing = await logIn().then(
    (session) => session,
    () => undefined,
  );
  if (existing) {
    const records = await ok('Reading records', client.api.GET('/transcriptions', { params: { query: { limit: 1 } } }));
    if (records.length > 0) {
      log('The demo account already has its data; nothing written.');
      return summary(false, existing.userId);
    }
  } else {
    // Registered with a password a month ago; an account of that e-mail without it gets the demo password.
    const verifyCode = await code(firstDay);
    const registered = await at(firstDay, () => client.auth.register({ email: DEMO_EMAIL, verifyCode, password: DEMO_PASSWORD })).then(
      () => undefined,
      (error: unknown) => error,
    );
    created = registered === undefined;
    if (!created) {
      if (!(registered instanceof ApiError) || registered.error !== 'ACCOUNT_EXISTS') throw new SeedError(`Registering failed: ${(registered as Error).message}`);
      log('An account of the demo e-mail exists without the demo password: setting it.');
      const resetCode = await code();
      await ok('Password reset', client.api.POST('/auth/password/reset', { body: { target: DEMO_EMAIL, verifyCode: resetCode, newPassword: DEMO_PASSWORD } }));
    }
  }
  const session = await done('Login', logIn());
  // The demo user lives in Beijing: usage counts by the calendar days there, codes come in Chinese.
  await ok('Setting the time zone', client.api.PATCH('/users/me', { body: { timeZone: 'Asia/Shanghai', locale: 'zh-CN' } }));

  log(`Writing a month of demo data for ${DEMO_EMAIL} to ${base} ...`);
  const rng = random(20260129);
  // Its own sequence, so the demo month stays the one it was before records had them.
  const ids = random(36);
  let saved = 0;
  /** Sends the outbox now; the seed stops if anything is left or refused. */
  async function pushed(what: string): Promise<void> {
    const result = await client.transcriptions.push();
    const problem = (await client.transcriptions.pendingProblems())[0];
    if (result.error || result.count > 0) throw new SeedError(`${what} failed: ${problem ? `${problem.status} ${problem.error}: ${problem.message}` : (result.error?.message ?? `${result.count} left in the outbox`)}`);
  }
  for (let daysAgo = DAYS - 1; daysAgo >= 0; daysAgo--) {
    const day = dayStart(daysAgo);
    const time = (hours: number, minutes = rng.int(0, 59)) => new Date(day + hours * 3_600_000 + minutes * 60_000);
    const morning = time(rng.int(7, 8));
    if (morning.getTime() > now.getTime()) break;
    // The app signs in in the morning (tokens live a day) and reports where.
    await done('Login', logIn(morning));
    const location = daysAgo >= 9 && daysAgo <= 11 ? 'Beijing, China' : rng.pick(LOCATIONS);
    await at(morning, () => ok('Login event', client.api.POST('/behavior/login', { body: { location }, params: { header: { 'Idempotency-Key': `seed-login-${daysAgo}` } } })));

    for (const device of DEVICES.filter((candidate) => candidate.day === daysAgo)) {
      const { day: _day, ...body } = device;
      await at(morning, () => ok('Binding a device', client.api.POST('/devices', { body })));
    }

    const weekend = [0, 6].includes(new Date(day).getUTCDay());
    const count = weekend ? rng.int(0, 2) : rng.int(1, 3);
    for (let index = 0; index < count; index++) {
      const when = time(9 + Math.floor((index * 9) / Math.max(count, 1)) + rng.int(0, 2));
      if (when.getTime() > now.getTime()) break;
      const kind = rng.pick(weekend ? RECORDINGS.filter((recording) => recording.minutes[0] >= 15) : RECORDINGS);
      const sentences = [...kind.sentences].sort(() => rng.next() - 0.5).slice(0, rng.int(2, kind.sentences.length));
      const body = {
        recordTitle: rng.pick(kind.titles),
        text: sentences.join(kind.language === 'zh-CN' ? '' : ' '),
        language: kind.language,
        durationSeconds: rng.int(kind.minutes[0] * 60, kind.minutes[1] * 60),
      };
      const record = await client.transcriptions.save({ ...body, clientRecordId: ids.uuid() });
      await at(when, () => pushed('Saving a record'));
      saved++;
      // Now and then the date goes into the title afterwards, which sets updatedAt.
      if (rng.next() < 0.1) {
        const later = new Date(when.getTime() + rng.int(10, 120) * 60_000);
        const recordTitle = `${body.recordTitle} ${when.toISOString().slice(5, 10)}`;
        if (later.getTime() <= now.getTime()) {
          await client.transcriptions.update(record, { recordTitle });
          await at(later, () => pushed('Editing a record'));
        }
      }
    }

    // Some evenings the glasses record offline; the app syncs the record the next morning, saying
    // when it began, so its usage counts on the evening's day.
    if (daysAgo < DAYS - 1 && rng.next() < 0.25) {
      const kind = rng.pick(RECORDINGS);
      const body = {
        recordTitle: `${rng.pick(kind.titles)} (offline)`,
        text: kind.sentences.slice(0, 2).join(kind.language === 'zh-CN' ? '' : ' '),
        language: kind.language,
        durationSeconds: rng.int(kind.minutes[0] * 60, kind.minutes[1] * 60),
        startedAt: isoSeconds(new Date(day - 3 * 3_600_000 + rng.int(0, 59) * 60_000)),
      };
      await client.transcriptions.save({ ...body, clientRecordId: ids.uuid() });
      await at(morning, () => pushed('Syncing an offline record'));
      saved++;
    }

    // Settings change often in the first days, rarely later. The app queues each choice with its
    // moment and sends the day's queue in one batch.
    const changes = daysAgo >= DAYS - 4 ? rng.int(2, 4) : rng.next() < 0.3 ? 1 : 0;
    let last: Date | undefined;
    for (let index = 0; index < changes; index++) {
      const choice = rng.pick(CHOICES);
      const when = time(8, 10 + index * 5);
      if (when.getTime() > now.getTime()) break;
      await client.events.track(choice.eventType, rng.pick(choice.values), { occurredAt: when });
      last = when;
    }
    if (last) {
      const flushed = await at(last, () => client.events.flush());
      if (flushed.error || flushed.count > 0 || flushed.dropped.invalid > 0) {
        throw new SeedError(`Recording events failed: ${flushed.error?.message ?? JSON.stringify(flushed.lastRefusal ?? flushed)}`);
      }
    }
  }
  log(`Saved ${saved} transcription records.`);
  return summary(created, session.userId);

  async function summary(wasCreated: boolean, userId: number): Promise<SeedSummary> {
    await done('Login', logIn());
    const devices = await ok('Listing devices', client.api.GET('/devices'));
    const usage = await ok('Reading usage', client.api.GET('/transcriptions/usage', { params: { query: { days: 31 } } }));
    const stats = await ok('Reading statistics', client.api.GET('/behavior/stats'));
    let records = 0;
    let cursor: string | undefined;
    do {
      const page = await client.api.GET('/transcriptions', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
      if (!page.data) throw new SeedError(`Listing records failed: ${page.response.status}`);
      records += page.data.length;
      cursor = page.response.headers.get('X-Next-Cursor') ?? undefined;
    } while (cursor);
    const events = stats.loginCount + stats.events.reduce((sum, entry) => sum + entry.count, 0);
    return { created: wasCreated, userId, devices: devices.length, records, usageSeconds: usage.totalUsage, events };
  }
}

export function signInInstructions(baseUrl: string): string {
  const base = baseUrl.replace(/\/$/, '');
  return [
    `Sign in as the demo user on ${base}:`,
    `  e-mail:   ${DEMO_EMAIL}`,
    `  password: ${DEMO_PASSWORD}`,
    '',
    `  curl -s -X POST ${base}/api/auth/login -H 'Content-Type: application/json' \\`,
    `    -d '{"email":"${DEMO_EMAIL}","password":"${DEMO_PASSWORD}"}'`,
    '',
    `or with a code: POST /api/verify-code/send, then read it at ${base}/dev/outbox?target=${DEMO_EMAIL}`,
    `Try the API in the browser: ${base}/docs`,
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const baseUrl = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 8080}`;
  seedDemo(baseUrl).then(
    (result) => {
      const hours = (result.usageSeconds / 3600).toFixed(1);
      console.log(`Demo account ${result.created ? 'created' : 'found'} (userId ${result.userId}): ${result.devices} devices, ${result.records} transcription records (${hours} h), ${result.events} behavior events.\n`);
      console.log(signInInstructions(baseUrl));
    },
    (error: unknown) => {
      console.error(error instanceof LocalToolError ? error.message : error);
      process.exit(1);
    },
  );
}
