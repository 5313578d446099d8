import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError, UnauthorizedError } from '../errors';
import type { Database } from './client';
import { keys, sessionMarker, sortKeyPrefix } from './keys';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './table';
import { isConditionFailure, writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import { findSessionBook, markerRemoval, tokenIsCurrentCondition } from './users-repository';
import type { SessionBook } from './users-repository';
import type { TokenSubject as AccountRef } from './users-repository';

/**
 * A signed-in session (one app on one device). The item holds what its refresh tokens are derived
 * from (seed, generation: shared/identity/refresh-tokens.ts) and what the person sees of it; the
 * profile's marker attribute says that it lives (shared/db/keys.ts).
 */
export interface SessionRecord {
  userId: number;
  sessionId: string;
  clientName: string;
  createdAt: string;
  lastUsedAt: string;
  /** The generation of the one refresh token that may rotate the session now. */
  generation: number;
  /** Epoch seconds at which `generation` became current (the previous token was spent). */
  rotatedAt: number;
  seed: string;
  /** The account's token version at sign-in; a password reset raises the account's, ending this. */
  tokenVersion: number;
  /** Epoch seconds: the session's absolute end (SESSION_MAX_DAYS after sign-in). */
  endsAt: number;
  /** Epoch seconds: the end if it is not refreshed before (SESSION_IDLE_DAYS after its last use). */
  idleEndsAt: number;
}

const SESSION_FIELDS = [
  'userId',
  'sessionId',
  'clientName',
  'createdAt',
  'lastUsedAt',
  'generation',
  'rotatedAt',
  'seed',
  'tokenVersion',
  'endsAt',
  'idleEndsAt',
] as const satisfies readonly (keyof SessionRecord)[];

const toSession = (item: Record<string, unknown>): SessionRecord =>
  Object.fromEntries(SESSION_FIELDS.map((field) => [field, item[field]])) as unknown as SessionRecord;

/**
 * TTL only tidies up: an ended or expired session is refused by its fields and its missing marker,
 * whether or not DynamoDB has deleted the item yet (it may take days).
 */
const expiry = (session: Pick<SessionRecord, 'endsAt' | 'idleEndsAt'>) => Math.min(session.endsAt, session.idleEndsAt);

const sessionItem = (session: SessionRecord) => ({
  ...keys.session(session.userId, session.sessionId),
  ...session,
  [TTL_ATTRIBUTE]: expiry(session),
});

export async function findSession(db: Database, userId: number, sessionId: string): Promise<SessionRecord | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.session(userId, sessionId), ConsistentRead: true }));
  return result.Item ? toSession(result.Item) : undefined;
}

/** Every session item of an account, live or not (the caller filters): 20 live at most, plus a few ended ones. */
export async function listSessionItems(db: Database, userId: number): Promise<SessionRecord[]> {
  const sessions: SessionRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: `${PARTITION_KEY} = :pk AND begins_with(${SORT_KEY}, :prefix)`,
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': sortKeyPrefix.session },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) sessions.push(toSession(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return sessions;
}

/** What there is of an account's sessions: the profile's book (undefined: no account) and every session item. */
export interface AccountSessions {
  book: SessionBook | undefined;
  items: SessionRecord[];
}

/** The book and then the items (two requests, one after the other). */
export async function readAccountSessions(db: Database, userId: number): Promise<AccountSessions> {
  // The book first, then the items, never both at once: a sign-in committing between two parallel
  // reads could show its marker without its item, and a "marker whose item is gone" is ended, so a
  // racing sign-in ended a session just opened (CI: 4 of 5 racing sign-ins live). In this order an
  // item the book does not mark yet is only not live, and the write's sessionsRev condition fails.
  const book = await findSessionBook(db, userId);
  const items = await listSessionItems(db, userId);
  return { book, items };
}

/**
 * Every session id an account still has something of: an item, or a marker whose item TTL has
 * already deleted (ending those too keeps the profile from growing).
 */
export const sessionIdsOf = ({ book, items }: AccountSessions): string[] => [
  ...new Set([...items.map((session) => session.sessionId), ...(book?.markedSessionIds ?? [])]),
];

/** A sign-in that read an older session book: another sign-in got in between, so it reads again. */
export class SessionBookChangedError extends Error {
  override readonly name = 'SessionBookChangedError';
}

/** The new session's item; with `createUser` for the sign-up that opens it. */
export const putNewSession = (db: Database, session: SessionRecord): GuardedWrite => ({
  // Session ids are 128 random bits: a clash would be a broken random source, never a race.
  item: { Put: { TableName: db.tableName, Item: sessionItem(session), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/** The profile attributes of a sign-up's first session: its marker, and the book's first revision. */
export const firstSessionProfile = (session: SessionRecord) => ({ [sessionMarker(session.sessionId)]: session.tokenVersion, sessionsRev: 1 });

/**
 * The writes that open a session for an existing account, for the sign-in's transaction (beside
 * the code it spends): the session item, its marker on the profile, and the end of the sessions
 * in `ending` (beyond the cap, expired, or left over from before a password reset).
 *
 * The profile update is conditioned on the revision of the book the sign-in read (`sessionsRev`,
 * raised by every sign-in): two sign-ins that both saw 19 live sessions cannot both add one
 * without either ending another, so the cap of live sessions is exact under races. It is also
 * conditioned on the token version the session is opened for: a password reset in between makes
 * the sign-in read again rather than open a session the reset has already ended.
 */
export function openSessionWrites(
  db: Database,
  session: SessionRecord,
  bookRevision: number,
  ending: readonly string[],
  /** More attributes the sign-in sets on the profile (a social identity's marker when it links one). */
  profileSet: Record<string, unknown> = {},
): GuardedWrite[] {
  const { clause: remove, names: removed } = markerRemoval(ending);
  const extra = Object.entries(profileSet);
  const names: Record<string, string> = { '#new': sessionMarker(session.sessionId), ...removed, ...Object.fromEntries(extra.map(([name], index) => [`#set${index}`, name])) };
  const sets = extra.map((_, index) => `, #set${index} = :set${index}`).join('');
  const setValues = Object.fromEntries(extra.map(([, value], index) => [`:set${index}`, value]));
  return [
    putNewSession(db, session),
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(session.userId),
          UpdateExpression: `SET #new = :version, sessionsRev = :next${sets}${remove}`,
          ConditionExpression:
            bookRevision === 0 ? 'tokenVersion = :version AND attribute_not_exists(sessionsRev)' : 'tokenVersion = :version AND sessionsRev = :revision',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':version': session.tokenVersion, ':next': bookRevision + 1, ...setValues, ...(bookRevision === 0 ? {} : { ':revision': bookRevision }) },
        },
      },
      onConditionFailed: () => new SessionBookChangedError('The account changed during the sign-in'),
    },
    ...ending.map((sessionId) => ({ item: { Delete: { TableName: db.tableName, Key: keys.session(session.userId, sessionId) } } })),
  ];
}

/**
 * Moves a session from `from` to the next generation: the token of `from` is spent. Conditioned
 * on `from` still being current, so of parallel refreshes with one token exactly one rotates;
 * false for the others (and for a session that ended meanwhile), which then read it again.
 */
export async function rotateSession(
  db: Database,
  session: SessionRecord,
  next: Pick<SessionRecord, 'generation' | 'rotatedAt' | 'lastUsedAt' | 'idleEndsAt'>,
): Promise<boolean> {
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.session(session.userId, session.sessionId),
        UpdateExpression: 'SET generation = :next, rotatedAt = :rotatedAt, lastUsedAt = :lastUsedAt, idleEndsAt = :idleEndsAt, #ttl = :ttl',
        ConditionExpression: 'generation = :current',
        // `ttl` is a reserved word in expressions.
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: {
          ':next': next.generation,
          ':rotatedAt': next.rotatedAt,
          ':lastUsedAt': next.lastUsedAt,
          ':idleEndsAt': next.idleEndsAt,
          ':ttl': expiry({ endsAt: session.endsAt, idleEndsAt: next.idleEndsAt }),
          ':current': session.generation,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Removes sessions' markers from the profile: from then on their access tokens get 401. */
function removeMarkers(db: Database, userId: number, sessionIds: readonly string[], caller: AccountRef | undefined): GuardedWrite {
  const condition = caller ? tokenIsCurrentCondition(caller) : { ConditionExpression: 'attribute_exists(PK)' };
  const { clause, names } = markerRemoval(sessionIds);
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.user(userId),
        UpdateExpression: clause.trimStart(),
        ...condition,
        ExpressionAttributeNames: { ...('ExpressionAttributeNames' in condition ? condition.ExpressionAttributeNames : {}), ...names },
      },
    },
    // Made for a caller, the caller's own token must still be current (a token of an ended
    // session cannot end others); made without one, a missing profile means the account was
    // deleted, which ended every session already.
    onConditionFailed: () => new UnauthorizedError('Unauthorized'),
  };
}

/** A transaction holds at most 100 items: the profile update and 99 session deletions. */
const MAX_ENDED_PER_TRANSACTION = 99;

/**
 * Ends sessions: each item goes and its marker leaves the profile, together, so an ended session
 * can neither be refreshed nor speak through its access tokens. With `caller`, only while the
 * caller's own token is current.
 */
export async function endSessions(db: Database, userId: number, sessionIds: readonly string[], caller?: AccountRef): Promise<void> {
  for (let start = 0; start < sessionIds.length; start += MAX_ENDED_PER_TRANSACTION) {
    const chunk = sessionIds.slice(start, start + MAX_ENDED_PER_TRANSACTION);
    await writeAtomically(db, [
      removeMarkers(db, userId, chunk, caller),
      ...chunk.map((sessionId) => ({ item: { Delete: { TableName: db.tableName, Key: keys.session(userId, sessionId) } } })),
    ]);
  }
}

/**
 * Ends a session after its refresh token was replayed (or it expired): no caller to check, and
 * an account deleted in the meantime has nothing left to end.
 */
export async function endSessionQuietly(db: Database, userId: number, sessionId: string): Promise<void> {
  try {
    await endSessions(db, userId, [sessionId]);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.session(userId, sessionId) }));
  }
}

/**
 * Ends one session the caller named. It must be a live session of the caller's account, as the
 * caller would have seen it listed: opened at the account's current token version and not expired.
 */
export async function endListedSession(db: Database, caller: AccountRef, sessionId: string, now: number): Promise<void> {
  await writeAtomically(db, [
    removeMarkers(db, caller.userId, [sessionId], caller),
    {
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.session(caller.userId, sessionId),
          ConditionExpression: 'tokenVersion = :version AND endsAt > :now AND idleEndsAt > :now',
          ExpressionAttributeValues: { ':version': caller.tokenVersion, ':now': now },
        },
      },
      onConditionFailed: () => new NotFoundError('No such session.'),
    },
  ]);
}
