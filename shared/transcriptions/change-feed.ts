import { readWithProfile } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { readChanges } from '../db/change-feed-repository';
import type { RecordChange } from '../db/change-feed-repository';
import { CursorExpiredError, ValidationError } from '../errors';
import { epochSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';

/**
 * The change feed (docs/sync.md): the changes of the caller's records after a cursor, in commit
 * order, each record once at its latest state.
 */

/** A page holds at most this much JSON, as an export page does. */
export const FEED_PAGE_BYTES = 1024 * 1024;
/** Room for the page's frame (`{"changes":[...],"cursor":"...","hasMore":false}`). */
const PAGE_FRAME_BYTES = 1024;

export interface ChangeFeedPage {
  changes: RecordChange[];
  cursor: string;
  hasMore: boolean;
}

/**
 * Where a device stands in the feed: the account, the number of the last change it has, and when
 * the answer that brought it to the head of the feed was given (epoch seconds; for a walk from the
 * beginning, when the walk began). Not secret and not signed: it positions a read in the caller's
 * own partition only.
 */
interface FeedPosition {
  userId: number;
  after: number;
  issuedAt: number;
}

const encodeCursor = (position: FeedPosition) =>
  Buffer.from(JSON.stringify({ u: position.userId, s: position.after, t: position.issuedAt }), 'utf8').toString('base64url');

const invalidCursor = (reason: string) => new ValidationError('Invalid request: query.cursor is not a cursor of the change feed.', [{ path: 'query.cursor', message: reason }]);

const count = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A cursor read back: only the exact form this feed writes, of the caller's account; anything else is a 400. */
function decodeCursor(cursor: string, userId: number): FeedPosition {
  let value: unknown;
  try {
    value = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    value = undefined;
  }
  const { u, s, t } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (!count(u) || !count(s) || !count(t) || encodeCursor({ userId: u, after: s, issuedAt: t }) !== cursor) throw invalidCursor('is not a cursor');
  if (u !== userId) throw invalidCursor('belongs to another account');
  return { userId: u, after: s, issuedAt: t };
}

/**
 * One page of the feed. Two reads in parallel, whatever the history's length: the account check
 * (which also reads the head of the account's change sequence) and one Query of the feed.
 *
 * A cursor older than the tombstones are kept (RECORD_TOMBSTONE_RETENTION_SECONDS) may have
 * missed deletions whose tombstones are gone: 410 CURSOR_EXPIRED, unless nothing changed since it
 * (the head is still where it was), so a device idle at the head never has to walk again. An
 * answer that reaches the head issues a cursor dated now; one in the middle of a walk keeps the
 * walk's date, because a deletion of a record the device holds happened after that date, not
 * after this page.
 */
export async function changes(ctx: ServiceContext, account: AccountRef, request: { cursor?: string | undefined; limit: number }): Promise<ChangeFeedPage> {
  const now = epochSeconds(ctx.clock.now());
  const from: FeedPosition = request.cursor === undefined ? { userId: account.userId, after: 0, issuedAt: now } : decodeCursor(request.cursor, account.userId);
  const { profile, result: batch } = await readWithProfile(ctx.db, account, ['changeSeq'], () =>
    readChanges(ctx.db, account.userId, from.after, request.limit, FEED_PAGE_BYTES - PAGE_FRAME_BYTES),
  );
  const head = profile.changeSeq ?? 0;
  if (now - from.issuedAt > ctx.config.RECORD_TOMBSTONE_RETENTION_SECONDS && head > from.after) {
    throw new CursorExpiredError('The cursor is older than the tombstones are kept: read the feed again without a cursor.');
  }
  const hasMore = batch.more;
  return {
    changes: batch.changes,
    cursor: encodeCursor({ userId: account.userId, after: batch.last, issuedAt: hasMore ? from.issuedAt : now }),
    hasMore,
  };
}
