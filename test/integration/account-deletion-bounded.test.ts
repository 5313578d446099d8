import { GetCommand, QueryCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as resumeAccountPurgesJob } from '../../functions/jobs/resume-account-purges';
import { PURGE_STEP_ITEMS, endAccount, purgeAccountData } from '../../shared/db/account-deletion';
import { keys } from '../../shared/db/keys';
import { findUserById } from '../../shared/db/users-repository';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { postEvent, saveRecord, walkList } from '../support/resources';
import { seedEvents } from '../support/seed-items';

/**
 * Deleting an account answers in bounded time however much it holds (issue 28): the request
 * purges for its budget only (ACCOUNT_PURGE_BUDGET_MS, on Lambda also the remaining time less a
 * margin), the scheduled job
 * finishes the rest over as many runs as it takes, and an account that signs up again with the
 * same e-mail meanwhile keeps everything it writes.
 */
const HISTORY = 50_000;
// The request's purge budget: far less than 50 000 items take.
const SHORT_BUDGET_MS = 300;

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({ ACCOUNT_PURGE_BUDGET_MS: String(SHORT_BUDGET_MS) });
});
afterAll(() => api?.close());

async function countPartition(userId: number): Promise<number> {
  let count = 0;
  const pages = paginateQuery(
    { client: api.db.client },
    { TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.userPartition(userId) }, Select: 'COUNT', ConsistentRead: true },
  );
  for await (const page of pages) count += page.Count ?? 0;
  return count;
}

const exists = async (key: Record<string, string>) =>
  Boolean((await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: key, ConsistentRead: true }))).Item);

/** A Lambda context that leaves the job about `ms` (it keeps 10 s of its remaining time for itself). */
const jobInvocation = (ms: number) => ({ getRemainingTimeInMillis: () => 10_000 + ms }) as Pick<Context, 'getRemainingTimeInMillis'>;

let serial = 0;
const nextSn = () => `BND-${Date.now().toString(36)}-${serial++}`;
const bind = (token: string, sn: string) => api.request('POST', '/api/devices', { token, body: { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' } });

describe('deleting an account of 50 000 items', () => {
  it('answers 200 at once, the job finishes over several runs, and the same e-mail signed up meanwhile keeps all its data', async () => {
    const email = uniqueEmail('bounded');
    const old = await signIn(api, email);
    const oldSerial = nextSn();
    expect((await bind(old.token, oldSerial)).status).toBe(200);
    await saveRecord(api, old);
    await seedEvents(api.db, old.userId, HISTORY);
    const held = await countPartition(old.userId);
    expect(held).toBeGreaterThan(HISTORY);

    const deleted = await api.request('DELETE', '/api/users/me', { token: old.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ code: 0, message: expect.any(String) });
    // The answer did not wait for the purge: most of the history is still there, with its marker.
    expect(await countPartition(old.userId)).toBeGreaterThan(held - HISTORY / 2);
    expect(await exists(keys.pendingPurge(old.userId))).toBe(true);
    // ...yet the account is gone for its token at once, and its e-mail is free.
    expect((await api.request('GET', '/api/users/me', { token: old.token })).status).toBe(401);

    // The same e-mail signs up again during the purge: a new account, a new partition.
    api.clock.advance(61);
    const renewed = await signIn(api, email);
    expect(renewed.userId).not.toBe(old.userId);
    const newSerial = nextSn();
    expect((await bind(renewed.token, newSerial)).status).toBe(200);
    await saveRecord(api, renewed, { recordTitle: 'after the deletion' });
    await postEvent(api, renewed, 'translation_on', 'true');
    const renewedItems = await countPartition(renewed.userId);

    // The job, each run given far less time than the rest needs: every run deletes some, none all,
    // and the next goes on where it stopped. Then a run with the time to finish.
    const job = resumeAccountPurgesJob.withContext(api.context);
    const before = await countPartition(old.userId);
    let deletedByShortRuns = 0;
    for (let run = 0; run < 3; run++) {
      const outcome = await job(undefined, jobInvocation(300));
      expect(outcome.cutShort).toBe(true);
      expect(outcome.deletedItems, 'every run makes progress').toBeGreaterThan(0);
      deletedByShortRuns += outcome.deletedItems;
    }
    expect(await countPartition(old.userId)).toBe(before - deletedByShortRuns);
    const last = await job(undefined, jobInvocation(600_000));
    expect(last).toMatchObject({ purged: 1, cutShort: false, deletedItems: before - deletedByShortRuns });

    // Nothing of the old account remains: its partition, its purge marker, its serial's owner.
    expect(await countPartition(old.userId)).toBe(0);
    expect(await exists(keys.pendingPurge(old.userId))).toBe(false);
    expect(await exists(keys.deviceOwner(oldSerial))).toBe(false);
    // The new account kept every item it wrote, and its e-mail.
    expect(await countPartition(renewed.userId)).toBe(renewedItems);
    expect(await exists(keys.identity('email', email))).toBe(true);
    const me = await api.request('GET', '/api/users/me', { token: renewed.token });
    expect(me.body).toMatchObject({ userId: renewed.userId, email });
    const devices = (await walkList(api, '/api/devices', renewed, 10)).flatMap((page) => page.body);
    expect(devices.map((device: { sn: string }) => device.sn)).toEqual([newSerial]);
    const records = (await walkList(api, '/api/transcriptions', renewed, 10)).flatMap((page) => page.body);
    expect(records.map((record: { recordTitle: string }) => record.recordTitle)).toEqual(['after the deletion']);
    expect((await api.request('GET', '/api/behavior/translation', { token: renewed.token })).body).toHaveLength(1);
    // Seeding and purging 50 000 items against DynamoDB Local on a shared machine: minutes, not seconds.
  }, 300_000);
});

describe('a purge given a budget', () => {
  it('stops before the first step the budget no longer allows: at most one step past it, and the next call goes on', async () => {
    const account = await signIn(api, uniqueEmail('steps'));
    const items = PURGE_STEP_ITEMS * 7 + 13;
    await seedEvents(api.db, account.userId, items);
    const user = (await findUserById(api.db, account.userId))!;
    await endAccount(api.db, user, user, new Date().toISOString());
    const total = await countPartition(account.userId);

    // Time left for three checks, then none: three steps run, the fourth never starts.
    let checks = 0;
    const threeSteps = () => (++checks <= 3 ? 1 : 0);
    const first = await purgeAccountData(api.db, account.userId, threeSteps);
    expect(first).toEqual({ finished: false, deletedItems: 3 * PURGE_STEP_ITEMS });
    expect(await countPartition(account.userId)).toBe(total - 3 * PURGE_STEP_ITEMS);
    expect(await exists(keys.pendingPurge(account.userId))).toBe(true);

    // No time at all: nothing is deleted.
    expect(await purgeAccountData(api.db, account.userId, () => 0)).toEqual({ finished: false, deletedItems: 0 });

    const rest = await purgeAccountData(api.db, account.userId);
    expect(rest).toEqual({ finished: true, deletedItems: total - 3 * PURGE_STEP_ITEMS });
    expect(await countPartition(account.userId)).toBe(0);
    expect(await exists(keys.pendingPurge(account.userId))).toBe(false);
  });
});

describe('the local server runs the scheduled jobs', () => {
  it('finishes a purge left pending, on its own', async () => {
    const scheduled = await startLocalApi({ LOCAL_JOB_INTERVAL_SECONDS: '1' });
    try {
      const account = await signIn(scheduled, uniqueEmail('scheduled'));
      await saveRecord(scheduled, account);
      // The account ended and its purge was left to the job (a budget spent, or a crash).
      const user = (await findUserById(scheduled.db, account.userId))!;
      await endAccount(scheduled.db, user, user, new Date().toISOString());
      const marker = () =>
        scheduled.db.client.send(new GetCommand({ TableName: scheduled.db.tableName, Key: keys.pendingPurge(account.userId), ConsistentRead: true }));
      await expect.poll(async () => (await marker()).Item, { timeout: 30_000, interval: 250 }).toBeUndefined();
      const left = await scheduled.db.client.send(
        new QueryCommand({ TableName: scheduled.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.userPartition(account.userId) } }),
      );
      expect(left.Items).toEqual([]);
    } finally {
      await scheduled.close();
    }
  });
});
