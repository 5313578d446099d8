import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AccountDisabledError, AccountExistsError, CodeInvalidError, UnauthorizedError } from '../errors';
import type { Database } from './client';
import { keys, sessionMarker, sessionMarkersOf, socialMarkersOf } from './keys';
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
  /** IANA name; null is UTC. Dates of usage are counted in it. */
  timeZone: string | null;
  /** Default language of the codes sent to this account's e-mail and phone; null: the request's. */
  locale: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * What the profile item holds beyond the account itself and can be read with it: the account's
 * record change sequence, the number of its last record change (docs/sync.md; absent before the
 * first).
 */
export interface ProfileAttributes extends UserRecord {
  changeSeq: number | null;
}

const USER_FIELDS = ['userId', 'email', 'phone', 'passwordHash', 'tokenVersion', 'timeZone', 'locale', 'createdAt', 'updatedAt'] as const;

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

/**
 * The condition on the profile item under which a token still speaks for its account: the
 * account exists with the token's version (a missing profile has no tokenVersion, so this also
 * fails for a deleted account) and the token's session has not ended.
 */
export function tokenIsCurrentCondition(account: TokenSubject) {
  const session = account.sessionId === undefined ? undefined : sessionMarker(account.sessionId);
  return {
    ConditionExpression: session ? 'tokenVersion = :version AND attribute_exists(#session)' : 'tokenVersion = :version',
    ExpressionAttributeValues: { ':version': account.tokenVersion },
    ...(session ? { ExpressionAttributeNames: { '#session': session } } : {}),
  };
}

/**
 * The part of a profile update that removes sessions' markers (ending their access tokens):
 * ` REMOVE #end0, #end1 ...` (empty for none) and the names it uses.
 */
export function markerRemoval(sessionIds: readonly string[]): { clause: string; names: Record<string, string> } {
  const names = Object.fromEntries(sessionIds.map((sessionId, index) => [`#end${index}`, sessionMarker(sessionId)]));
  return { clause: sessionIds.length > 0 ? ` REMOVE ${Object.keys(names).join(', ')}` : '', names };
}

/** Whether a profile item is still the one a token was issued for, and the token's session lives. */
export const profileHonours = (profile: Record<string, unknown> | undefined, token: TokenSubject): boolean =>
  profile !== undefined &&
  profile.tokenVersion === token.tokenVersion &&
  (token.sessionId === undefined || profile[sessionMarker(token.sessionId)] !== undefined);

/**
 * The profile's `fields`, if the token's account exists with its version and the token's session
 * still lives (undefined otherwise): one read that projects just what it needs, whatever the
 * number of sessions.
 */
export async function readProfileForToken<F extends keyof ProfileAttributes>(
  db: Database,
  token: TokenSubject,
  fields: readonly F[],
): Promise<Pick<ProfileAttributes, F> | undefined> {
  const names: Record<string, string> = { '#version': 'tokenVersion' };
  fields.forEach((field, index) => (names[`#f${index}`] = field));
  if (token.sessionId !== undefined) names['#session'] = sessionMarker(token.sessionId);
  const result = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: keys.user(token.userId),
      ProjectionExpression: Object.keys(names).join(', '),
      ExpressionAttributeNames: names,
      ConsistentRead: true,
    }),
  );
  if (!profileHonours(result.Item, token)) return undefined;
  return Object.fromEntries(fields.map((field) => [field, result.Item![field] ?? null])) as Pick<ProfileAttributes, F>;
}

/** Whether the token's account exists with its version and the token's session still lives. */
export async function isTokenCurrent(db: Database, token: TokenSubject): Promise<boolean> {
  return (await readProfileForToken(db, token, [])) !== undefined;
}

/** The account a token names, if the token is still current (see profileHonours). */
export async function findUserForToken(db: Database, token: TokenSubject): Promise<UserRecord | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(token.userId), ConsistentRead: true }));
  return profileHonours(result.Item, token) ? toUser(result.Item!) : undefined;
}

/**
 * findUserForToken, with the subjects of the account's linked social identities (the profile's
 * `social#<provider>` markers, by provider): what deleting the account must act on at the
 * providers, in the same read.
 */
export async function findUserAndIdentitiesForToken(db: Database, token: TokenSubject): Promise<{ user: UserRecord; socialSubjects: Record<string, string> } | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(token.userId), ConsistentRead: true }));
  return profileHonours(result.Item, token) ? { user: toUser(result.Item!), socialSubjects: socialMarkersOf(result.Item!) } : undefined;
}

/** The account and its linked social identities' subjects by provider, whatever token (Apple's notifications). */
export async function findUserAndIdentities(db: Database, userId: number): Promise<{ user: UserRecord; socialSubjects: Record<string, string> } | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId), ConsistentRead: true }));
  return result.Item ? { user: toUser(result.Item), socialSubjects: socialMarkersOf(result.Item) } : undefined;
}

/** What the profile knows of an account's sessions: which are marked, and its revision. */
export interface SessionBook {
  tokenVersion: number;
  /** Raised by every sign-in: a sign-in that read an older book retries (the 20-session cap). */
  sessionsRev: number;
  /** Sessions with a marker: live, unless opened before a password reset or expired (see their items). */
  markedSessionIds: string[];
  /** Support disabled the account (`disabledAt` on the profile): no sign-in opens or refreshes a session. */
  disabled: boolean;
}

/** The profile attribute support's disable sets (the time, ISO 8601) and enable removes. */
export const DISABLED_ATTRIBUTE = 'disabledAt';

/** Whether a book is still that of the token's account: its version, and its session's marker. */
export const bookHonours = (book: SessionBook | undefined, token: TokenSubject): book is SessionBook =>
  book !== undefined && book.tokenVersion === token.tokenVersion && (token.sessionId === undefined || book.markedSessionIds.includes(token.sessionId));

export async function findSessionBook(db: Database, userId: number): Promise<SessionBook | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId), ConsistentRead: true }));
  if (!result.Item) return undefined;
  return {
    tokenVersion: Number(result.Item.tokenVersion),
    sessionsRev: Number(result.Item.sessionsRev ?? 0),
    markedSessionIds: sessionMarkersOf(result.Item),
    disabled: result.Item[DISABLED_ATTRIBUTE] !== undefined,
  };
}

/** The user that owns an e-mail address or phone number, through its uniqueness marker. */
export async function findUserIdByIdentity(db: Database, kind: IdentityKind, value: string): Promise<number | undefined> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.identity(kind, value), ConsistentRead: true }),
  );
  return result.Item ? Number(result.Item.userId) : undefined;
}

/**
 * What sending a code to an e-mail or phone needs of the account holding it: the language it chose
 * for its codes (null for none, or no account) and whether support disabled it (no code is sent
 * then). Both are copied onto the identity marker, so this is one read, account or not.
 */
export async function findIdentityForCode(db: Database, kind: IdentityKind, value: string): Promise<{ locale: string | null; disabled: boolean; undeliverable: boolean }> {
  const result = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: keys.identity(kind, value),
      ProjectionExpression: '#locale, #disabled, #undeliverable',
      ExpressionAttributeNames: { '#locale': 'locale', '#disabled': DISABLED_ATTRIBUTE, '#undeliverable': UNDELIVERABLE_ATTRIBUTE },
      ConsistentRead: true,
    }),
  );
  return {
    locale: typeof result.Item?.locale === 'string' ? result.Item.locale : null,
    disabled: result.Item?.[DISABLED_ATTRIBUTE] !== undefined,
    undeliverable: result.Item?.[UNDELIVERABLE_ATTRIBUTE] !== undefined,
  };
}

/**
 * The e-mail marker's attribute that Apple's `email-disabled` sets (the time, ISO 8601) and
 * `email-enabled` removes: mail to that private relay address reaches nobody, so no code is sent
 * to it (findIdentityForCode reads it with the rest, one read as before).
 */
export const UNDELIVERABLE_ATTRIBUTE = 'undeliverableAt';

/** Marks an account's e-mail address deliverable or not, only while its marker names that account. */
export async function markEmailDeliverable(db: Database, userId: number, email: string, deliverable: boolean, at: string): Promise<void> {
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.identity('email', email),
        UpdateExpression: deliverable ? 'REMOVE #undeliverable' : 'SET #undeliverable = :at',
        // The address may have left the account (changed, or the account deleted and the address taken anew).
        ConditionExpression: 'userId = :me',
        ExpressionAttributeNames: { '#undeliverable': UNDELIVERABLE_ATTRIBUTE },
        ExpressionAttributeValues: { ':me': userId, ...(deliverable ? {} : { ':at': at }) },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function findUserByIdentity(db: Database, kind: IdentityKind, value: string): Promise<UserRecord | undefined> {
  const userId = await findUserIdByIdentity(db, kind, value);
  return userId === undefined ? undefined : findUserById(db, userId);
}

/**
 * The marker that makes an e-mail or phone unique to one account. It also carries the account's
 * `locale`, so that sending a code reads one item whether or not an account exists.
 */
const identityMarker = (db: Database, kind: IdentityKind, value: string, userId: number, locale: string | null = null): GuardedWrite => ({
  item: {
    Put: {
      TableName: db.tableName,
      Item: { ...keys.identity(kind, value), userId, locale },
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
          // The account may have been deleted since it was looked up: never recreate it here. A
          // disabled one takes no reset (issue 37): told apart by the item as it was, no extra read.
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#disabled)',
          ExpressionAttributeNames: { '#disabled': DISABLED_ATTRIBUTE },
          ExpressionAttributeValues: { ':hash': passwordHash, ':now': updatedAt, ':one': 1 },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      // Answered like a wrong code, as a reset for a target without an account is; a disabled
      // account's owner, who proved the code, learns why (session-service's `refuseDisabled` rule).
      onConditionFailed: (old) =>
        old?.[DISABLED_ATTRIBUTE] !== undefined ? new AccountDisabledError(AccountDisabledError.message) : new CodeInvalidError('The verification code is invalid or has expired.'),
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

/**
 * Sets the person's own settings (time zone, locale) of `user` as read for the token, while the
 * token is current and the e-mail and phone are still the ones read; a new locale is copied to
 * their identity markers in the same transaction. A field left undefined keeps its value.
 */
export async function updateProfileSettings(
  db: Database,
  token: TokenSubject,
  user: UserRecord,
  settings: Partial<Pick<UserRecord, 'timeZone' | 'locale'>>,
  updatedAt: string,
): Promise<void> {
  const condition = tokenIsCurrentCondition(token);
  const names: Record<string, string> = { ...condition.ExpressionAttributeNames };
  const values: Record<string, unknown> = { ...condition.ExpressionAttributeValues, ':updatedAt': updatedAt };
  const assignments = ['updatedAt = :updatedAt'];
  for (const [field, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    assignments.push(`#${field} = :${field}`);
  }
  const markers = (['email', 'phone'] as const).filter((kind) => user[kind] !== null);
  const sameIdentities = markers.map((kind) => {
    names[`#${kind}`] = kind;
    values[`:${kind}`] = user[kind];
    return `#${kind} = :${kind}`;
  });
  const writes: GuardedWrite[] = [
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(token.userId),
          UpdateExpression: `SET ${assignments.join(', ')}`,
          ConditionExpression: [condition.ConditionExpression, ...sameIdentities].join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      onConditionFailed: () => new IdentityChangedError(),
    },
  ];
  if (settings.locale !== undefined) {
    for (const kind of markers) {
      writes.push({
        item: {
          Update: {
            TableName: db.tableName,
            Key: keys.identity(kind, user[kind]!),
            UpdateExpression: 'SET locale = :locale',
            ConditionExpression: 'userId = :me',
            ExpressionAttributeValues: { ':locale': settings.locale, ':me': token.userId },
          },
        },
        onConditionFailed: () => new IdentityChangedError(),
      });
    }
  }
  await writeAtomically(db, writes);
}

/**
 * Moves the account's e-mail or phone to `value`, in one transaction with `alongside` (the code
 * that proves the new one): the new identity marker is claimed (another account holding it, or
 * winning the race for it, makes this ACCOUNT_EXISTS), the old marker is freed for others, and
 * the profile changes, conditioned on the token being current and on the old value being the one
 * read (a concurrent change of the same field makes this a retry, never a lost marker).
 */
export async function changeIdentity(
  db: Database,
  token: TokenSubject,
  kind: IdentityKind,
  from: string | null,
  to: string,
  locale: string | null,
  updatedAt: string,
  alongside: GuardedWrite[],
): Promise<void> {
  const condition = tokenIsCurrentCondition(token);
  // Accounts store a missing e-mail or phone as NULL.
  const previous = from === null ? 'attribute_not_exists(#field) OR attribute_type(#field, :null)' : '#field = :from';
  // The marker first: of two accounts racing for one target with one code, the loser's first
  // failed condition is the claim (ACCOUNT_EXISTS), not the code the winner spent.
  const writes: GuardedWrite[] = [
    identityMarker(db, kind, to, token.userId, locale),
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(token.userId),
          UpdateExpression: 'SET #field = :to, updatedAt = :updatedAt',
          ConditionExpression: `(${condition.ConditionExpression}) AND (${previous})`,
          ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, '#field': kind },
          ExpressionAttributeValues: {
            ...condition.ExpressionAttributeValues,
            ':to': to,
            ':updatedAt': updatedAt,
            ...(from === null ? { ':null': 'NULL' } : { ':from': from }),
          },
        },
      },
      onConditionFailed: () => new IdentityChangedError(),
    },
    ...alongside,
  ];
  if (from !== null) {
    writes.push({
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.identity(kind, from),
          // Never free an identity another account holds.
          ConditionExpression: 'attribute_not_exists(PK) OR userId = :me',
          ExpressionAttributeValues: { ':me': token.userId },
        },
      },
    });
  }
  await writeAtomically(db, writes);
}

/** The profile changed under a change of it: the token ended, or the e-mail or phone changed meanwhile. */
export class IdentityChangedError extends Error {
  override readonly name = 'IdentityChangedError';
}

/**
 * Sets a new password from a signed-in session: the hash changes (conditioned on the one that was
 * checked, so two changes cannot both win), and the `ending` sessions' markers go, which ends
 * their access tokens at once. The caller's token version stays, so the caller stays signed in.
 */
export function replacePasswordInSession(
  db: Database,
  token: TokenSubject,
  oldHash: string | null,
  newHash: string,
  updatedAt: string,
  ending: readonly string[],
  /** Raise the token version too: every token of the account ends, the caller's included. */
  raiseVersion = false,
): GuardedWrite {
  const condition = tokenIsCurrentCondition(token);
  const { clause: remove, names: removed } = markerRemoval(ending);
  const names: Record<string, string> = { ...condition.ExpressionAttributeNames, ...removed };
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.user(token.userId),
        UpdateExpression: `SET passwordHash = :new, updatedAt = :updatedAt${remove}${raiseVersion ? ' ADD tokenVersion :one' : ''}`,
        ConditionExpression: `(${condition.ConditionExpression}) AND (${oldHash === null ? 'attribute_not_exists(passwordHash) OR attribute_type(passwordHash, :null)' : 'passwordHash = :old'})`,
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: {
          ...condition.ExpressionAttributeValues,
          ':new': newHash,
          ':updatedAt': updatedAt,
          ...(raiseVersion ? { ':one': 1 } : {}),
          ...(oldHash === null ? { ':null': 'NULL' } : { ':old': oldHash }),
        },
      },
    },
    onConditionFailed: () => new UnauthorizedError('Unauthorized'),
  };
}
