import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SocialCredentialInvalidError, UnauthorizedError } from '../errors';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys, socialMarker, sortKeyPrefix } from './keys';
import { TTL_ATTRIBUTE } from './table';
import type { GuardedWrite } from './transactions';
import { tokenIsCurrentCondition } from './users-repository';

/**
 * Identities of Apple, Google and WeChat linked to accounts (docs/social-sign-in.md). An identity
 * (provider + subject) belongs to at most one account: its owner item outside the partition is
 * claimed with a conditional put in the transaction that creates or links, so two parallel first
 * sign-ins make one account. The profile's `social#<provider>` marker holds one identity per
 * provider per account.
 */
export type SocialProvider = 'apple' | 'google' | 'wechat';

export interface SocialIdentityRecord {
  userId: number;
  provider: SocialProvider;
  subject: string;
  /** The client id (Apple, Google) or app id (WeChat) it was last used with. */
  clientId: string;
  email: string | null;
  /** False after Apple's `email-disabled`: no codes go to that relay address. */
  emailDeliverable: boolean;
  givenName: string | null;
  familyName: string | null;
  linkedAt: string;
  lastUsedAt: string;
  /** Apple's refresh token, sealed (shared/identity/social/apple-client.ts); with the client id it belongs to. */
  appleRefreshToken: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const toIdentity = (item: Record<string, unknown>): SocialIdentityRecord => ({
  userId: Number(item.userId),
  provider: item.provider as SocialProvider,
  subject: String(item.subject),
  clientId: String(item.clientId),
  email: text(item.email),
  emailDeliverable: item.emailDeliverable !== false,
  givenName: text(item.givenName),
  familyName: text(item.familyName),
  linkedAt: String(item.linkedAt),
  lastUsedAt: String(item.lastUsedAt),
  appleRefreshToken: text(item.appleRefreshToken),
});

/** The account an identity belongs to, by its owner item. */
export async function findSocialOwner(db: Database, provider: SocialProvider, subject: string): Promise<number | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.socialIdentityOwner(provider, subject), ConsistentRead: true }));
  return result.Item ? Number(result.Item.userId) : undefined;
}

/** The account's linked identities (at most one per provider: one page). */
export async function listSocialIdentities(db: Database, userId: number): Promise<SocialIdentityRecord[]> {
  const result = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': sortKeyPrefix.social },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map(toIdentity);
}

export async function findSocialIdentity(db: Database, userId: number, provider: SocialProvider, subject: string): Promise<SocialIdentityRecord | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.socialIdentity(userId, provider, subject), ConsistentRead: true }));
  return result.Item ? toIdentity(result.Item) : undefined;
}

/** Whether a social nonce was spent already (read before a code exchange, so a replay costs the provider nothing). */
export async function isNonceSpent(db: Database, nonceId: string): Promise<boolean> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.spentChallenge(`social.${nonceId}`), ConsistentRead: true }));
  return result.Item !== undefined;
}

/** Spends a social sign-in's nonce: the first transaction to write it wins, any replay fails here. */
export function spendNonce(db: Database, nonceId: string, expiresAt: number): GuardedWrite {
  return {
    item: {
      Put: {
        TableName: db.tableName,
        Item: { ...keys.spentChallenge(`social.${nonceId}`), [TTL_ATTRIBUTE]: expiresAt },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    onConditionFailed: () => SocialCredentialInvalidError.because('nonce already used'),
  };
}

/** Thrown when a racing sign-in claimed the identity first: the caller reads the owner again. */
export class IdentityClaimedError extends Error {
  override readonly name = 'IdentityClaimedError';
}

/**
 * The writes that link a new identity to an account: its owner item (claimed only if no account
 * holds it) and its item in the partition. The profile's marker goes with the sign-in's or
 * link's own profile write (`profileMarker`).
 */
export function linkIdentityWrites(db: Database, identity: SocialIdentityRecord, onClaimed: () => Error = () => new IdentityClaimedError()): GuardedWrite[] {
  const { appleRefreshToken, ...rest } = identity;
  return [
    {
      item: {
        Put: {
          TableName: db.tableName,
          Item: { ...keys.socialIdentityOwner(identity.provider, identity.subject), userId: identity.userId },
          // An identity belongs to one account: of two racing first sign-ins, one claims it.
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: onClaimed,
    },
    {
      item: {
        Put: {
          TableName: db.tableName,
          Item: { ...keys.socialIdentity(identity.userId, identity.provider, identity.subject), ...rest, ...(appleRefreshToken ? { appleRefreshToken } : {}) },
        },
      },
    },
  ];
}

/** The profile attribute to set with the identity's link. */
export const profileMarker = (identity: Pick<SocialIdentityRecord, 'provider' | 'subject'>): Record<string, unknown> => ({ [socialMarker(identity.provider)]: identity.subject });

/**
 * A sign-in with a linked identity: when it was used, the e-mail the provider gives now, Apple's
 * newest refresh token, and Apple's name when this authorization carried one (never blanked by one
 * without it). Conditioned on the link still being there: an unlink racing the sign-in wins.
 */
export function touchIdentityWrite(
  db: Database,
  identity: SocialIdentityRecord,
  change: { usedAt: string; clientId: string; email: string | null; appleRefreshToken?: string; givenName?: string; familyName?: string },
): GuardedWrite {
  const values: Record<string, unknown> = { ':usedAt': change.usedAt, ':clientId': change.clientId, ':me': identity.userId };
  const sets = ['lastUsedAt = :usedAt', 'clientId = :clientId'];
  if (change.email !== null) {
    sets.push('email = :email');
    values[':email'] = change.email;
  }
  for (const field of ['appleRefreshToken', 'givenName', 'familyName'] as const) {
    if (change[field] === undefined || change[field] === '') continue;
    sets.push(`${field} = :${field}`);
    values[`:${field}`] = change[field];
  }
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.socialIdentity(identity.userId, identity.provider, identity.subject),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'userId = :me',
        ExpressionAttributeValues: values,
      },
    },
    onConditionFailed: () => SocialCredentialInvalidError.because('the identity was unlinked during the sign-in'),
  };
}

/** Apple's e-mail events: the relay address deliverable or not. */
export function markEmailDeliverableWrite(db: Database, identity: SocialIdentityRecord, deliverable: boolean): GuardedWrite {
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.socialIdentity(identity.userId, identity.provider, identity.subject),
        UpdateExpression: 'SET emailDeliverable = :deliverable',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':deliverable': deliverable },
      },
    },
  };
}

/**
 * Unlinks an identity: the owner item (only while it names this account), the item, and the
 * profile's marker, conditioned on the caller's token (when a person unlinks) or on the marker
 * still naming this subject (Apple's notifications).
 */
export function unlinkIdentityWrites(db: Database, identity: SocialIdentityRecord, caller: AccountRef | undefined): GuardedWrite[] {
  const condition = caller ? tokenIsCurrentCondition(caller) : undefined;
  return [
    {
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.socialIdentityOwner(identity.provider, identity.subject),
          ConditionExpression: 'attribute_not_exists(PK) OR userId = :me',
          ExpressionAttributeValues: { ':me': identity.userId },
        },
      },
    },
    { item: { Delete: { TableName: db.tableName, Key: keys.socialIdentity(identity.userId, identity.provider, identity.subject) } } },
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(identity.userId),
          UpdateExpression: 'REMOVE #marker',
          ConditionExpression: condition ? `(${condition.ConditionExpression}) AND #marker = :subject` : '#marker = :subject',
          ExpressionAttributeNames: { ...(condition?.ExpressionAttributeNames ?? {}), '#marker': socialMarker(identity.provider) },
          ExpressionAttributeValues: { ...(condition?.ExpressionAttributeValues ?? {}), ':subject': identity.subject },
        },
      },
      onConditionFailed: () => new UnauthorizedError('Unauthorized'),
    },
  ];
}

