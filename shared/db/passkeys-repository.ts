import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LastSignInMethodError, NotFoundError, PasskeyInvalidError, PasskeyLimitReachedError } from '../errors';
import { accountIsCurrent, USER_WRITE_RETRY } from './account-guard';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import { profileWayInCondition } from './social-identities-repository';
import { profileHonours } from './users-repository';
import { TTL_ATTRIBUTE } from './table';
import { writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';

/** At most this many passkeys per account (issue 30). */
export const MAX_PASSKEYS = 10;

/** A passkey as stored: what verifies its assertions, and what its owner sees of it. */
export interface PasskeyRecord {
  passkeyId: string;
  userId: number;
  /** The credential id, base64url, as the authenticator reports it. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter of the last assertion (0 for authenticators that do not count). */
  counter: number;
  transports: string[];
  backedUp: boolean;
  /** The WebAuthn user handle the passkey was made with, base64url. */
  userHandle: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const toPasskey = (item: Record<string, unknown>): PasskeyRecord => ({
  passkeyId: String(item.passkeyId),
  userId: Number(item.userId),
  credentialId: String(item.credentialId),
  publicKey: String(item.publicKey),
  counter: Number(item.counter),
  transports: Array.isArray(item.transports) ? item.transports.map(String) : [],
  backedUp: item.backedUp === true,
  userHandle: String(item.userHandle),
  name: String(item.name),
  createdAt: String(item.createdAt),
  lastUsedAt: typeof item.lastUsedAt === 'string' ? item.lastUsedAt : null,
});

/** The account's passkeys, oldest first (sort keys are hashes: the caller orders them). */
export async function listPasskeys(db: Database, userId: number): Promise<PasskeyRecord[]> {
  const result = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': sortKeyPrefix.passkey },
      ConsistentRead: true,
    }),
  );
  // At most MAX_PASSKEYS small items: one page.
  return (result.Items ?? []).map(toPasskey).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.passkeyId.localeCompare(b.passkeyId));
}

export async function findPasskey(db: Database, userId: number, passkeyId: string): Promise<PasskeyRecord | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.passkey(userId, passkeyId), ConsistentRead: true }));
  return result.Item ? toPasskey(result.Item) : undefined;
}

/** The account a credential belongs to, by its owner item outside the account's partition. */
export async function findPasskeyOwner(db: Database, passkeyId: string): Promise<number | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.passkeyOwner(passkeyId), ConsistentRead: true }));
  return result.Item ? Number(result.Item.userId) : undefined;
}

/**
 * The write that spends a ceremony's challenge: the first to write its item wins, every later use
 * of the same challenge (a replayed assertion or attestation) fails the condition. The item only
 * has to outlive the challenge, which is refused as expired afterwards anyway.
 */
export function spendChallenge(db: Database, nonce: string, expiresAt: number): GuardedWrite {
  return {
    item: {
      Put: {
        TableName: db.tableName,
        Item: { ...keys.spentChallenge(nonce), [TTL_ATTRIBUTE]: expiresAt },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    onConditionFailed: () => PasskeyInvalidError.because('challenge already used'),
  };
}

/**
 * Stores a new passkey, with its owner item and the account's count, in one transaction with the
 * account check and the spending of the registration challenge.
 */
export async function storePasskey(db: Database, account: AccountRef, passkey: PasskeyRecord, spend: GuardedWrite): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: {
          Update: {
            TableName: db.tableName,
            Key: keys.passkeyCount(account.userId),
            UpdateExpression: 'ADD passkeys :one',
            // The count, not a query of the passkeys, is what two racing registrations both touch:
            // one of them sees the other's increment.
            ConditionExpression: 'attribute_not_exists(passkeys) OR passkeys < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_PASSKEYS },
          },
        },
        onConditionFailed: () => PasskeyLimitReachedError.of(MAX_PASSKEYS),
      },
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: { ...keys.passkeyOwner(passkey.passkeyId), userId: account.userId },
            // A credential belongs to one account, ever: the same one offered again is refused.
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        onConditionFailed: () => PasskeyInvalidError.because('credential already registered'),
      },
      {
        item: { Put: { TableName: db.tableName, Item: { ...keys.passkey(account.userId, passkey.passkeyId), ...passkey } } },
      },
      spend,
    ],
    USER_WRITE_RETRY,
  );
}

/** Renames one of the account's passkeys; 404 when it is not (or no longer) the account's. */
export async function renamePasskey(db: Database, account: AccountRef, passkeyId: string, name: string): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: {
          Update: {
            TableName: db.tableName,
            Key: keys.passkey(account.userId, passkeyId),
            UpdateExpression: 'SET #name = :name',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#name': 'name' },
            ExpressionAttributeValues: { ':name': name },
          },
        },
        onConditionFailed: () => new NotFoundError('No such passkey.'),
      },
    ],
    USER_WRITE_RETRY,
  );
}

/** Removes one of the account's passkeys with its owner item: from then on it signs no one in. */
/**
 * What keeps the account a way in once the passkey is gone (issue 38: an account may have
 * nothing but passkeys after unlinking its last provider): `profile` when the profile has an
 * e-mail, a phone or a linked provider, which the removal then requires to still be there;
 * `passkeys` when it has none, and then another passkey must remain (LAST_SIGN_IN_METHOD).
 * Either is a condition of the removal's own transaction, so an unlink at the same moment cannot
 * take the last other way in.
 */
export type RemainingWayIn = 'profile' | 'passkeys';

export async function removePasskey(db: Database, account: AccountRef, passkeyId: string, remains: RemainingWayIn = 'profile'): Promise<void> {
  const check = accountIsCurrent(db, account);
  const lastWay = () => new LastSignInMethodError('This passkey is the account’s only way to sign in: add an e-mail, a phone or a provider first.');
  const current = check.item.ConditionCheck!;
  const way = profileWayInCondition();
  const profileWay: GuardedWrite =
    remains === 'profile'
      ? {
          item: {
            ConditionCheck: {
              ...current,
              ConditionExpression: `(${current.ConditionExpression}) AND ${way.expression}`,
              ExpressionAttributeNames: { ...current.ExpressionAttributeNames, ...way.names },
              ExpressionAttributeValues: { ...current.ExpressionAttributeValues, ...way.values },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          // The token no longer current: 401 as ever; otherwise the profile's way went meanwhile.
          onConditionFailed: (old) => (profileHonours(old, account) ? lastWay() : check.onConditionFailed!(old)),
        }
      : check;
  await writeAtomically(
    db,
    [
      profileWay,
      {
        item: { Delete: { TableName: db.tableName, Key: keys.passkey(account.userId, passkeyId), ConditionExpression: 'attribute_exists(PK)' } },
        onConditionFailed: () => new NotFoundError('No such passkey.'),
      },
      {
        item: {
          Delete: {
            TableName: db.tableName,
            Key: keys.passkeyOwner(passkeyId),
            // Never free a credential another account holds (ids are hashes: only in theory).
            ConditionExpression: 'attribute_not_exists(PK) OR userId = :me',
            ExpressionAttributeValues: { ':me': account.userId },
          },
        },
      },
      {
        item: {
          Update: {
            TableName: db.tableName,
            Key: keys.passkeyCount(account.userId),
            UpdateExpression: 'ADD passkeys :minusOne',
            ExpressionAttributeValues: { ':minusOne': -1, ...(remains === 'passkeys' ? { ':one': 1 } : {}) },
            ...(remains === 'passkeys' ? { ConditionExpression: 'passkeys > :one' } : {}),
          },
        },
        onConditionFailed: lastWay,
      },
    ],
    USER_WRITE_RETRY,
  );
}

/**
 * The write that records an assertion on the passkey, for the sign-in's transaction: its new
 * counter, backup state and last use. Conditioned on the passkey still being there with the
 * counter the assertion was checked against, so a passkey removed meanwhile signs no one in and
 * two assertions cannot both move the counter from the same value.
 */
export function recordPasskeyUse(
  db: Database,
  passkey: PasskeyRecord,
  use: { counter: number; backedUp: boolean; usedAt: string },
): GuardedWrite {
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.passkey(passkey.userId, passkey.passkeyId),
        UpdateExpression: 'SET #counter = :counter, backedUp = :backedUp, lastUsedAt = :usedAt',
        ConditionExpression: 'attribute_exists(PK) AND #counter = :checked',
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':counter': use.counter, ':backedUp': use.backedUp, ':usedAt': use.usedAt, ':checked': passkey.counter },
      },
    },
    onConditionFailed: () => PasskeyInvalidError.because('passkey removed or used concurrently'),
  };
}

/** How many passkeys the account holds, by its count item (0 when it never had one). */
export async function countPasskeys(db: Database, userId: number): Promise<number> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.passkeyCount(userId), ConsistentRead: true }));
  return Number(result.Item?.passkeys ?? 0);
}

/**
 * For a write that relies on the account keeping a passkey (unlinking its last other way in,
 * shared/identity/social/identity-links.ts): fails with `onGone` when none is left by then.
 */
export const passkeyRemains = (db: Database, userId: number, onGone: () => Error): GuardedWrite => ({
  item: {
    ConditionCheck: {
      TableName: db.tableName,
      Key: keys.passkeyCount(userId),
      ConditionExpression: 'passkeys > :zero',
      ExpressionAttributeValues: { ':zero': 0 },
    },
  },
  onConditionFailed: onGone,
});
