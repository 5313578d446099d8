import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../errors';
import type { Database } from './client';
import { keys, sessionMarkersOf } from './keys';
import { writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import { DISABLED_ATTRIBUTE, markerRemoval } from './users-repository';

/**
 * Support's changes to an account's standing (issue 37): signing it out everywhere, disabling and
 * enabling it. Each is one transaction on the profile item, the item every token check reads.
 */

/** The raw profile item, for support's allowlisted view (shared/admin/admin-service.ts); undefined: none. */
export async function readProfileItem(db: Database, userId: number): Promise<Record<string, unknown> | undefined> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId), ConsistentRead: true }));
  return result.Item;
}

/** Whether the account's purge is still running (its profile is gone, its marker is not). */
export async function isPurgePending(db: Database, userId: number): Promise<boolean> {
  const result = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.pendingPurge(userId), ConsistentRead: true }));
  return result.Item !== undefined;
}

/** What the account's change does besides signing out: set or clear the disabled mark. */
export type StandingChange = { disable: string } | { enable: true } | undefined;

/**
 * Ends every session and every token of the account at once: the token version goes up (every
 * access token fails the authorizer's and every handler's check on its next use, whatever API
 * Gateway's authorizer cache holds, and no session opened before can be refreshed) and the
 * session markers go. With `disable` the profile is marked disabled, and so are its e-mail and
 * phone markers (sending a code reads only those); `enable` clears the marks and restores no
 * session. Conditioned on the profile read being still there (a deletion in between: 404).
 */
export async function changeStanding(db: Database, profile: Record<string, unknown>, change: StandingChange): Promise<void> {
  const userId = Number(profile.userId);
  const { clause, names } = markerRemoval(sessionMarkersOf(profile));
  const removals = clause === '' ? [] : [clause.replace(/^ REMOVE /, '')];
  const attributeNames: Record<string, string> = { ...names };
  const values: Record<string, unknown> = { ':one': 1 };
  let set = '';
  if (change) attributeNames['#disabled'] = DISABLED_ATTRIBUTE;
  if (change && 'disable' in change) {
    set = 'SET #disabled = :at ';
    values[':at'] = change.disable;
  } else if (change) removals.push('#disabled');
  const update = `${set}${removals.length > 0 ? `REMOVE ${removals.join(', ')} ` : ''}ADD tokenVersion :one`;
  const identities: GuardedWrite[] = !change
    ? []
    : (['email', 'phone'] as const)
        .filter((kind) => typeof profile[kind] === 'string')
        .map((kind) => ({
          item: {
            Update: {
              TableName: db.tableName,
              Key: keys.identity(kind, profile[kind] as string),
              UpdateExpression: 'disable' in change ? 'SET #disabled = :at' : 'REMOVE #disabled',
              // Only the account's own marker (an identity it gave up meanwhile is someone else's).
              ConditionExpression: 'userId = :me',
              ExpressionAttributeNames: { '#disabled': DISABLED_ATTRIBUTE },
              ExpressionAttributeValues: { ':me': userId, ...('disable' in change ? { ':at': change.disable } : {}) },
            },
          },
          onConditionFailed: () => new NotFoundError('The account changed meanwhile; look it up again.'),
        }));
  await writeAtomically(db, [
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.user(userId),
          UpdateExpression: update,
          // The account must still exist: an update would otherwise create a bare profile item.
          ConditionExpression: 'attribute_exists(PK)',
          ...(Object.keys(attributeNames).length > 0 ? { ExpressionAttributeNames: attributeNames } : {}),
          ExpressionAttributeValues: values,
        },
      },
      onConditionFailed: () => new NotFoundError('No account with this user id.'),
    },
    ...identities,
  ]);
}
