import { UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { AccountDisabledError, UnauthorizedError } from '../errors';
import type { ApnsEnvironment, PushPlatform } from '../fields';
import type { Database } from './client';
import { keys, sessionMarker, sortKeyPrefix } from './keys';
import { PARTITION_KEY, SORT_KEY } from './table';
import { isConditionFailure } from './transactions';
import type { GuardedWrite } from './transactions';
import { DISABLED_ATTRIBUTE } from './users-repository';
import type { TokenSubject } from './users-repository';

/**
 * An app's push token is kept on its session's item (docs/realtime.md#the-silent-push), so it goes
 * with the session: sign-out, ending a session, a password change and the account's deletion
 * delete the item and the token with it. The attributes, beside the session's own:
 * `pushPlatform`, `pushToken`, `pushEnvironment` (APNs), `pushRegisteredAt`, and `pushSentAt`
 * (epoch seconds of the last push, the interval's claim).
 */
export interface PushTarget {
  userId: number;
  sessionId: string;
  /** The account's token version at the session's sign-in: a session of an older one has ended. */
  tokenVersion: number;
  platform: PushPlatform;
  token: string;
  environment: ApnsEnvironment;
  /** Epoch seconds of the last push sent to it; 0 for none. */
  sentAt: number;
}

export interface PushRegistration {
  platform: PushPlatform;
  token: string;
  environment?: ApnsEnvironment | undefined;
}

/** The account check of the token's writes: the caller's token current, its session live, the account not disabled. */
function pushAccountCheck(db: Database, caller: TokenSubject & { sessionId: string }): GuardedWrite {
  return {
    item: {
      ConditionCheck: {
        TableName: db.tableName,
        Key: keys.user(caller.userId),
        ConditionExpression: 'tokenVersion = :version AND attribute_exists(#session) AND attribute_not_exists(#disabled)',
        ExpressionAttributeNames: { '#session': sessionMarker(caller.sessionId), '#disabled': DISABLED_ATTRIBUTE },
        ExpressionAttributeValues: { ':version': caller.tokenVersion },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    // Disabled while the token was still cached as allowed: the account's own answer, as its other ways in.
    onConditionFailed: (old) => (old?.[DISABLED_ATTRIBUTE] !== undefined ? new AccountDisabledError(AccountDisabledError.message) : new UnauthorizedError('Unauthorized')),
  };
}

/**
 * The token put on the caller's session. The session's item must exist (an ended session's is
 * deleted), so a token never outlives its session, nor recreates a deleted item. The last push's
 * time stays: an app that sends its token at every launch does not reopen the interval (Apple
 * budgets background pushes per device, not per token).
 */
export function keepPushTokenWrites(db: Database, caller: TokenSubject & { sessionId: string }, registration: PushRegistration, registeredAt: string): GuardedWrite[] {
  return [
    pushAccountCheck(db, caller),
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.session(caller.userId, caller.sessionId),
          UpdateExpression: 'SET pushPlatform = :platform, pushToken = :token, pushEnvironment = :environment, pushRegisteredAt = :at',
          ConditionExpression: `attribute_exists(${PARTITION_KEY})`,
          ExpressionAttributeValues: {
            ':platform': registration.platform,
            ':token': registration.token,
            ':environment': registration.environment ?? 'production',
            ':at': registeredAt,
          },
        },
      },
      onConditionFailed: () => new UnauthorizedError('Unauthorized'),
    },
  ];
}

/** The token removed from the caller's session (none there: nothing changes). */
export function forgetPushTokenWrites(db: Database, caller: TokenSubject & { sessionId: string }): GuardedWrite[] {
  return [
    pushAccountCheck(db, caller),
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.session(caller.userId, caller.sessionId),
          UpdateExpression: 'REMOVE pushPlatform, pushToken, pushEnvironment, pushRegisteredAt, pushSentAt',
          ConditionExpression: `attribute_exists(${PARTITION_KEY})`,
        },
      },
      onConditionFailed: () => new UnauthorizedError('Unauthorized'),
    },
  ];
}

/**
 * The account's sessions that have a push token (one Query of the session items, only the push
 * attributes). Whether each session still lives is the caller's to check against the profile.
 */
export async function listPushTargets(db: Database, userId: number): Promise<PushTarget[]> {
  const targets: PushTarget[] = [];
  const pages = paginateQuery(
    { client: db.client },
    {
      TableName: db.tableName,
      KeyConditionExpression: `#pk = :pk AND begins_with(#sk, :prefix)`,
      FilterExpression: 'attribute_exists(pushToken)',
      ProjectionExpression: 'sessionId, tokenVersion, pushPlatform, pushToken, pushEnvironment, pushSentAt',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': sortKeyPrefix.session },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      targets.push({
        userId,
        sessionId: String(item.sessionId),
        tokenVersion: Number(item.tokenVersion),
        platform: item.pushPlatform === 'fcm' ? 'fcm' : 'apns',
        token: String(item.pushToken),
        environment: item.pushEnvironment === 'sandbox' ? 'sandbox' : 'production',
        sentAt: typeof item.pushSentAt === 'number' ? item.pushSentAt : 0,
      });
    }
  }
  return targets;
}

/**
 * Claims the session's push for now: at most one per `intervalSeconds`. Conditioned on the same
 * token still being there and the last push being at least the interval ago, so of parallel
 * fan-outs (two batches of one account, two local writes) exactly one sends; false for the others,
 * and for a session ended or a token changed meanwhile.
 */
export async function claimPush(db: Database, target: Pick<PushTarget, 'userId' | 'sessionId' | 'token'>, now: number, intervalSeconds: number): Promise<boolean> {
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.session(target.userId, target.sessionId),
        UpdateExpression: 'SET pushSentAt = :now',
        ConditionExpression: 'pushToken = :token AND (attribute_not_exists(pushSentAt) OR pushSentAt <= :due)',
        ExpressionAttributeValues: { ':now': now, ':token': target.token, ':due': now - intervalSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * A token the provider reports dead removed from its session; only that token (the app may have
 * registered a new one meanwhile, which stays). False when it was already gone.
 */
export async function removeDeadPushToken(db: Database, target: Pick<PushTarget, 'userId' | 'sessionId' | 'token'>): Promise<boolean> {
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.session(target.userId, target.sessionId),
        UpdateExpression: 'REMOVE pushPlatform, pushToken, pushEnvironment, pushRegisteredAt, pushSentAt',
        ConditionExpression: 'pushToken = :token',
        ExpressionAttributeValues: { ':token': target.token },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
