import { readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { readAllDevices, readExportItems } from '../db/export-repository';
import { currentUser } from '../identity/account-service';
import { listActiveSessions } from '../identity/session-service';
import type { ServiceContext } from '../service-context';
import { exportedSpeechSessions } from '../speech/session-service';
import type * as z from 'zod/mini';
import type { exportPageSchema } from '../api/schemas';

/** One page of a person's export, as GET /api/users/me/export answers it. */
export type ExportPage = z.output<typeof exportPageSchema>;

/** The most JSON one page holds, whatever the history: an export of any size is pages of this. */
export const EXPORT_PAGE_BYTES = 1024 * 1024;
/** The page's own keys and `nextCursor` around the items. */
const PAGE_FRAME_BYTES = 4096;

/**
 * A page of everything the service holds about the caller that the API shows them: on the first
 * page the profile, the devices, the signed-in sessions (as their own endpoints answer them) and
 * the speech sessions (provider, language, start, charge, the linked record);
 * then, through `nextCursor`, every record with its full text (oldest first) and every behavior
 * event (each type's oldest first). The mappers of those endpoints build every part, so nothing
 * the API never answers (hashes, refresh-token material, keys, revisions) can reach an export.
 */
export async function exportPage(ctx: ServiceContext, account: AccountRef, cursor: string | undefined): Promise<ExportPage> {
  if (cursor !== undefined) {
    const items = await readForAccount(ctx.db, account, () => readExportItems(ctx.db, account.userId, cursor, EXPORT_PAGE_BYTES - PAGE_FRAME_BYTES));
    return { transcriptions: items.transcriptions, events: items.events, nextCursor: items.nextCursor ?? null };
  }
  // The profile read is the account check (a 401 for an ended token); the others run beside it.
  const [profile, devices, sessions, speechSessions] = await Promise.all([
    currentUser(ctx, account),
    readAllDevices(ctx.db, account.userId),
    listActiveSessions(ctx, account),
    exportedSpeechSessions(ctx, account.userId),
  ]);
  const head = { profile, devices, sessions, speechSessions };
  const room = EXPORT_PAGE_BYTES - PAGE_FRAME_BYTES - Buffer.byteLength(JSON.stringify(head));
  const items = await readExportItems(ctx.db, account.userId, undefined, room);
  return { ...head, transcriptions: items.transcriptions, events: items.events, nextCursor: items.nextCursor ?? null };
}
