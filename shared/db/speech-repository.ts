import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AccountDisabledError, NotFoundError, UnauthorizedError } from '../errors';
import type { Database } from './client';
import { keys, sessionMarker, sortKeyPrefix, speechKeys } from './keys';
import { isConditionFailure, writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import { USER_WRITE_RETRY } from './account-guard';
import type { AccountRef } from './account-guard';
import { DISABLED_ATTRIBUTE } from './users-repository';

/**
 * Speech sessions (issue 44, docs/speech.md), in the account's partition:
 *
 * - the session item (`SPEECH#SESSION#<sessionId>`): what was started, what it has been charged,
 *   when it was last renewed and when it expires unrenewed, the credential the app holds now (a
 *   short-lived one, never a provider's key), and once ended why and when;
 * - the app's id (`SPEECH#CLIENT#<clientSessionId>`) naming the session it started, with the
 *   start's body, so that a repeated start answers the same session;
 * - the state item (`SPEECH#STATE`): the live sessions (id -> the moment each expires unrenewed),
 *   a revision every change of that set raises, and the limits support set for the account;
 * - the day and month items (`SPEECH#DAY#<date>`, `SPEECH#MONTH#<yyyy-mm>`): seconds charged to
 *   sessions started in the person's day and month (their time zone, as usage statistics are).
 *
 * Every charge changes the session, its day and its month in one transaction, with the account
 * check; account deletion purges the partition, these with it.
 */

export interface SpeechConnect {
  url: string;
  headers?: Record<string, string>;
  region?: string;
}

/** The short-lived credential the app holds (what the provider issued, or the URL signed here). */
export interface StoredCredential {
  kind: 'token' | 'url';
  value: string;
  expiresAtMs: number;
  renewAfterMs: number;
  connect: SpeechConnect;
}

export type SpeechEndReason = 'ended' | 'quota' | 'expired';

export interface SpeechSessionRecord {
  sessionId: string;
  clientSessionId: string;
  provider: string;
  language: string;
  sampleRate: number;
  startedAtMs: number;
  /** The person's local date and month of the start: the counters it is charged to. */
  day: string;
  month: string;
  chargedSeconds: number;
  lastRenewedAtMs: number;
  /** Unrenewed past this (two heartbeats after the last renewal), the session is expired. */
  deadlineMs: number;
  status: 'live' | 'ended';
  endedAtMs: number | null;
  endReason: SpeechEndReason | null;
  clientRecordId: string | null;
  credential: StoredCredential | null;
}

export interface SpeechState {
  /** Live sessions: id -> deadline (ms). Entries past their deadline are expired ones not yet pruned. */
  live: Record<string, number>;
  /** Raised by every change of `live`; a start is conditioned on it. 0 before the first. */
  rev: number;
  /** Support's own limits for the account (null: the deployment's). */
  dailySeconds: number | null;
  monthlySeconds: number | null;
}

/** What a speech operation needs of the profile, read once: the time zone, and whether the token still speaks for the account. */
export interface SpeechProfile {
  timeZone: string | null;
  current: boolean;
  disabled: boolean;
}

/** Raised when a concurrent change moved the session or the live set: the operation reads again and recomputes. */
export class SpeechRace extends Error {
  constructor(readonly what: 'session' | 'state' | 'day' | 'month' | 'client') {
    super(`speech ${what} changed concurrently`);
  }
}

const num = (value: unknown): number | null => (typeof value === 'number' ? value : value === undefined || value === null ? null : Number(value));

export async function readSpeechProfile(db: Database, account: AccountRef): Promise<SpeechProfile> {
  const names: Record<string, string> = { '#version': 'tokenVersion', '#zone': 'timeZone', '#disabled': DISABLED_ATTRIBUTE };
  if (account.sessionId !== undefined) names['#session'] = sessionMarker(account.sessionId);
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.user(account.userId), ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names, ConsistentRead: true }),
  );
  const item = result.Item;
  if (!item) return { timeZone: null, current: false, disabled: false };
  const current = item.tokenVersion === account.tokenVersion && (account.sessionId === undefined || item[sessionMarker(account.sessionId)] !== undefined);
  return { timeZone: typeof item.timeZone === 'string' ? item.timeZone : null, current, disabled: item[DISABLED_ATTRIBUTE] !== undefined };
}

/** The account check of every speech write: the token still current, and support has not disabled the account. */
function speechAccountCheck(db: Database, account: AccountRef): GuardedWrite {
  const session = account.sessionId === undefined ? undefined : sessionMarker(account.sessionId);
  return {
    item: {
      ConditionCheck: {
        TableName: db.tableName,
        Key: keys.user(account.userId),
        ConditionExpression: `tokenVersion = :version${session ? ' AND attribute_exists(#session)' : ''} AND attribute_not_exists(#disabled)`,
        ExpressionAttributeNames: { '#disabled': DISABLED_ATTRIBUTE, ...(session ? { '#session': session } : {}) },
        ExpressionAttributeValues: { ':version': account.tokenVersion },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    // Disabled while the token was still cached as allowed: the account's own answer, at once.
    onConditionFailed: (old) => (old?.[DISABLED_ATTRIBUTE] !== undefined ? new AccountDisabledError(AccountDisabledError.message) : new UnauthorizedError('Unauthorized')),
  };
}

export async function readSpeechState(db: Database, userId: number): Promise<SpeechState> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: speechKeys.speechState(userId), ConsistentRead: true }));
  const item = result.Item ?? {};
  const live = (item.live ?? {}) as Record<string, unknown>;
  return {
    live: Object.fromEntries(Object.entries(live).map(([id, deadline]) => [id, Number(deadline)])),
    rev: Number(item.rev ?? 0),
    dailySeconds: num(item.dailySeconds),
    monthlySeconds: num(item.monthlySeconds),
  };
}

const toSession = (item: Record<string, unknown>): SpeechSessionRecord => ({
  sessionId: String(item.sessionId),
  clientSessionId: String(item.clientSessionId),
  provider: String(item.provider),
  language: String(item.language),
  sampleRate: Number(item.sampleRate),
  startedAtMs: Number(item.startedAtMs),
  day: String(item.day),
  month: String(item.month),
  chargedSeconds: Number(item.chargedSeconds ?? 0),
  lastRenewedAtMs: Number(item.lastRenewedAtMs),
  deadlineMs: Number(item.deadlineMs),
  status: item.status === 'ended' ? 'ended' : 'live',
  endedAtMs: num(item.endedAtMs),
  endReason: (item.endReason as SpeechEndReason | undefined) ?? null,
  clientRecordId: typeof item.clientRecordId === 'string' ? item.clientRecordId : null,
  credential: (item.credential as StoredCredential | undefined) ?? null,
});

export async function findSpeechSession(db: Database, userId: number, sessionId: string): Promise<SpeechSessionRecord | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: speechKeys.speechSession(userId, sessionId), ConsistentRead: true }));
  return result.Item ? toSession(result.Item) : undefined;
}

/** The session an app's `clientSessionId` started, and the body it was started with. */
export async function findClientSession(db: Database, userId: number, clientSessionId: string): Promise<{ sessionId: string; fingerprint: string } | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: speechKeys.speechClientSession(userId, clientSessionId), ConsistentRead: true }));
  return result.Item ? { sessionId: String(result.Item.sessionId), fingerprint: String(result.Item.fingerprint) } : undefined;
}

/** Seconds charged in a day and a month of the person's calendar. */
export async function readSpeechUsage(db: Database, userId: number, day: string, month: string): Promise<{ daySeconds: number; monthSeconds: number }> {
  const read = (key: ReturnType<typeof speechKeys.speechDay>) => db.client.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }));
  const [dayItem, monthItem] = await Promise.all([read(speechKeys.speechDay(userId, day)), read(speechKeys.speechMonth(userId, month))]);
  return { daySeconds: Number(dayItem.Item?.usedSeconds ?? 0), monthSeconds: Number(monthItem.Item?.usedSeconds ?? 0) };
}

/**
 * The day items from the UTC day before to the UTC day after, and the month items of those days'
 * months: whatever the person's time zone, their today and this month are among them. Two Queries
 * that need no time zone, so they run beside the profile's read (the summary).
 */
export async function readSpeechUsageAround(db: Database, userId: number, fromDay: string, toDay: string): Promise<{ days: Record<string, number>; months: Record<string, number> }> {
  const range = async (from: string, to: string) => {
    const page = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':from': from, ':to': to },
        ConsistentRead: true,
      }),
    );
    return Object.fromEntries((page.Items ?? []).map((item) => [String(item.SK).replace(/^SPEECH#(DAY|MONTH)#/, ''), Number(item.usedSeconds ?? 0)]));
  };
  const [days, months] = await Promise.all([
    range(speechKeys.speechDay(userId, fromDay).SK, speechKeys.speechDay(userId, toDay).SK),
    range(speechKeys.speechMonth(userId, fromDay.slice(0, 7)).SK, speechKeys.speechMonth(userId, toDay.slice(0, 7)).SK),
  ]);
  return { days, months };
}

/** Every speech session of the account, newest first (the export; a person's sessions are a few a day). */
export async function listSpeechSessions(db: Database, userId: number): Promise<SpeechSessionRecord[]> {
  const sessions: SpeechSessionRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': sortKeyPrefix.speechSession },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    sessions.push(...(page.Items ?? []).map(toSession));
    start = page.LastEvaluatedKey;
  } while (start);
  return sessions.sort((a, b) => b.startedAtMs - a.startedAtMs);
}

/**
 * A new session, live: its item, the app's id pointing at it, and the live set as the start
 * computed it (expired entries pruned, this one added). The live set is written whole, conditioned
 * on the revision the start read: two starts at once cannot both take the last free place (one
 * reads again and finds it taken).
 */
export async function putNewSpeechSession(db: Database, account: AccountRef, session: SpeechSessionRecord, fingerprint: string, state: SpeechState): Promise<void> {
  const live = { ...Object.fromEntries(Object.entries(state.live).filter(([, deadline]) => deadline >= session.startedAtMs)), [session.sessionId]: session.deadlineMs };
  await writeAtomically(
    db,
    [
      {
        item: { Put: { TableName: db.tableName, Item: { ...speechKeys.speechSession(account.userId, session.sessionId), ...session }, ConditionExpression: 'attribute_not_exists(PK)' } },
        onConditionFailed: () => new SpeechRace('session'),
      },
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: { ...speechKeys.speechClientSession(account.userId, session.clientSessionId), sessionId: session.sessionId, fingerprint },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        // Another start with this id won: it is answered as a repeat (or 409) once read again.
        onConditionFailed: () => new SpeechRace('client'),
      },
      {
        item: {
          Update: {
            TableName: db.tableName,
            Key: speechKeys.speechState(account.userId),
            UpdateExpression: 'SET live = :live, rev = :next',
            ConditionExpression: state.rev === 0 ? 'attribute_not_exists(rev)' : 'rev = :rev',
            ExpressionAttributeValues: { ':live': live, ':next': state.rev + 1, ...(state.rev === 0 ? {} : { ':rev': state.rev }) },
          },
        },
        onConditionFailed: () => new SpeechRace('state'),
      },
      speechAccountCheck(db, account),
    ],
    USER_WRITE_RETRY,
  );
}

export interface SpeechCharge {
  /** The session as read: the charge is conditioned on nobody having charged it since. */
  session: SpeechSessionRecord;
  chargedSeconds: number;
  nowMs: number;
  /** The new deadline of a session that stays live. */
  deadlineMs: number;
  /** The account's limits: the day and month items may not pass them. */
  dailyLimit: number;
  monthlyLimit: number;
  credential?: StoredCredential;
  /** Ends the session with the charge. */
  end?: { reason: SpeechEndReason; clientRecordId: string | null };
}

/**
 * Charges a session up to `chargedSeconds` (the difference to what it was charged) to its day and
 * month, in one transaction with the session itself, its entry in the live set and the account
 * check. The day and month items take the difference only while they stay within their limits
 * (`usedSeconds <= limit - difference`): two sessions of one person renewing at once cannot both
 * spend the last seconds; the one refused reads again and is charged what is left. The session's
 * own update is conditioned on the charge it was read with and on being live and unexpired, so two
 * renewals of one session charge each second once.
 */
export async function chargeSpeechSession(db: Database, account: AccountRef, charge: SpeechCharge): Promise<void> {
  const { session } = charge;
  const delta = charge.chargedSeconds - session.chargedSeconds;
  if (delta < 0) throw new Error('A charge never goes down');
  const values: Record<string, unknown> = {
    ':charged': charge.chargedSeconds,
    ':old': session.chargedSeconds,
    ':now': charge.nowMs,
    ':live': 'live',
  };
  const sets = ['chargedSeconds = :charged', 'lastRenewedAtMs = :now'];
  if (charge.end) {
    sets.push('#status = :ended', 'endedAtMs = :now', 'endReason = :reason', 'clientRecordId = :record', 'deadlineMs = :now');
    Object.assign(values, { ':ended': 'ended', ':reason': charge.end.reason, ':record': charge.end.clientRecordId });
  } else {
    sets.push('deadlineMs = :deadline');
    values[':deadline'] = charge.deadlineMs;
  }
  if (charge.credential) {
    sets.push('credential = :credential');
    values[':credential'] = charge.credential;
  }
  const counter = (key: ReturnType<typeof speechKeys.speechDay>, limit: number, what: 'day' | 'month'): GuardedWrite => ({
    item: {
      Update: {
        TableName: db.tableName,
        Key: key,
        UpdateExpression: 'ADD usedSeconds :delta',
        ConditionExpression: 'attribute_not_exists(usedSeconds) OR usedSeconds <= :room',
        ExpressionAttributeValues: { ':delta': delta, ':room': limit - delta },
      },
    },
    onConditionFailed: () => new SpeechRace(what),
  });
  const writes: GuardedWrite[] = [
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: speechKeys.speechSession(account.userId, session.sessionId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#status = :live AND chargedSeconds = :old AND deadlineMs >= :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        },
      },
      onConditionFailed: () => new SpeechRace('session'),
    },
    ...(delta > 0
      ? [counter(speechKeys.speechDay(account.userId, session.day), charge.dailyLimit, 'day'), counter(speechKeys.speechMonth(account.userId, session.month), charge.monthlyLimit, 'month')]
      : []),
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: speechKeys.speechState(account.userId),
          UpdateExpression: charge.end ? 'REMOVE live.#id ADD rev :one' : 'SET live.#id = :deadline ADD rev :one',
          ConditionExpression: 'attribute_exists(live.#id)',
          ExpressionAttributeNames: { '#id': session.sessionId },
          ExpressionAttributeValues: { ':one': 1, ...(charge.end ? {} : { ':deadline': charge.deadlineMs }) },
        },
      },
      // A start pruned it as expired in the meantime.
      onConditionFailed: () => new SpeechRace('session'),
    },
    speechAccountCheck(db, account),
  ];
  await writeAtomically(db, writes, USER_WRITE_RETRY);
}

/**
 * Records that a live session passed its deadline unrenewed: ended as `expired`, charged what its
 * last renewal charged (nothing more is added), and out of the live set if a start has not pruned
 * it already. Conditioned on it still being live and past its deadline (a renewal that got in
 * first wins).
 */
export async function expireSpeechSession(db: Database, userId: number, session: SpeechSessionRecord, nowMs: number): Promise<boolean> {
  try {
    await writeAtomically(
      db,
      [
        {
          item: {
            Update: {
              TableName: db.tableName,
              Key: speechKeys.speechSession(userId, session.sessionId),
              UpdateExpression: 'SET #status = :ended, endedAtMs = deadlineMs, endReason = :expired',
              ConditionExpression: '#status = :live AND deadlineMs < :now',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':ended': 'ended', ':expired': 'expired', ':live': 'live', ':now': nowMs },
            },
          },
          onConditionFailed: () => new SpeechRace('session'),
        },
        {
          item: {
            Update: {
              TableName: db.tableName,
              Key: speechKeys.speechState(userId),
              UpdateExpression: 'REMOVE live.#id ADD rev :one',
              ConditionExpression: 'attribute_exists(live)',
              ExpressionAttributeNames: { '#id': session.sessionId },
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
          onConditionFailed: () => new SpeechRace('state'),
        },
      ],
      USER_WRITE_RETRY,
    );
    return true;
  } catch (error) {
    if (error instanceof SpeechRace) return false;
    throw error;
  }
}

/**
 * Support's own limits for an account, kept on the state item, where the next start, renewal and
 * quota read them. Conditioned on the profile existing, in one transaction: a deleted account (or
 * one deleted meanwhile, whose partition is being purged) gets no state item back (404).
 */
export async function setSpeechLimits(db: Database, userId: number, dailySeconds: number, monthlySeconds: number): Promise<void> {
  await writeAtomically(
    db,
    [
      {
        item: { ConditionCheck: { TableName: db.tableName, Key: keys.user(userId), ConditionExpression: 'attribute_exists(PK)' } },
        onConditionFailed: () => new NotFoundError('No account with this user id.'),
      },
      {
        item: {
          Update: {
            TableName: db.tableName,
            Key: speechKeys.speechState(userId),
            UpdateExpression: 'SET dailySeconds = :daily, monthlySeconds = :monthly',
            ExpressionAttributeValues: { ':daily': dailySeconds, ':monthly': monthlySeconds },
          },
        },
      },
    ],
    USER_WRITE_RETRY,
  );
}

/** A new credential for a live session (a repeated start found the one it holds about to expire). */
export async function replaceSpeechCredential(db: Database, userId: number, sessionId: string, credential: StoredCredential): Promise<void> {
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: speechKeys.speechSession(userId, sessionId),
        UpdateExpression: 'SET credential = :credential',
        ConditionExpression: '#status = :live',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':credential': credential, ':live': 'live' },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new SpeechRace('session');
    throw error;
  }
}
