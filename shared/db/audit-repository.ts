import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import type { AuditTarget } from './keys';
import { queryPage } from './pagination';
import type { ListShape, Page, PageRequest } from './pagination';
import { TTL_ATTRIBUTE } from './table';

/**
 * One /admin request that reached its function (issue 37): who, what, on what, why, and how it
 * ended. Never an e-mail, a phone or a token: lookups by e-mail or phone record the account they
 * found (or nothing), not what was asked for.
 */
export interface AuditEntry {
  /** ISO 8601 with milliseconds. */
  at: string;
  actor: string;
  actorKind: string;
  operation: string;
  userId: number | null;
  sn: string | null;
  reason: string | null;
  status: number;
  requestId: string;
}

const ENTRY_FIELDS = ['at', 'actor', 'actorKind', 'operation', 'userId', 'sn', 'reason', 'status', 'requestId'] as const satisfies readonly (keyof AuditEntry)[];

const toEntry = (item: Record<string, unknown>): AuditEntry =>
  Object.fromEntries(ENTRY_FIELDS.map((field) => [field, item[field] ?? null])) as unknown as AuditEntry;

/** An account's (or a serial's) entries, newest first: the sort key starts with the time. */
export const AUDIT_LIST: ListShape = { prefix: sortKeyPrefix.auditEntry, sortKey: /^AT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[\w-]{1,128}$/ };

const targetOf = (entry: AuditEntry): AuditTarget => (entry.userId !== null ? { userId: entry.userId } : entry.sn !== null ? { sn: entry.sn } : {});

/**
 * Appends an entry, kept until `expiresAt` (epoch seconds; TTL). Append-only: the put is
 * conditioned on the key being new, so an entry can never be overwritten (a repeated request id
 * would fail here rather than replace the first), and nothing in the code updates or deletes one;
 * the admin functions' IAM grants allow neither on `AUDIT#` keys (infra/constructs/grants.ts).
 */
export async function appendAuditEntry(db: Database, entry: AuditEntry, expiresAt: number): Promise<void> {
  await db.client.send(
    new PutCommand({
      TableName: db.tableName,
      Item: { ...keys.auditEntry(targetOf(entry), entry.at, entry.requestId), ...entry, [TTL_ATTRIBUTE]: expiresAt },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** One page of a target's entries, newest first. */
export async function listAuditEntries(db: Database, target: AuditTarget, page: PageRequest): Promise<Page<AuditEntry>> {
  const result = await queryPage(db, keys.auditPartition(target), AUDIT_LIST, page);
  return { ...result, items: result.items.map(toEntry) };
}
