import { isoSeconds } from '../../shared/ports/clock';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneralEventType } from '../../shared/behavior/event-types';
import { DEV_NOW_HEADER } from '../local/server';

/**
 * `npm run seed`: a demo account with a month of realistic use, written through the real API of a
 * running local server (`npm start`, http://localhost:8080 or PORT; API_URL overrides): devices,
 * transcription records and behavior events, each at its moment in the past (the local server's
 * `X-Dev-Now` header), then prints how to sign in. The data is the same on every run (a seeded
 * random sequence); running it again on a kept database (DATA_DIR) changes nothing.
 */
export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PASSWORD = 'caption-demo-2026';
const DAYS = 30;
const DAY_MS = 86_400_000;

/** Our own API's JSON answers, trusted by their status like any client of it would. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Answer {
  status: number;
  body: Json;
  headers: Headers;
}

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

export class SeedError extends Error {}

export async function seedDemo(baseUrl: string, log: (line: string) => void = console.log): Promise<SeedSummary> {
  const base = baseUrl.replace(/\/$/, '');

  async function call(method: string, path: string, options: { body?: unknown; token?: string; at?: Date; key?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.at) headers[DEV_NOW_HEADER] = options.at.toISOString();
    if (options.key) headers['idempotency-key'] = options.key;
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    } catch (error) {
      throw new SeedError(`No API answers at ${base} (${(error as Error).cause ?? (error as Error).message}). Start it with \`npm start\`, then run \`npm run seed\`.`);
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }
  async function expectOk(what: string, answer: Promise<Answer>): Promise<Json> {
    const { status, body } = await answer;
    if (status !== 200) throw new SeedError(`${what} failed: ${status} ${JSON.stringify(body)}`);
    return body;
  }

  /**
   * Sends a code and reads it from the dev outbox, as a person reads their mail. A code sent at a
   * later time (a code requested today, before a seed dated a month back) holds the cooldown for
   * a month: then the code is sent now, which works as well.
   */
  async function code(at?: Date): Promise<string> {
    let when = at;
    for (;;) {
      const sent = await call('POST', '/api/verify-code/send', { body: { type: 'email', target: DEMO_EMAIL }, ...(when ? { at: when } : {}) });
      if (sent.status === 200) break;
      if (sent.body?.error !== 'CODE_COOLDOWN') throw new SeedError(`Sending a code failed: ${sent.status} ${JSON.stringify(sent.body)}`);
      if (when && sent.body.retryAfterSeconds > 120) {
        when = undefined;
        continue;
      }
      log(`  waiting ${sent.body.retryAfterSeconds} s for the code cooldown...`);
      await new Promise((done) => setTimeout(done, sent.body.retryAfterSeconds * 1000));
    }
    const outbox = await call('GET', `/dev/outbox?target=${encodeURIComponent(DEMO_EMAIL)}`);
    if (outbox.status !== 200) throw new SeedError(`${base} has no dev outbox (${outbox.status}): seed a local server (npm start), not a deployed API.`);
    return outbox.body[0].code as string;
  }

  await expectOk(`GET ${base}/api/health`, call('GET', '/api/health'));
  const now = new Date();
  const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dayStart = (daysAgo: number) => startOfToday - daysAgo * DAY_MS;
  const firstDay = new Date(dayStart(DAYS - 1) + 6 * 3_600_000);
  const logIn = (at?: Date) => call('POST', '/api/auth/login', { body: { email: DEMO_EMAIL, password: DEMO_PASSWORD }, ...(at ? { at } : {}) });

  // A demo account with its data (a second run on a kept database) is left as it is.
  let created = false;
  let login = await logIn();
  if (login.status === 200) {
    const existing = await expectOk('Reading records', call('GET', '/api/transcriptions?limit=1', { token: login.body.token }));
    if (existing.length > 0) {
      log('The demo account already has its data; nothing written.');
      return summary(false, login.body.token, login.body.userId);
    }
  } else {
    // Registered with a password a month ago; an account of that e-mail without it gets the demo password.
    const registered = await call('POST', '/api/auth/register', {
      body: { email: DEMO_EMAIL, verifyCode: await code(firstDay), password: DEMO_PASSWORD },
      at: firstDay,
    });
    created = registered.status === 200;
    if (!created) {
      if (registered.body?.error !== 'ACCOUNT_EXISTS') throw new SeedError(`Registering failed: ${registered.status} ${JSON.stringify(registered.body)}`);
      log('An account of the demo e-mail exists without the demo password: setting it.');
      await expectOk('Password reset', call('POST', '/api/auth/password/reset', { body: { target: DEMO_EMAIL, verifyCode: await code(), newPassword: DEMO_PASSWORD } }));
    }
    login = await logIn();
  }
  const session = await expectOk('Login', Promise.resolve(login));
  // The demo user lives in Beijing: usage counts by the calendar days there, codes come in Chinese.
  await expectOk('Setting the time zone', call('PATCH', '/api/users/me', { body: { timeZone: 'Asia/Shanghai', locale: 'zh-CN' }, token: session.token }));

  log(`Writing a month of demo data for ${DEMO_EMAIL} to ${base} ...`);
  const rng = random(20260129);
  let saved = 0;
  for (let daysAgo = DAYS - 1; daysAgo >= 0; daysAgo--) {
    const day = dayStart(daysAgo);
    const at = (hours: number, minutes = rng.int(0, 59)) => new Date(day + hours * 3_600_000 + minutes * 60_000);
    const morning = at(rng.int(7, 8));
    if (morning.getTime() > now.getTime()) break;
    // The app signs in in the morning (tokens live a day) and reports where.
    const token = (await expectOk('Login', logIn(morning))).token as string;
    const location = daysAgo >= 9 && daysAgo <= 11 ? 'Beijing, China' : rng.pick(LOCATIONS);
    await expectOk('Login event', call('POST', '/api/behavior/login', { body: { location }, token, at: morning, key: `seed-login-${daysAgo}` }));

    for (const device of DEVICES.filter((candidate) => candidate.day === daysAgo)) {
      const { day: _day, ...body } = device;
      await expectOk('Binding a device', call('POST', '/api/devices', { body, token, at: morning }));
    }

    const weekend = [0, 6].includes(new Date(day).getUTCDay());
    const count = weekend ? rng.int(0, 2) : rng.int(1, 3);
    for (let index = 0; index < count; index++) {
      const moment = at(9 + Math.floor((index * 9) / Math.max(count, 1)) + rng.int(0, 2));
      if (moment.getTime() > now.getTime()) break;
      const kind = rng.pick(weekend ? RECORDINGS.filter((recording) => recording.minutes[0] >= 15) : RECORDINGS);
      const sentences = [...kind.sentences].sort(() => rng.next() - 0.5).slice(0, rng.int(2, kind.sentences.length));
      const body = {
        recordTitle: rng.pick(kind.titles),
        text: sentences.join(kind.language === 'zh-CN' ? '' : ' '),
        language: kind.language,
        durationSeconds: rng.int(kind.minutes[0] * 60, kind.minutes[1] * 60),
      };
      const record = await expectOk('Saving a record', call('POST', '/api/transcriptions', { body, token, at: moment, key: `seed-record-${daysAgo}-${index}` }));
      saved++;
      // Now and then the date goes into the title afterwards, which sets updatedAt.
      if (rng.next() < 0.1) {
        const later = new Date(moment.getTime() + rng.int(10, 120) * 60_000);
        const recordTitle = `${body.recordTitle} ${moment.toISOString().slice(5, 10)}`;
        if (later.getTime() <= now.getTime()) {
          await expectOk('Editing a record', call('PATCH', `/api/transcriptions/${record.transcriptionRecordId}`, { body: { recordTitle }, token, at: later }));
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
      await expectOk('Syncing an offline record', call('POST', '/api/transcriptions', { body, token, at: morning, key: `seed-offline-${daysAgo}` }));
      saved++;
    }

    // Settings change often in the first days, rarely later.
    const changes = daysAgo >= DAYS - 4 ? rng.int(2, 4) : rng.next() < 0.3 ? 1 : 0;
    for (let index = 0; index < changes; index++) {
      const choice = rng.pick(CHOICES);
      const moment = at(8, 10 + index * 5);
      if (moment.getTime() > now.getTime()) break;
      const body = { eventType: choice.eventType, eventValue: rng.pick(choice.values) };
      await expectOk('Recording an event', call('POST', '/api/behavior/events', { body, token, at: moment, key: `seed-event-${daysAgo}-${index}` }));
    }
  }
  log(`Saved ${saved} transcription records.`);
  return summary(created, session.token, session.userId);

  async function summary(wasCreated: boolean, token: string, userId: number): Promise<SeedSummary> {
    const devices = await expectOk('Listing devices', call('GET', '/api/devices', { token }));
    const usage = await expectOk('Reading usage', call('GET', '/api/transcriptions/usage?days=31', { token }));
    const stats = await expectOk('Reading statistics', call('GET', '/api/behavior/stats', { token }));
    let records = 0;
    let cursor: string | null = null;
    do {
      const page: Answer = await call('GET', `/api/transcriptions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      records += (page.body as unknown[]).length;
      cursor = page.headers.get('X-Next-Cursor');
    } while (cursor);
    const events = stats.loginCount + (stats.events as { count: number }[]).reduce((sum, entry) => sum + entry.count, 0);
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
      console.error(error instanceof SeedError ? error.message : error);
      process.exit(1);
    },
  );
}
