import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AccountExistsError, CodeInvalidError } from '../errors';
import type { Database } from './client';
import { keys, sessionMarker, sessionMarkersOf } from './keys';
import type { IdentityKind } from './keys';
import { isConditionFailure, writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';

export interface UserRecord {
  userId: number;
  email: string | null;
  phone: string | null;
  passwordHash: string | null;
  /** Part of every token; raising it ends all tokens issued before. */
  tokenVersion: number;
  createdAt: string;
  updatedAt: string;
}

const USER_FIELDS = ['userId', 'email', 'phone', 'passwordHash', 'tokenVersion', 'createdAt', 'updatedAt'] as const;

const toUser = (item: Record<string, unknown>): UserRecord =>
  Object.fromEntries(USER_FIELDS.map((field) => [field, item[field] ?? null])) as unknown as UserRecord;

export async function findUserById(db: Database, userId: number): Promise<UserRecord | undefined> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.user(userId), ConsistentRead: true }),
  );
  return result.Item ? toUser(result.Item) : undefined;
}

/** An account as a token names it: the version it was issued for and, since sessions, its session. */
export interface TokenSubject {
  userId: number;
  tokenVersion: number;
  sessionId?: string;
}

/** Whether a profile item is still the one a token was issued for, and the token's session lives. */
export const profileHonours = (profile: Record<string, unknown> | undefined, token: TokenSubject): boolean =>
  profile !== undefined &&
  profile.tokenVersion === token.tokenVersion &&
  (token.sessionId === undefined || profile[sessionMarker(token.sessionId)] !== undefined);

/**
 * Whether the token's account exists with its version and the token's session still lives: one
 * read that projects just the two attributes, whatever the number of sessions.
 */
export async function isTokenCurrent(db: Database, token: TokenSubject): Promise<boolean> {
  const result = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: keys.user(token.userId),
      ProjectionExpression: token.sessionId === undefined ? 'tokenVersion' : 'tokenVersion, #session',
      ...(token.sessionId === undefined ? {} : { ExpressionAttributeNames: { '#session': sessionMarker(token.sessionId) } }),
      ConsistentRead: true,
    }),
  );
  return profileHonours(result.Item, token);
}

/** The account a token names, if the token is still current (see profileHonours). */
export async function findUserForToken(db: Database, token: TokenSubject): Promise<UserRecord | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(token.userId), ConsistentRead: true }));
  return profileHonours(result.Item, token) ? toUser(result.Item!) : undefined;
}

/** What the profile knows of an account's sessions: which are marked live, and its revision. */
export interface SessionBook {
  tokenVersion: number;
  /** Raised by every sign-in: a sign-in that read an older book retries (the 20-session cap). */
  sessionsRev: number;
  liveSessionIds: string[];
}

export async function findSessionBook(db: Database, userId: number): Promise<SessionBook | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId), ConsistentRead: true }));
  if (!result.Item) return undefined;
  return {
    tokenVersion: Number(result.Item.tokenVersion),
    sessionsRev: Number(result.Item.sessionsRev ?? 0),
    liveSessionIds: sessionMarkersOf(result.Item),
  };
}

/** The user that owns an e-mail address or phone number, through its uniqueness marker. */
export async function findUserIdByIdentity(db: Database, kind: IdentityKind, value: string): Promise<number | undefined> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.identity(kind, value), ConsistentRead: true }),
  );
  return result.Item ? Number(result.Item.userId) : undefined;
}

export async function findUserByIdentity(db: Database, kind: IdentityKind, value: string): Promise<UserRecord | undefined> {
  const userId = await findUserIdByIdentity(db, kind, value);
  return userId === undefined ? undefined : findUserById(db, userId);
}

const identityMarker = (db: Database, kind: IdentityKind, value: string, userId: number): GuardedWrite => ({
  item: {
    Put: {
      TableName: db.tableName,
      Item: { ...keys.identity(kind, value), userId },
      // The marker is what makes an e-mail or phone unique: a second account may not claim it.
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  },
  onConditionFailed: () => new AccountExistsError('An account with this e-mail address or phone number already exists.'),
});

/**
 * Creates the user and claims its e-mail and phone in one transaction, together with `alongside`
 * (the verification code being consumed), so two racing sign-ups make exactly one user and a
 * failed sign-up leaves no trace.
 */
export async function createUser(
  db: Database,
  user: UserRecord,
  alongside: GuardedWrite[] = [],
  /** More attributes of the profile item: the marker of the session the sign-up opens. */
  profileExtras: Record<string, unknown> = {},
): Promise<void> {
  const markers: GuardedWrite[] = [];
  if (user.email) markers.push(identityMarker(db, 'email', user.email, user.userId));
  if (user.phone) markers.push(identityMarker(db, 'phone', user.phone, user.userId));
  await writeAtomically(db, [
    ...alongside,
    ...markers,
    {
      item: {
        Put: {
          TableName: db.tableName,
          Item: { ...keys.user(user.userId), ...user, ...profileExtras },
          // Ids are never reused; this only fails if the allocator were broken.
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    },
  ]);
}

/**
 * Sets a new password and raises the token version (ending every token issued before), in one
 * transaction with `alongside` (the verification code that authorised the change).
 */
export async function replacePassword(
  db: Database,
  userId: number,
  passwordHash: string,
  updatedAt: string,
  alongside: GuardedWrite[],
): Promise<void> {
  await writeAtomically(db, [
    ...alongside,
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(userId),
          UpdateExpression: 'SET passwordHash = :hash, updatedAt = :now ADD tokenVersion :one',
          // The account may have been deleted since it was looked up: never recreate it here.
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':hash': passwordHash, ':now': updatedAt, ':one': 1 },
        },
      },
      // Answered like a wrong code, as a reset for a target without an account is.
      onConditionFailed: () => new CodeInvalidError('The verification code is invalid or has expired.'),
    },
  ]);
}

/**
 * Stores a hash made with stronger parameters after a successful login. Conditioned on the old
 * hash so that a password reset racing with the login is never overwritten.
 */
export async function upgradePasswordHash(db: Database, userId: number, oldHash: string, newHash: string): Promise<void> {
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.user(userId),
        UpdateExpression: 'SET passwordHash = :new',
        ConditionExpression: 'passwordHash = :old',
        ExpressionAttributeValues: { ':new': newHash, ':old': oldHash },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
