import { createHash } from 'node:crypto';
import { readForAccount, readWithProfile } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { atNextSequence } from '../db/change-sequence';
import { allocateId } from '../db/id-allocator';
import { bindingOf } from '../db/pagination';
import type { Page, PageRequest } from '../db/pagination';
import {
  ClientRecordIdTaken,
  deleteRecord,
  findRecord,
  insertRecord,
  listRecords,
  markerTombstone,
  pageOfBatch,
  publicRecord,
  readRecordBatch,
  replaceRecord,
  StaleRecord,
  usageDay,
} from '../db/transcriptions-repository';
import { readProfileForToken } from '../db/users-repository';
import type { RecordTombstone, StoredRecord, TranscriptionRecord } from '../db/transcriptions-repository';
import { readUsage } from '../db/usage-repository';
import type { Usage } from '../db/usage-repository';
import {
  ClientRecordIdReusedError,
  NotFoundError,
  RecordChangedError,
  RecordDeletedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from '../errors';
import { codePointLength } from '../fields';
import type { Remember } from '../db/transactions';
import { epochSeconds, isoSeconds, utcDate } from '../ports/clock';
import { addDays, localDate } from '../time-zones';
import type { ServiceContext } from '../service-context';
import type { NewTranscription, TranscriptionPatch } from './schemas';
import { matchRecord, parseSearchQuery } from './search';
import type { SearchMatch } from './search';

const DAY_MS = 86_400_000;
/** How far ahead a device's clock may be (contract of `startedAt`), and how far back a record may begin. */
const STARTED_AT_AHEAD_MS = 5 * 60_000;
const STARTED_AT_BACK_DAYS = 366;

const notFound = () => new NotFoundError('No transcription record with this id.');

/** A `startedAt` the app sent, checked against the clock: a real moment, 5 minutes ahead at most, 366 days back at most. */
function startedAtOf(ctx: ServiceContext, startedAt: string): string {
  const at = Date.parse(startedAt);
  const now = ctx.clock.now().getTime();
  let problem: string | undefined;
  if (!Number.isFinite(at) || isoSeconds(new Date(at)) !== startedAt) problem = 'is not a real moment';
  else if (at > now + STARTED_AT_AHEAD_MS) problem = 'must not be more than 5 minutes in the future';
  else if (at < now - STARTED_AT_BACK_DAYS * DAY_MS) problem = `must not be more than ${STARTED_AT_BACK_DAYS} days ago`;
  if (problem) throw new ValidationError(`Invalid request: body.startedAt ${problem}`, [{ path: 'body.startedAt', message: problem }]);
  return startedAt;
}

/**
 * What a record write reads of the profile: the account's time zone (for usage by day) and the
 * head of its change sequence (docs/sync.md), refused like any write of an ended token.
 */
async function writeBase(ctx: ServiceContext, account: AccountRef): Promise<{ timeZone: string | null; head: number }> {
  const profile = await readProfileForToken(ctx.db, account, ['timeZone', 'changeSeq']);
  if (!profile) throw new UnauthorizedError('Unauthorized');
  return { timeZone: profile.timeZone, head: profile.changeSeq ?? 0 };
}

/** A saved record, and whether it was saved before (the same `clientRecordId` and body): nothing was written then. */
export interface Saved {
  record: TranscriptionRecord;
  replayed: boolean;
}

/** The digest of what a create asks for, without its `clientRecordId`: a repeat must ask for the same. */
const bodyDigest = (input: NewTranscription) =>
  createHash('sha256')
    .update(JSON.stringify([input.recordTitle, input.text, input.language, input.durationSeconds, input.startedAt ?? null]))
    .digest('base64url');

const deleted = (tombstone: RecordTombstone) => new RecordDeletedError('The transcription record was deleted.', { tombstone });

/**
 * Saves a record (seed 4.9): `textLength` in code points, `updatedAt` null, revision 1, its feed
 * entry in the same transaction. With a `clientRecordId` that already names a record (for as long
 * as the record or its tombstone exists, not 24 hours): the same body answers that record and
 * writes nothing (`replayed`), another body is 409, a deleted record 410 with its tombstone.
 */
export async function save(
  ctx: ServiceContext,
  account: AccountRef,
  input: NewTranscription,
  remember: Remember<TranscriptionRecord> = () => [],
): Promise<Saved> {
  const now = ctx.clock.now();
  const startedAt = input.startedAt === undefined ? isoSeconds(now) : startedAtOf(ctx, input.startedAt);
  const [transcriptionRecordId, { timeZone, head }] = await Promise.all([allocateId(ctx.db, 'transcription'), writeBase(ctx, account)]);
  const record: StoredRecord = {
    transcriptionRecordId,
    userId: account.userId,
    recordTitle: input.recordTitle,
    text: input.text,
    textLength: codePointLength(input.text),
    language: input.language,
    durationSeconds: input.durationSeconds,
    startedAt,
    createdAt: isoSeconds(now),
    updatedAt: null,
    clientRecordId: input.clientRecordId ?? null,
    revision: 1,
    createdAtMs: now.toISOString(),
    usageDate: localDate(new Date(startedAt), timeZone),
  };
  const response = publicRecord(record);
  const requestHash = input.clientRecordId === undefined ? undefined : bodyDigest(input);
  const claim = requestHash === undefined ? undefined : { requestHash, now: epochSeconds(now) };
  try {
    await atNextSequence(ctx.db, account, head, (changeSeq) => insertRecord(ctx.db, account, record, changeSeq, remember(response), claim));
  } catch (error) {
    if (!(error instanceof ClientRecordIdTaken)) throw error;
    return { record: await savedBefore(ctx, account, input.clientRecordId!, requestHash!, error.marker), replayed: true };
  }
  ctx.metrics.count('RecordsSaved');
  return { record: response, replayed: false };
}

/** The record a `clientRecordId` already names, if the create asked for the same; otherwise why not. */
async function savedBefore(ctx: ServiceContext, account: AccountRef, clientRecordId: string, requestHash: string, marker: Record<string, unknown>): Promise<TranscriptionRecord> {
  const tombstone = markerTombstone(marker, clientRecordId);
  if (tombstone) throw deleted(tombstone);
  if (marker.requestHash !== requestHash) {
    throw new ClientRecordIdReusedError('This clientRecordId already names a record created with a different body.');
  }
  // A replay writes nothing, so no transaction checks the account: a read's rule applies.
  const found = await readForAccount(ctx.db, account, () => findRecord(ctx.db, account.userId, Number(marker.transcriptionRecordId)));
  if (!found) throw notFound();
  if ('tombstone' in found) throw deleted(found.tombstone);
  return publicRecord(found.record);
}

export async function get(ctx: ServiceContext, account: AccountRef, id: number): Promise<TranscriptionRecord> {
  const found = await readForAccount(ctx.db, account, () => findRecord(ctx.db, account.userId, id));
  if (!found) throw notFound();
  // A record deleted within the retention is gone, not unknown: 410 with its tombstone, as a
  // change made with If-Match is answered (docs/sync.md), so a device reading it learns why.
  if ('tombstone' in found) throw deleted(found.tombstone);
  return publicRecord(found.record);
}

/**
 * Each lost round of a change means another change of the same record committed in between, so a
 * request can only lose as many rounds as there are other concurrent changes of that one record.
 */
const MAX_CHANGE_ROUNDS = 10;

/**
 * Read, change, write conditioned on the revision read: a concurrent edit or delete makes the
 * write fail and the change is made again on what is there now (or answers 404 if it is gone).
 * With `expected` (If-Match), the record must be at that revision (else 412 with the record as it
 * is) and not deleted (else 410 with its tombstone); without it the last writer wins (seed
 * clients), and a deleted record is 404 as before.
 */
async function changeRecord<R>(
  ctx: ServiceContext,
  account: AccountRef,
  id: number,
  expected: number | undefined,
  write: (current: StoredRecord, base: { timeZone: string | null; changeSeq: number }) => Promise<R>,
): Promise<R> {
  for (let round = 0; round < MAX_CHANGE_ROUNDS; round++) {
    // The profile read also refuses a deleted account's token (401, not 404 from its empty partition).
    const [found, base] = await Promise.all([findRecord(ctx.db, account.userId, id), writeBase(ctx, account)]);
    if (!found) throw notFound();
    if ('tombstone' in found) throw expected === undefined ? notFound() : deleted(found.tombstone);
    const current = found.record;
    if (expected !== undefined && current.revision !== expected) {
      throw new RecordChangedError(`The transcription record is at revision ${current.revision}, not ${expected}.`, { current: publicRecord(current) });
    }
    try {
      return await atNextSequence(ctx.db, account, base.head, (changeSeq) => write(current, { timeZone: base.timeZone, changeSeq }));
    } catch (error) {
      if (!(error instanceof StaleRecord)) throw error;
    }
  }
  throw new ServiceUnavailableError('The record kept changing during the request; try again.');
}

/**
 * Edits a record; `updatedAt` is set, the revision goes up by one, and usage follows a changed
 * duration (on the day it was counted) or a changed start (to that start's day in the account's
 * time zone now).
 */
export async function edit(ctx: ServiceContext, account: AccountRef, id: number, patch: TranscriptionPatch, expected?: number): Promise<TranscriptionRecord> {
  const startedAt = patch.startedAt === undefined ? undefined : startedAtOf(ctx, patch.startedAt);
  const updated = await changeRecord(ctx, account, id, expected, async (current, { timeZone, changeSeq }) => {
    const text = patch.text ?? current.text;
    const moved = startedAt !== undefined && startedAt !== current.startedAt;
    const next: StoredRecord = {
      ...current,
      recordTitle: patch.recordTitle ?? current.recordTitle,
      text,
      textLength: codePointLength(text),
      language: patch.language ?? current.language,
      durationSeconds: patch.durationSeconds ?? current.durationSeconds,
      startedAt: startedAt ?? current.startedAt,
      updatedAt: isoSeconds(ctx.clock.now()),
      usageDate: moved ? localDate(new Date(startedAt), timeZone) : usageDay(current),
    };
    return replaceRecord(ctx.db, account, current, next, changeSeq);
  });
  return publicRecord(updated);
}

/**
 * Deletes a record; its duration leaves the usage of the day it was counted on, and its tombstone
 * stays RECORD_TOMBSTONE_RETENTION_SECONDS (docs/sync.md).
 */
export async function remove(ctx: ServiceContext, account: AccountRef, id: number, expected?: number): Promise<void> {
  await changeRecord(ctx, account, id, expected, (current, { changeSeq }) => {
    const now = ctx.clock.now();
    return deleteRecord(ctx.db, account, current, changeSeq, isoSeconds(now), epochSeconds(now) + ctx.config.RECORD_TOMBSTONE_RETENTION_SECONDS);
  });
}

/** The caller's records, newest first, full records (seed 2.3). */
export async function list(ctx: ServiceContext, account: AccountRef, page: PageRequest): Promise<Page<TranscriptionRecord>> {
  return readForAccount(ctx.db, account, () => listRecords(ctx.db, account.userId, page));
}

/** What narrows the list: a search (`q`), a language, calendar dates of `startedAt` (inclusive). */
export interface RecordFilters {
  q?: string | undefined;
  language?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A record a search found, with where it matched; records of a list without `q` have no `match`. */
export type FoundRecord = TranscriptionRecord & { match?: SearchMatch };

/**
 * The caller's records narrowed by `filters`, newest first; without any, the plain list. Each
 * request reads one bounded batch of records (readRecordBatch) and answers the matches in it, so a
 * page may hold fewer than `limit` records, even none, while older ones remain: its cursor goes
 * on from there, and is refused for other filters. Dates are the account's own calendar days
 * (its time zone, UTC while none is set), read in the same request as the account check.
 */
export async function find(ctx: ServiceContext, account: AccountRef, request: PageRequest & RecordFilters): Promise<Page<FoundRecord>> {
  const { q, language, from, to, ...page } = request;
  if (q === undefined && language === undefined && from === undefined && to === undefined) return list(ctx, account, page);
  const binding = bindingOf([q?.trim() ?? null, language ?? null, from ?? null, to ?? null]);
  const search = q === undefined ? undefined : parseSearchQuery(q);
  const { profile, result: batch } = await readWithProfile(ctx.db, account, ['timeZone'], () =>
    readRecordBatch(ctx.db, account.userId, { cursor: page.cursor, binding }),
  );
  const dated = from !== undefined || to !== undefined;
  return pageOfBatch(batch, { limit: page.limit, binding }, (record): FoundRecord | undefined => {
    if (language !== undefined && record.language !== language) return undefined;
    if (dated) {
      const day = localDate(new Date(record.startedAt), profile.timeZone);
      if ((from !== undefined && day < from) || (to !== undefined && day > to)) return undefined;
    }
    if (!search) return record;
    const match = matchRecord(search, record);
    return match && { ...record, match };
  });
}

/**
 * Usage in seconds: the lifetime total, and per calendar day of the records' start in the
 * account's time zone (UTC while none is set) for the last `days` days including today there,
 * newest first. Days without usage are left out rather than listed as zero: the list stays as
 * long as the days actually used, and a client drawing a chart fills the gaps from the dates it has.
 *
 * Two requests, in parallel, whatever the number of records: the account check, which also reads
 * the time zone, and the usage query (`readUsageAround`, then `usageInZone`).
 */
export async function usage(ctx: ServiceContext, account: AccountRef, days: number): Promise<Usage & { userId: number }> {
  const now = ctx.clock.now();
  const { profile, result } = await readWithProfile(ctx.db, account, ['timeZone'], () => readUsageAround(ctx, account.userId, now, days));
  const { totalUsage, dailyUsage } = usageInZone(result, profile.timeZone, now, days);
  return { userId: account.userId, totalUsage, dailyUsage };
}

/**
 * The usage items that the last `days` days can be in before the account's time zone is known, so
 * that the read can run beside the profile read: the dates "today" can be anywhere on Earth
 * (UTC-12 to UTC+14: the UTC date, one day on either side) and the days before. One Query.
 */
export function readUsageAround(ctx: ServiceContext, userId: number, now: Date, days: number): Promise<Usage> {
  const utcToday = utcDate(now);
  return readUsage(ctx.db, userId, addDays(utcToday, -days), addDays(utcToday, 1));
}

/** What `readUsageAround` read, cut to the zone's own `days` days up to its today. */
export function usageInZone(read: Usage, timeZone: string | null, now: Date, days: number): Usage & { today: string } {
  const today = localDate(now, timeZone);
  const from = addDays(today, -(days - 1));
  return { totalUsage: read.totalUsage, dailyUsage: read.dailyUsage.filter((day) => day.date >= from && day.date <= today), today };
}
