import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as backfillCli } from '../../infra/tools/backfill-change-feed';
import { keys, sortKeyPrefix } from '../../shared/db/keys';
import { adoptIntoFeed, backfillChangeFeed, recordsOutsideFeed } from '../../shared/db/feed-backfill';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * Records saved before the change feed existed have no entry in it: the backfill (npm run
 * backfill:feed) gives each one, so a new device's first walk brings every record. Here such
 * records are made as the service saved them then: saved, then their feed entry and change
 * numbers taken away.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

interface Saved {
  transcriptionRecordId: number;
  revision: number;
  recordTitle: string;
}
type Change = { type: 'upsert'; record: Saved } | { type: 'delete'; transcriptionRecordId: number };
interface Page {
  changes: Change[];
  cursor: string;
  hasMore: boolean;
}

const partitionItems = async (userId: number) =>
  (await api.db.client.send(new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.userPartition(userId) } }))).Items ?? [];

/** Turns the account's records into records saved before the feed: no entries, no change numbers. */
async function beforeTheFeed(account: Account): Promise<void> {
  for (const item of await partitionItems(account.userId)) {
    const key = { PK: item.PK, SK: item.SK };
    if (String(item.SK).startsWith(sortKeyPrefix.recordChange)) await api.db.client.send(new DeleteCommand({ TableName: api.db.tableName, Key: key }));
    else if (item.changeSeq !== undefined) await api.db.client.send(new UpdateCommand({ TableName: api.db.tableName, Key: key, UpdateExpression: 'REMOVE changeSeq' }));
  }
}

async function walk(account: Account, cursor?: string): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  for (;;) {
    const response = await api.request<Page>('GET', `/api/transcriptions/changes?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: account.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    changes.push(...response.body.changes);
    cursor = response.body.cursor;
    if (!response.body.hasMore) return { changes, cursor };
  }
}

const titles = (changes: Change[]) => changes.map((change) => (change.type === 'upsert' ? change.record.recordTitle : `deleted ${change.transcriptionRecordId}`)).sort();

describe('the change feed backfill', () => {
  it('gives every record saved before the feed its entry, once: a fresh walk brings them all, as GET answers them', async () => {
    const account = await newAccount(api);
    for (const title of ['old 1', 'old 2', 'old 3']) await saveRecord(api, account, { recordTitle: title });
    await beforeTheFeed(account);
    expect((await walk(account)).changes).toEqual([]);
    await saveRecord(api, account, { recordTitle: 'new' });
    expect(titles((await walk(account)).changes)).toEqual(['new']);

    const first = await backfillChangeFeed(api.db, { segments: 2 });
    expect(first).toEqual({ adopted: 3, skipped: 0 });
    const { changes } = await walk(account);
    expect(titles(changes)).toEqual(['new', 'old 1', 'old 2', 'old 3']);
    for (const change of changes) {
      if (change.type !== 'upsert') continue;
      const got = await api.request('GET', `/api/transcriptions/${change.record.transcriptionRecordId}`, { token: account.token });
      expect(change.record).toEqual(got.body);
    }
    expect(await backfillChangeFeed(api.db)).toEqual({ adopted: 0, skipped: 0 });
  });

  it('hands the backfilled records to a device already following the feed, after its cursor', async () => {
    const account = await newAccount(api);
    await saveRecord(api, account, { recordTitle: 'before' });
    await beforeTheFeed(account);
    await saveRecord(api, account, { recordTitle: 'seen' });
    const { cursor } = await walk(account);
    await backfillChangeFeed(api.db);
    expect(titles((await walk(account, cursor)).changes)).toEqual(['before']);
    // Edits after the backfill go through the feed as any other.
    const { changes } = await walk(account);
    const before = changes.find((change) => change.type === 'upsert' && change.record.recordTitle === 'before') as { record: Saved };
    const patched = await api.request<Saved>('PATCH', `/api/transcriptions/${before.record.transcriptionRecordId}`, { token: account.token, body: { recordTitle: 'after' } });
    expect(patched.status).toBe(200);
    expect(titles((await walk(account)).changes)).toEqual(['after', 'seen']);
  });

  it('leaves alone a record changed or deleted after the scan read it, and an account deleted meanwhile', async () => {
    const account = await newAccount(api);
    const edited = (await saveRecord(api, account, { recordTitle: 'edited' })) as Saved;
    const removed = (await saveRecord(api, account, { recordTitle: 'removed' })) as Saved;
    await beforeTheFeed(account);
    const read = [];
    for await (const item of recordsOutsideFeed(api.db)) if (item.userId === account.userId) read.push(item);
    expect(read).toHaveLength(2);
    expect((await api.request('PATCH', `/api/transcriptions/${edited.transcriptionRecordId}`, { token: account.token, body: { recordTitle: 'edited again' } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/transcriptions/${removed.transcriptionRecordId}`, { token: account.token })).status).toBe(200);
    for (const item of read) expect(await adoptIntoFeed(api.db, item)).toBe(false);
    const { changes } = await walk(account);
    expect(titles(changes)).toEqual(['edited again', `deleted ${removed.transcriptionRecordId}`].sort());

    const leaving = await newAccount(api);
    await saveRecord(api, leaving, { recordTitle: 'of a leaving account' });
    await beforeTheFeed(leaving);
    const [item] = (await partitionItems(leaving.userId)).filter((candidate) => String(candidate.SK).startsWith(sortKeyPrefix.transcription));
    expect((await api.request('DELETE', '/api/users/me', { token: leaving.token })).status).toBeLessThan(300);
    expect(await adoptIntoFeed(api.db, { ...item! })).toBe(false);
    expect((await partitionItems(leaving.userId)).filter((candidate) => String(candidate.SK).startsWith(sortKeyPrefix.recordChange))).toEqual([]);
  });

  it('runs as npm run backfill:feed against a table by name', async () => {
    const account = await newAccount(api);
    await saveRecord(api, account, { recordTitle: 'by the command' });
    await beforeTheFeed(account);
    const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await backfillCli(['--table', api.db.tableName, '--endpoint', api.config.DYNAMODB_ENDPOINT!, '--segments', '1'])).toBe(0);
      expect(printed.mock.calls.flat().join('\n')).toMatch(/^1 records given their feed entry/);
    } finally {
      printed.mockRestore();
    }
    expect(titles((await walk(account)).changes)).toEqual(['by the command']);
    expect(await backfillCli([])).toBe(2);
  });
});
