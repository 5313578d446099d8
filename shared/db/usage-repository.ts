import { GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';
import { SORT_KEY } from './table';
import type { GuardedWrite } from './transactions';

export interface DailyUsage {
  date: string;
  usage: number;
}

export interface Usage {
  totalUsage: number;
  /** Newest first; only days with usage above zero. */
  dailyUsage: DailyUsage[];
}

/**
 * Usage is kept as aggregates beside the records, changed in the same transaction as the record
 * they follow: the lifetime total and one item per calendar day (the record's `usageDate`: the
 * day of its start in the account's time zone). ADD makes concurrent changes add up instead of
 * overwriting each other; being inside the record's transaction, a change cannot happen without
 * its record or the other way round. An edit or delete changes the day the record was counted on,
 * not the day of the edit.
 */
export function usageChange(db: Database, userId: number, date: string, deltaSeconds: number): GuardedWrite[] {
  return usageMove(db, userId, { date, seconds: 0 }, { date, seconds: deltaSeconds });
}

/**
 * A record's usage moving from one day and duration to another (an edit of its duration or of its
 * start): the total changes by the difference, each day by what it loses or gains.
 */
export function usageMove(db: Database, userId: number, from: DailyUsageEntry, to: DailyUsageEntry): GuardedWrite[] {
  const add = (key: ReturnType<typeof keys.usageTotal>, delta: number): GuardedWrite[] =>
    delta === 0
      ? []
      : [{ item: { Update: { TableName: db.tableName, Key: key, UpdateExpression: 'ADD usageSeconds :delta', ExpressionAttributeValues: { ':delta': delta } } } }];
  const days =
    from.date === to.date
      ? add(keys.usageDay(userId, to.date), to.seconds - from.seconds)
      : [...add(keys.usageDay(userId, from.date), -from.seconds), ...add(keys.usageDay(userId, to.date), to.seconds)];
  return [...add(keys.usageTotal(userId), to.seconds - from.seconds), ...days];
}

interface DailyUsageEntry {
  date: string;
  seconds: number;
}

/**
 * The total and the days from `fromDate` to `toDate` in one strongly consistent Query: the day
 * items sort just before the total (`USAGE#DAY#...` < `USAGE#TOTAL`), so one key range holds both.
 * Its cost depends on the number of days asked for (at most 366), never on the number of records.
 */
export async function readUsage(db: Database, userId: number, fromDate: string, toDate: string): Promise<Usage> {
  const items: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client: db.client },
    {
      TableName: db.tableName,
      KeyConditionExpression: 'PK = :pk AND #sk BETWEEN :from AND :total',
      ExpressionAttributeNames: { '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': keys.userPartition(userId),
        ':from': keys.usageDay(userId, fromDate).SK,
        ':total': keys.usageTotal(userId).SK,
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));

  const totalKey = keys.usageTotal(userId).SK;
  const dayKey = (date: string) => keys.usageDay(userId, date).SK;
  let totalUsage = 0;
  const dailyUsage: DailyUsage[] = [];
  for (const item of items) {
    const sk = String(item[SORT_KEY]);
    const seconds = Number(item.usageSeconds ?? 0);
    if (sk === totalKey) totalUsage = seconds;
    // A day whose records were all deleted (or last 0 s) keeps an item at zero: not a day of use.
    else if (sk <= dayKey(toDate) && seconds > 0) dailyUsage.push({ date: sk.slice(dayKey('').length), usage: seconds });
  }
  return { totalUsage, dailyUsage };
}

/** The lifetime total in seconds (0 before any record): one read. */
export async function readUsageTotal(db: Database, userId: number): Promise<number> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.usageTotal(userId), ConsistentRead: true }));
  return Number(result.Item?.usageSeconds ?? 0);
}
