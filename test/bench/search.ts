import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/db/keys';
import { SEARCH_READ_ITEMS } from '../../shared/db/transcriptions-repository';
import type { StoredRecord } from '../../shared/db/transcriptions-repository';
import { inParallel } from './fixtures';
import { findRoute, replay, timeHandlerCall, waves } from './harness';
import type { Account, Bench, RecordedCommand } from './harness';
import { median, ratio, round, shuffled } from './stats';

/**
 * Issue 31: a search page (`GET /api/transcriptions?q=`) against a plain list page of the same
 * account, 5 000 records of English and Chinese of realistic lengths. A search request reads one
 * bounded batch of the person's records (SEARCH_READ_ITEMS, at most 1 MB) and matches it in the
 * function; a list page reads its `limit` records. Both are timed in the same rounds, shuffled,
 * each next to the same DynamoDB commands replayed on the bare client (how much is the database).
 *
 * The records are written straight to DynamoDB Local with BatchWrite and the service's own key
 * builders (a record and its id pointer, as `insertRecord` writes them), in seconds rather than
 * 5 000 requests through the handler; the usage aggregates, which neither read touches, are left out.
 */
export const SEARCH_OPERATION = 'GET /api/transcriptions';
export const PAGE_LIMIT = 20;

export interface SearchQueryCase {
  label: string;
  q: string;
}

/**
 * A word no record holds (the worst case: every page reads a whole batch and matches all of it,
 * and the walk reads the whole history), and one many Chinese records hold (the common case).
 */
export const SEARCH_QUERIES: SearchQueryCase[] = [
  { label: 'finds nothing', q: 'zanzibar' },
  { label: 'common (会议)', q: '会议' },
];

/** A small deterministic generator (mulberry32), so every run searches the same history. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const ENGLISH = [
  'Good morning, can you hear me all right?',
  'Let me check the calendar before we decide on a date.',
  'The doctor said to take the tablets twice a day with food.',
  'We could take the number 12 bus and change at the station.',
  'Sorry, could you say that again a little more slowly?',
  'The train leaves at ten past four from platform two.',
  'I think the second option is cheaper in the long run.',
  'She asked whether the report would be ready by Thursday.',
  'Turn left after the pharmacy, it is the blue door on the right.',
  'My daughter starts school next week, so mornings are busy.',
  'The quarterly numbers look better than we expected.',
  'Please send me the address again, I lost the message.',
  'He said the dose should go down to half a tablet after ten days.',
  'We will need two more chairs for the dinner on Saturday.',
  'Can we move the call to three pm tomorrow?',
  'The café on the corner does a good lunch for under ten euros.',
  'I will write it down so we do not forget.',
  'The lecture covers chapters four and five, with a quiz at the end.',
];

const CHINESE = [
  '早上好，你听得清楚吗？',
  '我先看一下日历，然后再定时间。',
  '医生说这个药每天吃两次，饭后吃。',
  '我们可以坐十二路公交车，到火车站换乘。',
  '不好意思，你能再说慢一点吗？',
  '火车四点十分从二号站台出发。',
  '我觉得第二个方案从长远来看更便宜。',
  '她问报告星期四之前能不能准备好。',
  '过了药店往左拐，右边那个蓝色的门就是。',
  '我女儿下周开始上学，所以早上会比较忙。',
  '这个季度的数字比我们预期的要好。',
  '请再把地址发给我一次，我找不到那条消息了。',
  '他说十天以后剂量要减到半片。',
  '星期六的晚饭我们还需要两把椅子。',
  '我们下周一再review一下这个方案，好吗？',
  '街角那家咖啡馆的午餐不到五十块。',
  '我把它写下来，免得忘了。',
  '这节课讲第四章和第五章，最后有一个小测验。',
];

/** Said in about one record in five; the Chinese one holds the common query's word (so does a title). */
const MENTIONS = { 'en-US': 'The meeting moved to Wednesday afternoon.', 'zh-CN': '明天的会议改到三点，在二楼开。' };
const TITLES = {
  'en-US': ['Team meeting', 'Doctor appointment', 'Call with Mum', 'Lecture notes', 'Dinner plans', 'Train station', 'Weekly review'],
  'zh-CN': ['团队会议', '看医生', '和妈妈通话', '课堂笔记', '晚饭安排', '火车站', '每周回顾'],
};

/**
 * How long the captioned conversations are, in minutes: short exchanges, a few minutes of talk, a
 * longer conversation, now and then a whole meeting (7 minutes on average).
 */
const DURATIONS: { share: number; min: number; max: number }[] = [
  { share: 0.4, min: 0.5, max: 2 },
  { share: 0.35, min: 2, max: 8 },
  { share: 0.2, min: 8, max: 20 },
  { share: 0.05, min: 30, max: 60 },
];

/**
 * Characters of text a minute of talk gives: ~150 English words, ~250 Chinese characters. A record
 * of ~1 500 characters is two minutes of English or six of Chinese; in UTF-8 a minute is ~800
 * bytes in either language (a Chinese character takes three), so a record averages ~5.5 KB: a
 * page's bytes weigh on its time, not only its count, and 200 records would pass 1 MB.
 */
const CHARACTERS_PER_MINUTE = { 'en-US': 800, 'zh-CN': 250 };

export interface SearchHistory {
  records: number;
  /** UTF-8 bytes of all titles and texts. */
  textBytes: number;
  chineseShare: number;
}

function recordsOf(userId: number, count: number): { records: StoredRecord[]; history: SearchHistory } {
  const random = generator(31);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const now = Date.now();
  const records: StoredRecord[] = [];
  let textBytes = 0;
  let chinese = 0;
  for (let index = 0; index < count; index++) {
    const language = random() < 0.5 ? 'zh-CN' : 'en-US';
    const roll = random();
    let cumulative = 0;
    const band = DURATIONS.find((entry) => (cumulative += entry.share) > roll) ?? DURATIONS.at(-1)!;
    const minutes = band.min + random() * (band.max - band.min);
    const target = Math.round(minutes * CHARACTERS_PER_MINUTE[language]);
    const pool = language === 'zh-CN' ? CHINESE : ENGLISH;
    const sentences: string[] = [];
    let length = 0;
    const mentioned = random() < 0.2;
    const mentionAt = Math.floor(random() * target);
    while (length < target) {
      const sentence = mentioned && length >= mentionAt && !sentences.includes(MENTIONS[language]) ? MENTIONS[language] : pick(pool);
      sentences.push(sentence);
      length += [...sentence].length + (language === 'zh-CN' ? 0 : 1);
    }
    const text = sentences.join(language === 'zh-CN' ? '' : ' ');
    // Oldest first over the last 300 days: the walk goes from the newest back.
    const startedAtMs = now - 300 * 86_400_000 + Math.floor((index * 300 * 86_400_000) / count);
    const startedAt = new Date(Math.floor(startedAtMs / 1000) * 1000);
    const recordTitle = `${pick(TITLES[language])} ${index + 1}`;
    records.push({
      // Ids of a block of their own: a record's id only has to be unique within its partition here.
      transcriptionRecordId: 1_000_000_000 + index,
      userId,
      recordTitle,
      text,
      textLength: [...text].length,
      language,
      durationSeconds: Math.round(minutes * 60),
      startedAt: startedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      createdAt: startedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      updatedAt: null,
      createdAtMs: new Date(startedAtMs).toISOString(),
      clientRecordId: null,
      // Written as the item itself, which counts edits (the API answers revision 1).
      revision: 0,
      usageDate: startedAt.toISOString().slice(0, 10),
    });
    textBytes += Buffer.byteLength(text) + Buffer.byteLength(recordTitle);
    if (language === 'zh-CN') chinese++;
  }
  return { records, history: { records: count, textBytes, chineseShare: round(chinese / count, 2) } };
}

/** Writes the records and their id pointers with BatchWrite (25 items a request), retrying what DynamoDB left unprocessed. */
export async function seedSearchHistory(bench: Bench, account: Account, count: number): Promise<SearchHistory> {
  const { records, history } = recordsOf(account.userId, count);
  const items = records.flatMap((record) => [
    { ...keys.transcription(record.userId, record.createdAtMs, record.transcriptionRecordId), ...record },
    { ...keys.transcriptionPointer(record.userId, record.transcriptionRecordId), recordKey: keys.transcription(record.userId, record.createdAtMs, record.transcriptionRecordId).SK },
  ]);
  const batches = Math.ceil(items.length / 25);
  await inParallel(batches, 4, async (batch) => {
    let pending: Record<string, unknown>[] | undefined = items.slice(batch * 25, batch * 25 + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 10) throw new Error('BatchWrite left items unprocessed 10 times');
      const result = await bench.bare.send(new BatchWriteCommand({ RequestItems: { [bench.config.TABLE_NAME]: pending as never } }));
      pending = result.UnprocessedItems?.[bench.config.TABLE_NAME] as Record<string, unknown>[] | undefined;
    }
  });
  return history;
}

/** One page of a walk: its cursor, the commands it issued, and what it read. */
interface WalkedPage {
  cursor: string | undefined;
  commands: RecordedCommand[];
  results: number;
  readUnits: number;
}

interface Walk {
  pages: WalkedPage[];
  /** Pages until the first PAGE_LIMIT results (what `client.transcriptions.search()` asks for), or the whole walk. */
  pagesToFirstLimit: number;
  results: number;
}

async function walk(bench: Bench, account: Account, query: Record<string, string>): Promise<Walk> {
  const pages: WalkedPage[] = [];
  let cursor: string | undefined;
  let results = 0;
  let pagesToFirstLimit = 0;
  do {
    const spec = { account, query: { ...query, limit: String(PAGE_LIMIT), ...(cursor ? { cursor } : {}) } };
    let answer: Awaited<ReturnType<Bench['invoke']>> | undefined;
    let commands: RecordedCommand[] = [];
    const used = await bench.usage(async () => {
      commands = await bench.record(async () => {
        answer = await bench.invoke(SEARCH_OPERATION, spec);
      });
    });
    if (answer?.statusCode !== 200) throw new Error(`${SEARCH_OPERATION} answered ${answer?.statusCode}: ${answer?.body}`);
    const found = (JSON.parse(answer.body) as unknown[]).length;
    pages.push({ cursor, commands, results: found, readUnits: used.dynamo.readUnits });
    results += found;
    if (pagesToFirstLimit === 0 && results >= PAGE_LIMIT) pagesToFirstLimit = pages.length;
    const next = answer.headers?.['X-Next-Cursor'];
    cursor = typeof next === 'string' ? next : undefined;
  } while (cursor);
  return { pages, pagesToFirstLimit: pagesToFirstLimit || pages.length, results };
}

/** Records one Query of a page read (its Count), by replaying it on the bare client. */
async function recordsRead(bench: Bench, page: WalkedPage): Promise<{ count: number; more: boolean }> {
  const query = page.commands.find((command) => command.Command === QueryCommand);
  if (!query) throw new Error('a page issued no Query');
  const result = await bench.bare.send(new QueryCommand(query.input as QueryCommandInput));
  return { count: result.Count ?? 0, more: result.LastEvaluatedKey !== undefined };
}

export interface SearchQueryResult {
  label: string;
  q: string;
  results: number;
  /** Requests of a search that walks the whole history with this query. */
  pagesFullWalk: number;
  /** Requests until PAGE_LIMIT results (or the end): what the app client makes for one screen. */
  pagesToFirstLimit: number;
  pageP50Us: number;
  bareP50Us: number;
  /** Page p50 over the plain list page's p50 (GOALS.searchPageRatio). */
  ratio: number;
  /** Read units of the whole walk (strongly consistent: one per 4 KB read). */
  readUnitsFullWalk: number;
  /** Records one page read (median), and the pages DynamoDB's 1 MB stopped before SEARCH_READ_ITEMS records. */
  recordsPerPageMedian: number;
  pagesCutBy1Mb: number;
}

/** The bare Query of a search page at another item bound: what the database alone takes, and how many pages a whole walk needs. */
export interface ReadBoundResult {
  items: number;
  bareP50Us: number;
  /** Over the bare p50 at PAGE_LIMIT items (a list page's read), measured in the same rounds. */
  ratio: number;
  pagesFullWalk: number;
}

export interface SearchResult {
  history: SearchHistory;
  seedMs: number;
  list: { p50Us: number; bareP50Us: number; readUnitsMedian: number };
  queries: SearchQueryResult[];
  /** The search's read bound is SEARCH_READ_ITEMS; these are the same Query at other bounds. */
  readBounds: ReadBoundResult[];
  samples: number;
}

/** Item bounds the read-bound table compares (PAGE_LIMIT first: the list page's read). */
export const READ_BOUNDS = [...new Set([PAGE_LIMIT, 50, 100, 200, SEARCH_READ_ITEMS])].sort((a, b) => a - b);

/**
 * Walks the whole history with the search page's Query at each item bound (bare client, 1 MB
 * still applies), `rounds` times, the bounds in shuffled order each round, timing every page.
 */
async function measureReadBounds(bench: Bench, page: WalkedPage, rounds: number): Promise<ReadBoundResult[]> {
  const recorded = page.commands.find((command) => command.Command === QueryCommand);
  if (!recorded) throw new Error('a page issued no Query');
  const base = structuredClone(recorded.input) as QueryCommandInput;
  delete base.ExclusiveStartKey;
  const times = new Map(READ_BOUNDS.map((items) => [items, [] as number[]]));
  const pages = new Map<number, number>();
  for (let round = 0; round < rounds; round++) {
    for (const items of shuffled(READ_BOUNDS)) {
      let startKey: Record<string, unknown> | undefined;
      let count = 0;
      do {
        const started = performance.now();
        const result = await bench.bare.send(new QueryCommand({ ...base, Limit: items, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }));
        times.get(items)!.push(performance.now() - started);
        startKey = result.LastEvaluatedKey;
        count++;
      } while (startKey);
      pages.set(items, count);
    }
  }
  const floor = median(times.get(PAGE_LIMIT)!);
  return READ_BOUNDS.map((items) => ({
    items,
    bareP50Us: Math.round(median(times.get(items)!) * 1000),
    ratio: ratio(median(times.get(items)!), floor),
    pagesFullWalk: pages.get(items)!,
  }));
}

type Timed = { handler: () => Promise<number>; bare: () => Promise<number> };

/** Timers that go round the pages of a walk: each call times the next page, through the handler or replayed bare. */
async function pageTimers(bench: Bench, account: Account, query: Record<string, string>, pages: WalkedPage[]): Promise<Timed> {
  const route = findRoute(SEARCH_OPERATION);
  const run = await bench.handler(route);
  const plans = pages.map((page) => waves(page.commands));
  const order = { handler: 0, bare: 0 };
  return {
    handler: async () => {
      const page = pages[order.handler++ % pages.length]!;
      const event = bench.event(route, { account, query: { ...query, limit: String(PAGE_LIMIT), ...(page.cursor ? { cursor: page.cursor } : {}) } });
      return timeHandlerCall(run, event, bench.context(route, event), SEARCH_OPERATION);
    },
    bare: async () => {
      const plan = plans[order.bare++ % plans.length]!;
      const started = performance.now();
      await replay(bench.bare, plan);
      return performance.now() - started;
    },
  };
}

export async function measureSearch(bench: Bench, count: number, iterations: number, boundRounds: number, log: (message: string) => void): Promise<SearchResult> {
  const account = await bench.signUp('search');
  const seedStarted = performance.now();
  const history = await seedSearchHistory(bench, account, count);
  const seedMs = performance.now() - seedStarted;
  log(`search: ${count} records (${(history.textBytes / 1024 / 1024).toFixed(1)} MB of text) written with BatchWrite in ${(seedMs / 1000).toFixed(1)} s`);

  const listWalk = await walk(bench, account, {});
  const walks: Walk[] = [];
  for (const query of SEARCH_QUERIES) walks.push(await walk(bench, account, { q: query.q }));
  log(`search: walked the list (${listWalk.pages.length} pages) and each query (${walks.map((entry) => entry.pages.length).join(', ')} pages)`);

  // Each timed side goes round every page of its walk, so every position in the history is timed alike.
  const list = await pageTimers(bench, account, {}, shuffled(listWalk.pages));
  const searches = await Promise.all(SEARCH_QUERIES.map((query, index) => pageTimers(bench, account, { q: query.q }, shuffled(walks[index]!.pages))));
  const sides: { timed: Timed; times: { handler: number[]; bare: number[] } }[] = [list, ...searches].map((timed) => ({ timed, times: { handler: [], bare: [] } }));
  for (const side of sides) {
    for (let index = 0; index < 3; index++) {
      await side.timed.handler();
      await side.timed.bare();
    }
  }
  for (let index = 0; index < iterations; index++) {
    for (const [side, kind] of shuffled(sides.flatMap((entry) => (['handler', 'bare'] as const).map((which) => [entry, which] as const)))) {
      side.times[kind].push(await side.timed[kind]());
    }
  }
  const p50 = (values: number[]) => median(values) * 1000;
  const listP50 = p50(sides[0]!.times.handler);

  const queries: SearchQueryResult[] = [];
  for (const [index, query] of SEARCH_QUERIES.entries()) {
    const walked = walks[index]!;
    const reads = [];
    for (const page of walked.pages) reads.push(await recordsRead(bench, page));
    const times = sides[index + 1]!.times;
    queries.push({
      label: query.label,
      q: query.q,
      results: walked.results,
      pagesFullWalk: walked.pages.length,
      pagesToFirstLimit: walked.pagesToFirstLimit,
      pageP50Us: Math.round(p50(times.handler)),
      bareP50Us: Math.round(p50(times.bare)),
      ratio: ratio(p50(times.handler), listP50),
      readUnitsFullWalk: round(walked.pages.reduce((total, page) => total + page.readUnits, 0), 1),
      recordsPerPageMedian: median(reads.map((read) => read.count)),
      pagesCutBy1Mb: reads.filter((read) => read.more && read.count < SEARCH_READ_ITEMS).length,
    });
  }
  log(`search: the same Query at ${READ_BOUNDS.join(', ')} items, whole walks x ${boundRounds}`);
  const readBounds = await measureReadBounds(bench, walks[0]!.pages[0]!, boundRounds);
  return {
    history,
    seedMs: Math.round(seedMs),
    list: { p50Us: Math.round(listP50), bareP50Us: Math.round(p50(sides[0]!.times.bare)), readUnitsMedian: median(listWalk.pages.map((page) => page.readUnits)) },
    queries,
    readBounds,
    samples: iterations,
  };
}
