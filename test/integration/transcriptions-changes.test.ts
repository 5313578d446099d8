import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * GET /api/transcriptions/changes, the change feed (issue 36, docs/sync.md), through the local
 * server over HTTP against DynamoDB Local: a device that walks it ends equal to the service, also
 * when writes commit out of the order of their timestamps, when records are deleted during a walk,
 * and after its cursor expired.
 */
let api: LocalApi;
let owner: Account;
let stranger: Account;

const RETENTION_SECONDS = 60;

beforeAll(async () => {
  api = await startLocalApi({ TOKEN_TTL_MS: String(400 * 86_400_000), RECORD_TOMBSTONE_RETENTION_SECONDS: String(RETENTION_SECONDS) });
  api.clock.set(new Date('2030-03-10T08:00:00Z'));
  [owner, stranger] = await Promise.all([newAccount(api, 'owner'), newAccount(api, 'stranger')]);
});
afterAll(() => api?.close());

type Change = { type: 'upsert'; record: { transcriptionRecordId: number; revision: number; [field: string]: unknown } } | { type: 'delete'; transcriptionRecordId: number; revision: number };
interface Page {
  changes: Change[];
  cursor: string;
  hasMore: boolean;
}

const feed = (account: Account, query = '') => api.request<Page>('GET', `/api/transcriptions/changes${query}`, { token: account.token });

/** A device's copy of the records: what it applied from the feed, by id, and where it stands. */
class Device {
  records = new Map<number, Record<string, unknown>>();
  cursor: string | undefined;
  seen: Change[] = [];
  constructor(readonly account: Account) {}

  apply(changes: Change[]) {
    for (const change of changes) {
      this.seen.push(change);
      if (change.type === 'upsert') this.records.set(change.record.transcriptionRecordId, change.record);
      else this.records.delete(change.transcriptionRecordId);
    }
  }

  /** One request; the answer's status. */
  async pullPage(limit = 50) {
    const query = new URLSearchParams({ limit: String(limit), ...(this.cursor ? { cursor: this.cursor } : {}) });
    const response = await feed(this.account, `?${query}`);
    if (response.status !== 200) return response;
    this.apply(response.body.changes);
    this.cursor = response.body.cursor;
    return response;
  }

  /** Walks to the head; the pages it took. */
  async pull(limit = 50) {
    for (let pages = 1; ; pages++) {
      const response = await this.pullPage(limit);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      if (!response.body.hasMore) return pages;
    }
  }
}

/** The records as the service has them now, by id. */
async function serviceRecords(account: Account) {
  const response = await api.request<Record<string, unknown>[]>('GET', '/api/transcriptions?limit=100', { token: account.token });
  return new Map(response.body.map((record) => [record.transcriptionRecordId as number, record]));
}

describe('GET /api/transcriptions/changes', () => {
  it('answers an account without records with no changes, hasMore false and a cursor', async () => {
    const response = await feed(await newAccount(api));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ changes: [], cursor: expect.any(String), hasMore: false });
  });

  it('walks every record from the beginning in commit order, then exactly what changed: each record once, at its latest state', async () => {
    const account = await newAccount(api);
    const saved = [];
    for (const title of ['one', 'two', 'three']) saved.push(await saveRecord(api, account, { recordTitle: title }));
    const device = new Device(account);
    await device.pull();
    expect(device.seen.map((change) => change.type === 'upsert' && change.record.recordTitle)).toEqual(['one', 'two', 'three']);
    expect(device.seen.map((change) => change.type === 'upsert' && change.record)).toEqual(saved);

    // Five edits of one record and a deletion of another: two changes, the edit at its last state.
    for (let index = 1; index <= 5; index++) {
      await api.request('PATCH', `/api/transcriptions/${saved[0].transcriptionRecordId}`, { token: account.token, body: { text: `Version ${index}` } });
    }
    await api.request('DELETE', `/api/transcriptions/${saved[1].transcriptionRecordId}`, { token: account.token });
    const next = await feed(account, `?cursor=${device.cursor}`);
    expect(next.body.hasMore).toBe(false);
    expect(next.body.changes).toEqual([
      { type: 'upsert', record: expect.objectContaining({ transcriptionRecordId: saved[0].transcriptionRecordId, text: 'Version 5', revision: 6 }) },
      { type: 'delete', transcriptionRecordId: saved[1].transcriptionRecordId, clientRecordId: null, revision: 2, deletedAt: expect.any(String) },
    ]);
    device.apply(next.body.changes);
    device.cursor = next.body.cursor;
    expect(device.records).toEqual(await serviceRecords(account));

    // Up to date: nothing more.
    expect((await feed(account, `?cursor=${device.cursor}`)).body).toMatchObject({ changes: [], hasMore: false });
    // A new device starts from the beginning and gets the live records and the tombstone.
    const fresh = new Device(account);
    await fresh.pull();
    expect(fresh.records).toEqual(await serviceRecords(account));
    expect(fresh.seen.filter((change) => change.type === 'delete')).toHaveLength(1);
  });

  it('pages by limit: every change once across the pages, cursors continuing where the last page ended', async () => {
    const account = await newAccount(api);
    for (let index = 0; index < 5; index++) await saveRecord(api, account, { recordTitle: `r${index}` });
    const device = new Device(account);
    expect(await device.pull(2)).toBe(3);
    expect(device.seen.map((change) => change.type === 'upsert' && change.record.recordTitle)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('keeps a page within 1 MB of JSON, however large the records', async () => {
    const account = await newAccount(api);
    // About 400 KB of JSON each: two fit a page, not three.
    for (let index = 0; index < 3; index++) await saveRecord(api, account, { recordTitle: `big ${index}`, text: '😀'.repeat(100_000) });
    const first = await api.request('GET', '/api/transcriptions/changes?limit=50', { token: account.token });
    expect(Buffer.byteLength(JSON.stringify(first.body))).toBeLessThanOrEqual(1024 * 1024);
    expect(first.body.changes).toHaveLength(2);
    expect(first.body.hasMore).toBe(true);
    const second = await feed(account, `?cursor=${first.body.cursor}`);
    expect(second.body.changes.map((change) => change.type === 'upsert' && change.record.recordTitle)).toEqual(['big 2']);
  });

  it.each([
    ['a limit of 0', '?limit=0', 'query.limit'],
    ['a limit of 101', '?limit=101', 'query.limit'],
    ['a garbled cursor', '?cursor=not-a-cursor', 'query.cursor'],
    ['a cursor of another shape', `?cursor=${Buffer.from(JSON.stringify({ u: 1, s: -1, t: 0 })).toString('base64url')}`, 'query.cursor'],
  ])('refuses %s with 400 naming the parameter', async (_label, query, path) => {
    const response = await api.request('GET', `/api/transcriptions/changes${query}`, { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path })] });
  });

  it('refuses a cursor of another account with 400', async () => {
    await saveRecord(api, stranger);
    const theirs = await feed(stranger);
    const response = await api.request('GET', `/api/transcriptions/changes?cursor=${theirs.body.cursor}`, { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body.details[0]).toMatchObject({ path: 'query.cursor', message: 'belongs to another account' });
  });

  it('refuses a request without credentials', async () => {
    const response = await api.request('GET', '/api/transcriptions/changes');
    expect(response.status).toBe(401);
  });

  it('brings an up-to-date device nothing new in one request of two DynamoDB reads, whatever the history', async () => {
    const account = await newAccount(api);
    for (let index = 0; index < 12; index++) await saveRecord(api, account, { recordTitle: `r${index}` });
    const device = new Device(account);
    await device.pull(5);
    const commands: string[] = [];
    const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      commands.push(String(context.commandName));
      return next(args);
    };
    api.context.db.client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'countFeedReads' });
    try {
      const response = await device.pullPage();
      expect(response.body).toMatchObject({ changes: [], hasMore: false });
    } finally {
      api.context.db.client.middlewareStack.remove('countFeedReads');
    }
    expect(commands.sort()).toEqual(['GetItemCommand', 'QueryCommand']);
  });

  it('answers a page of small records from the feed alone, and reads only the large ones beside it, each as it was saved', async () => {
    const account = await newAccount(api);
    for (let index = 0; index < 6; index++) await saveRecord(api, account, { recordTitle: `small ${index}` });
    // Past FEED_COPY_MAX_BYTES (4 KB of JSON): named by reference in its entry.
    const large = (await saveRecord(api, account, { recordTitle: 'large', text: 'x'.repeat(6000) })) as { transcriptionRecordId: number };
    const edited = (await saveRecord(api, account, { recordTitle: 'to edit' })) as { transcriptionRecordId: number };
    const patched = await api.request<{ revision: number }>('PATCH', `/api/transcriptions/${edited.transcriptionRecordId}`, { token: account.token, body: { recordTitle: 'edited' } });
    expect(patched.status).toBe(200);
    const commands: string[] = [];
    const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      commands.push(String(context.commandName));
      return next(args);
    };
    const readPage = async (query: string) => {
      commands.length = 0;
      api.context.db.client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'countFeedReads' });
      try {
        return await feed(account, query);
      } finally {
        api.context.db.client.middlewareStack.remove('countFeedReads');
      }
    };
    const small = await readPage('?limit=6');
    expect(small.status).toBe(200);
    expect(small.body.changes.map((change) => (change.type === 'upsert' ? change.record.recordTitle : change.type))).toEqual(['small 0', 'small 1', 'small 2', 'small 3', 'small 4', 'small 5']);
    expect(commands.sort()).toEqual(['GetItemCommand', 'QueryCommand']);

    const rest = await readPage(`?cursor=${small.body.cursor}`);
    expect(commands.sort()).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand']);
    const records = rest.body.changes.map((change) => (change.type === 'upsert' ? change.record : undefined));
    expect(records.map((record) => record?.recordTitle)).toEqual(['large', 'edited']);
    // The copy in the entry is the record as of its latest change, as GET answers it.
    for (const record of records) {
      const got = await api.request('GET', `/api/transcriptions/${record!.transcriptionRecordId}`, { token: account.token });
      expect(record).toEqual(got.body);
    }
    expect(records[0]!.transcriptionRecordId).toBe(large.transcriptionRecordId);
    expect(records[1]!.revision).toBe(patched.body.revision);
  });
});

describe('commit order, not timestamps', () => {
  it('a reader polling all the while sees every change, also a write stamped earlier that commits later', async () => {
    // Two containers: this server's writes titled "slow" wait between stamping and committing; the other's do not.
    const other = await api.withPorts({});
    const account = await newAccount(api);
    const existing = await saveRecord(api, account, { recordTitle: 'existing' });
    const reader = new Device(account);
    await reader.pull();

    // The writes titled "slow" wait between stamping (the service built them) and committing: until
    // the fast write and the edit have committed and the reader has polled past them.
    let slowStamped!: () => void;
    const stamped = new Promise<void>((resolve) => (slowStamped = resolve));
    let commitSlow!: () => void;
    const mayCommit = new Promise<void>((resolve) => (commitSlow = resolve));
    const middleware = (next: (args: { input: { TransactItems?: { Put?: { Item?: { recordTitle?: string } } }[] } }) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: { TransactItems?: { Put?: { Item?: { recordTitle?: string } } }[] } }) => {
      if (context.commandName === 'TransactWriteItemsCommand' && args.input.TransactItems?.some((item) => item.Put?.Item?.recordTitle === 'slow')) {
        slowStamped();
        await mayCommit;
      }
      return next(args);
    };
    api.context.db.client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'slowCommit' });
    let polling = true;
    /** Polls the reader finished. */
    let polled = 0;
    /** Resolves once the reader has finished a poll it began after this call (two polls on). */
    const pollsOn = async () => {
      const from = polled;
      await expect.poll(() => polled, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(from + 2);
    };
    const polls = (async () => {
      while (polling) {
        const response = await reader.pullPage();
        expect(response.status).toBe(200);
        polled++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      const slow = api.request('POST', '/api/transcriptions', { token: account.token, body: { recordTitle: 'slow', text: 'stamped first', language: 'en-US', durationSeconds: 1 } });
      await stamped;
      // Stamped ten seconds later, committed first.
      api.clock.advance(10);
      const fast = await saveRecord(other, account, { recordTitle: 'fast', text: 'stamped second' });
      const edited = await other.request('PATCH', `/api/transcriptions/${existing.transcriptionRecordId}`, { token: account.token, body: { text: 'edited meanwhile' } });
      expect(edited.status).toBe(200);
      // The reader's cursor now stands past the fast write and the edit; then the slow write commits.
      await pollsOn();
      commitSlow();
      const slowSaved = await slow;
      expect(slowSaved.status, JSON.stringify(slowSaved.body)).toBe(200);
      // The slow write is older by its timestamp, newer by its commit.
      expect(slowSaved.body.createdAt < fast.createdAt).toBe(true);
      await pollsOn();
    } finally {
      commitSlow();
      polling = false;
      await polls;
      api.context.db.client.middlewareStack.remove('slowCommit');
      await other.close();
    }
    await reader.pull();
    expect(reader.records).toEqual(await serviceRecords(account));
    const order = reader.seen.filter((change) => change.type === 'upsert').map((change) => (change as Extract<Change, { type: 'upsert' }>).record.recordTitle);
    // It saw the fast write before the slow one: a cursor at the fast write's timestamp would have skipped the slow one.
    expect(order.indexOf('fast')).toBeLessThan(order.indexOf('slow'));
  });
});

describe('deleting during a walk', () => {
  it('a device walking its first pull while another deletes records converges without them', async () => {
    const account = await newAccount(api);
    const saved = [];
    for (let index = 0; index < 6; index++) saved.push(await saveRecord(api, account, { recordTitle: `r${index}` }));
    const device = new Device(account);
    expect((await device.pullPage(2)).body.hasMore).toBe(true);
    // One record the device already has and one it has not reached yet.
    await api.request('DELETE', `/api/transcriptions/${saved[0].transcriptionRecordId}`, { token: account.token });
    await api.request('DELETE', `/api/transcriptions/${saved[4].transcriptionRecordId}`, { token: account.token });
    await device.pull(2);
    expect([...device.records.keys()].sort()).toEqual([saved[1], saved[2], saved[3], saved[5]].map((record) => record.transcriptionRecordId).sort());
    expect(device.records).toEqual(await serviceRecords(account));
  });
});

describe('retention and 410', () => {
  it('answers a cursor older than the retention 410 CURSOR_EXPIRED once records changed; a fresh walk drops the records deleted meanwhile', async () => {
    const account = await newAccount(api);
    const saved = [];
    for (let index = 0; index < 3; index++) saved.push(await saveRecord(api, account, { recordTitle: `r${index}` }));
    const device = new Device(account);
    await device.pull();
    await api.request('DELETE', `/api/transcriptions/${saved[1].transcriptionRecordId}`, { token: account.token });
    api.clock.advance(RETENTION_SECONDS + 1);
    const expired = await device.pullPage();
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ code: 410, error: 'CURSOR_EXPIRED' });
    // As the client does: walk again from the beginning, keep only what the walk brings.
    const walk = new Device(account);
    await walk.pull();
    expect([...walk.records.keys()].sort()).toEqual([saved[0], saved[2]].map((record) => record.transcriptionRecordId).sort());
  });

  it('never answers 410 to a device idle at the head, however long, nor to one that keeps polling while records change', async () => {
    const account = await newAccount(api);
    await saveRecord(api, account);
    const device = new Device(account);
    await device.pull();
    api.clock.advance(10 * RETENTION_SECONDS);
    expect((await device.pullPage()).status).toBe(200);
    for (let round = 0; round < 4; round++) {
      await saveRecord(api, account, { recordTitle: `round ${round}` });
      api.clock.advance(RETENTION_SECONDS / 2 + 1);
      await device.pull();
    }
    expect(device.records).toEqual(await serviceRecords(account));
  });
});
