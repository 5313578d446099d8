import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { IdentityInUseError, LastSignInMethodError, NotFoundError, ProviderAlreadyLinkedError, SocialCredentialInvalidError, UnauthorizedError } from '../errors';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys, sessionMarker, socialMarker, sortKeyPrefix } from './keys';
import { TTL_ATTRIBUTE } from './table';
import type { GuardedWrite } from './transactions';
import { profileHonours, tokenIsCurrentCondition } from './users-repository';

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


/** The ways into an account its profile item shows: a proven e-mail or phone, and the linked identities' markers. */
export interface ProfileSignInMethods {
  email: string | null;
  phone: string | null;
  /** The subject linked per provider (the profile's `social#<provider>` markers). */
  linked: Partial<Record<SocialProvider, string>>;
}

const PROVIDERS: readonly SocialProvider[] = ['apple', 'google', 'wechat'];

export async function readProfileSignInMethods(db: Database, userId: number): Promise<ProfileSignInMethods | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId), ConsistentRead: true }));
  const item = result.Item;
  if (!item) return undefined;
  const linked: Partial<Record<SocialProvider, string>> = {};
  for (const provider of PROVIDERS) {
    const subject = item[socialMarker(provider)];
    if (typeof subject === 'string') linked[provider] = subject;
  }
  return { email: text(item.email), phone: text(item.phone), linked };
}

/**
 * Which ways in count when one is about to go: every provider but `except` (the one being
 * unlinked), and the e-mail unless `emailCounts` is false (Apple's relay address, when Apple
 * itself goes). A password alone is no way in: it signs in through the e-mail or phone.
 */
export interface WayInOptions {
  except?: SocialProvider;
  emailCounts?: boolean;
}

/** Whether the profile still shows a way in beyond what `options` leave out (docs/social-sign-in.md). */
export const hasProfileWayIn = (methods: ProfileSignInMethods, { except, emailCounts = true }: WayInOptions = {}): boolean =>
  (emailCounts && methods.email !== null) || methods.phone !== null || PROVIDERS.some((provider) => provider !== except && methods.linked[provider] !== undefined);

/**
 * The same rule as a condition on the profile item, for the transaction that takes a way in away
 * (an unlink, a passkey's removal): the way the caller's read relied on must still be there when
 * it commits, so two such changes at once cannot leave the account with none.
 */
export function profileWayInCondition({ except, emailCounts = true }: WayInOptions = {}): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names = Object.fromEntries(PROVIDERS.filter((provider) => provider !== except).map((provider, index) => [`#way${index}`, socialMarker(provider)]));
  // Stored as null when absent: a string type is a proven address.
  const ways = [...(emailCounts ? ['attribute_type(email, :string)'] : []), 'attribute_type(phone, :string)', ...Object.keys(names).map((name) => `attribute_exists(${name})`)];
  return { expression: `(${ways.join(' OR ')})`, names, values: { ':string': 'S' } };
}

/**
 * Links a verified identity to the caller's account from the settings: its owner item claimed
 * (IDENTITY_IN_USE when another account holds it), its item, and the profile's marker set, which
 * is conditioned on the caller's token (the account and session still current) and on no identity
 * of that provider being linked yet (one per provider: PROVIDER_ALREADY_LINKED).
 */
export function linkToAccountWrites(db: Database, identity: SocialIdentityRecord, caller: AccountRef): GuardedWrite[] {
  const condition = tokenIsCurrentCondition(caller);
  const marker = socialMarker(identity.provider);
  return [
    ...linkIdentityWrites(db, identity, () => new IdentityInUseError('This identity is linked to another account.')),
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(identity.userId),
          UpdateExpression: 'SET #marker = :subject',
          ConditionExpression: `(${condition.ConditionExpression}) AND attribute_not_exists(#marker)`,
          ExpressionAttributeNames: { ...(condition.ExpressionAttributeNames ?? {}), '#marker': marker },
          ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':subject': identity.subject },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      // A token that no longer speaks for the account is a 401 whatever the marker says.
      onConditionFailed: (old) =>
        old && old.tokenVersion === caller.tokenVersion && (caller.sessionId === undefined || sessionMarker(caller.sessionId) in old) && typeof old[marker] === 'string'
          ? new ProviderAlreadyLinkedError(`Another ${identity.provider} identity is linked to this account; unlink it first.`)
          : new UnauthorizedError('Unauthorized'),
    },
  ];
}

/**
 * Unlinks an identity at its owner's request, keeping the account a way in: the writes of
 * unlinkIdentityWrites, the profile's also conditioned on the way in the caller's read relied on
 * still being there: an e-mail, a phone or another identity on the profile (`keepsProfileWay`,
 * profileWayInCondition), else a passkey (the caller adds `passkeyRemains` of passkeys-repository.ts).
 */
export function unlinkFromAccountWrites(db: Database, identity: SocialIdentityRecord, caller: AccountRef, keepsProfileWay: boolean, emailCounts = true): GuardedWrite[] {
  const [owner, item, profile] = unlinkIdentityWrites(db, identity, caller);
  const update = profile!.item.Update!;
  const way = keepsProfileWay ? profileWayInCondition({ except: identity.provider, emailCounts }) : undefined;
  return [
    owner!,
    item!,
    {
      item: {
        Update: {
          ...update,
          ConditionExpression: way ? `${update.ConditionExpression} AND ${way.expression}` : update.ConditionExpression,
          ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...way?.names },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...way?.values },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      onConditionFailed: (old) => {
        if (!profileHonours(old, caller)) return new UnauthorizedError('Unauthorized');
        if (old![socialMarker(identity.provider)] !== identity.subject) return new NotFoundError(`No ${identity.provider} identity is linked to this account.`);
        return new LastSignInMethodError('This is the account’s only way to sign in.');
      },
    },
  ];
}
