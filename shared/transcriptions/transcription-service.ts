import { assertAccountCurrent, readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { allocateId } from '../db/id-allocator';
import type { Page, PageRequest } from '../db/pagination';
import {
  deleteRecord,
  findRecord,
  insertRecord,
  listRecords,
  publicRecord,
  replaceRecord,
  StaleRecord,
} from '../db/transcriptions-repository';
import type { StoredRecord, TranscriptionRecord } from '../db/transcriptions-repository';
import { readUsage } from '../db/usage-repository';
import type { Usage } from '../db/usage-repository';
import { NotFoundError, ServiceUnavailableError } from '../errors';
import { codePointLength } from '../http/fields';
import type { Remember } from '../http/idempotency';
import { isoSeconds, utcDate } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import type { NewTranscription, TranscriptionPatch } from './schemas';

const DAY_MS = 86_400_000;

const notFound = () => new NotFoundError('No transcription record with this id.');

/** Saves a record (seed 4.9): `textLength` in code points, `updatedAt` null. */
export async function save(
  ctx: ServiceContext,
  account: AccountRef,
  input: NewTranscription,
  remember: Remember<TranscriptionRecord> = () => [],
): Promise<TranscriptionRecord> {
  const now = ctx.clock.now();
  const record: StoredRecord = {
    transcriptionRecordId: await allocateId(ctx.db, 'transcription'),
    userId: account.userId,
    recordTitle: input.recordTitle,
    text: input.text,
    textLength: codePointLength(input.text),
    language: input.language,
    durationSeconds: input.durationSeconds,
    createdAt: isoSeconds(now),
    updatedAt: null,
    createdAtMs: now.toISOString(),
    revision: 0,
  };
  const response = publicRecord(record);
  await insertRecord(ctx.db, account, record, remember(response));
  return response;
}

async function findOwn(ctx: ServiceContext, account: AccountRef, id: number): Promise<StoredRecord> {
  const record = await findRecord(ctx.db, account.userId, id);
  if (!record) throw notFound();
  return record;
}

export async function get(ctx: ServiceContext, account: AccountRef, id: number): Promise<TranscriptionRecord> {
  return publicRecord(await readForAccount(ctx.db, account, () => findOwn(ctx, account, id)));
}

/**
 * Each lost round of a change means another change of the same record committed in between, so a
 * request can only lose as many rounds as there are other concurrent changes of that one record.
 */
const MAX_CHANGE_ROUNDS = 10;

/**
 * Read, change, write conditioned on the revision read: a concurrent edit or delete makes the
 * write fail and the change is made again on what is there now (or answers 404 if it is gone).
 */
async function changeRecord<R>(ctx: ServiceContext, account: AccountRef, id: number, write: (current: StoredRecord) => Promise<R>): Promise<R> {
  for (let round = 0; round < MAX_CHANGE_ROUNDS; round++) {
    const current = await findRecord(ctx.db, account.userId, id);
    if (!current) {
      // A deleted account's partition is empty: its token gets 401, not 404.
      await assertAccountCurrent(ctx.db, account);
      throw notFound();
    }
    try {
      return await write(current);
    } catch (error) {
      if (!(error instanceof StaleRecord)) throw error;
    }
  }
  throw new ServiceUnavailableError('The record kept changing during the request; try again.');
}

/** Edits a record; `updatedAt` is set, and usage follows a changed duration. */
export async function edit(ctx: ServiceContext, account: AccountRef, id: number, patch: TranscriptionPatch): Promise<TranscriptionRecord> {
  const updated = await changeRecord(ctx, account, id, async (current) => {
    const text = patch.text ?? current.text;
    const next: StoredRecord = {
      ...current,
      recordTitle: patch.recordTitle ?? current.recordTitle,
      text,
      textLength: codePointLength(text),
      language: patch.language ?? current.language,
      durationSeconds: patch.durationSeconds ?? current.durationSeconds,
      updatedAt: isoSeconds(ctx.clock.now()),
    };
    await replaceRecord(ctx.db, account, current, next);
    return next;
  });
  return publicRecord(updated);
}

/** Deletes a record; its duration leaves the usage of the day it was created on. */
export async function remove(ctx: ServiceContext, account: AccountRef, id: number): Promise<void> {
  await changeRecord(ctx, account, id, (current) => deleteRecord(ctx.db, account, current));
}

/** The caller's records, newest first, full records (seed 2.3). */
export async function list(ctx: ServiceContext, account: AccountRef, page: PageRequest): Promise<Page<TranscriptionRecord>> {
  return readForAccount(ctx.db, account, () => listRecords(ctx.db, account.userId, page));
}

/**
 * Usage in seconds (contract section 4): the lifetime total, and per UTC date of the records'
 * creation for the last `days` days including today, newest first. Days without usage are left
 * out rather than listed as zero: the list stays as long as the days actually used, and a client
 * drawing a chart fills the gaps from the dates it has.
 */
export async function usage(ctx: ServiceContext, account: AccountRef, days: number): Promise<Usage & { userId: number }> {
  const now = ctx.clock.now();
  const from = utcDate(new Date(now.getTime() - (days - 1) * DAY_MS));
  const result = await readForAccount(ctx.db, account, () => readUsage(ctx.db, account.userId, from, utcDate(now)));
  return { userId: account.userId, ...result };
}
