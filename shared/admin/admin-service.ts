import type * as z from 'zod/mini';
import type { adminAuditEntrySchema, adminUserSchema } from '../api/schemas';
import { deleteAccount } from '../identity/account-deletion-service';
import type { AccountDeletion } from '../identity/account-deletion-service';
import { changeStanding, isPurgePending, readProfileItem } from '../db/account-standing-repository';
import type { StandingChange } from '../db/account-standing-repository';
import { listAuditEntries } from '../db/audit-repository';
import { findSerialOwner, listDevices, releaseSerial } from '../db/devices-repository';
import type { AuditTarget } from '../db/keys';
import { sessionMarkersOf } from '../db/keys';
import { accountSubject, clearLoginFailures, readLoginStanding } from '../db/login-failures-repository';
import type { Page, PageRequest } from '../db/pagination';
import { listPasskeys } from '../db/passkeys-repository';
import { listSocialIdentities } from '../db/social-identities-repository';
import { listSessionItems } from '../db/sessions-repository';
import { setSpeechLimits } from '../db/speech-repository';
import { readUsageTotal } from '../db/usage-repository';
import { DISABLED_ATTRIBUTE, findUserIdByIdentity } from '../db/users-repository';
import { NotFoundError } from '../errors';
import { LOGIN_LOCK_POLICY } from '../identity/account-service';
import { isLive } from '../identity/session-service';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { readSpeechQuotaAround, speechQuotaInZone } from '../speech/session-service';
import type { AdminLookup } from './lookup';

/**
 * Support's operations on accounts (issue 37, the `/admin` routes). Every answer is built here from
 * an allowlist of fields, so no secret (password, code, refresh-token or passkey material, or their
 * hashes), no transcript and no event value can reach support: test/integration/admin.test.ts
 * proves it for an account holding all of them. The audit entry of each request is written by the
 * wrapper (shared/http/middlewares/admin-audit.ts), whatever the outcome.
 */
export type AdminUser = z.output<typeof adminUserSchema>;
export type AdminAuditEntry = z.output<typeof adminAuditEntrySchema>;

/** Devices support sees of an account: the newest this many (a real account has a handful). */
const DEVICES_SHOWN = 100;

const noAccount = () => new NotFoundError('No account matches.');

const iso = (epoch: number | undefined) => (epoch === undefined ? null : isoSeconds(new Date(epoch * 1000)));
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The account's id from whichever key the lookup gives, through the items that map them (never a Scan). */
async function resolveUserId(ctx: ServiceContext, lookup: AdminLookup): Promise<number | undefined> {
  if (lookup.userId !== undefined) return lookup.userId;
  if (lookup.email !== undefined) return findUserIdByIdentity(ctx.db, 'email', lookup.email.value);
  if (lookup.phone !== undefined) return findUserIdByIdentity(ctx.db, 'phone', lookup.phone.value);
  if (lookup.sn !== undefined) return findSerialOwner(ctx.db, lookup.sn);
  return undefined;
}

/** A deleted account whose purge is still running: its id and status, nothing else is left to show. */
const deletingView = (userId: number): AdminUser => ({
  userId,
  status: 'deleting',
  email: null,
  phone: null,
  createdAt: null,
  updatedAt: null,
  timeZone: null,
  locale: null,
  disabledAt: null,
  signIn: { passwordSet: false, failedAttempts: 0, lockedUntil: null, passkeys: [], identities: [] },
  devices: [],
  sessions: [],
  usage: { totalSeconds: 0 },
  speech: null,
});

/** The view of an account, read in parallel (the profile, passkeys, linked identities, sessions, devices, login failures, usage): field by field. */
export async function viewAccount(ctx: ServiceContext, userId: number): Promise<AdminUser> {
  const at = ctx.clock.now();
  const now = epochSeconds(at);
  const [profile, passkeys, identities, sessions, devices, login, totalSeconds, speechRead] = await Promise.all([
    readProfileItem(ctx.db, userId),
    listPasskeys(ctx.db, userId),
    listSocialIdentities(ctx.db, userId),
    listSessionItems(ctx.db, userId),
    listDevices(ctx.db, userId, { limit: DEVICES_SHOWN }),
    readLoginStanding(ctx.db, accountSubject(userId), now, LOGIN_LOCK_POLICY),
    readUsageTotal(ctx.db, userId),
    readSpeechQuotaAround(ctx, userId, at),
  ]);
  if (!profile) {
    if (await isPurgePending(ctx.db, userId)) return deletingView(userId);
    throw noAccount();
  }
  const book = { tokenVersion: Number(profile.tokenVersion), sessionsRev: 0, markedSessionIds: sessionMarkersOf(profile), disabled: false };
  const disabledAt = text(profile[DISABLED_ATTRIBUTE]);
  return {
    userId,
    status: disabledAt === null ? 'active' : 'disabled',
    email: text(profile.email),
    phone: text(profile.phone),
    createdAt: text(profile.createdAt),
    updatedAt: text(profile.updatedAt),
    timeZone: text(profile.timeZone),
    locale: text(profile.locale),
    disabledAt,
    signIn: {
      passwordSet: typeof profile.passwordHash === 'string',
      failedAttempts: login.failedAttempts,
      lockedUntil: iso(login.lockedUntil),
      passkeys: passkeys.map((passkey) => ({ name: passkey.name, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt })),
      identities: identities.map((identity) => ({ provider: identity.provider, linkedAt: identity.linkedAt, lastUsedAt: identity.lastUsedAt })),
    },
    devices: devices.items.map((device) => ({ sn: device.sn, productModel: device.productModel, createdAt: device.createdAt })),
    sessions: sessions
      .filter((session) => isLive(session, book, now))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .map((session) => ({ sessionId: session.sessionId, clientName: session.clientName, createdAt: session.createdAt, lastUsedAt: session.lastUsedAt })),
    usage: { totalSeconds },
    speech: speechView(ctx, speechRead, text(profile.timeZone), at),
  };
}

/** The speech minutes of today and this month in the account's time zone, as its own quota answers them, and whose limits they are. */
function speechView(ctx: ServiceContext, read: Awaited<ReturnType<typeof readSpeechQuotaAround>>, timeZone: string | null, at: Date): NonNullable<AdminUser['speech']> {
  const quota = speechQuotaInZone(ctx, read, timeZone, at);
  const [state] = read;
  return { day: quota.day, month: quota.month, liveSessions: quota.liveSessions, ownLimits: state.dailySeconds !== null || state.monthlySeconds !== null };
}

/** Support sets the account's own daily and monthly speech limits; the next start, renewal and quota go by them. */
export async function setAccountSpeechLimits(ctx: ServiceContext, userId: number, limits: { dailySeconds: number; monthlySeconds: number }): Promise<AdminUser> {
  await setSpeechLimits(ctx.db, userId, limits.dailySeconds, limits.monthlySeconds);
  return viewAccount(ctx, userId);
}

/** `GET /admin/users?...`: one account by an exact, normalised key. */
export async function findAccount(ctx: ServiceContext, lookup: AdminLookup): Promise<AdminUser> {
  const userId = await resolveUserId(ctx, lookup);
  if (userId === undefined) throw noAccount();
  return viewAccount(ctx, userId);
}

async function changeAccount(ctx: ServiceContext, userId: number, change: StandingChange): Promise<AdminUser> {
  const profile = await readProfileItem(ctx.db, userId);
  if (!profile) throw noAccount();
  await changeStanding(ctx.db, profile, change);
  return viewAccount(ctx, userId);
}

/** Every session ended, every access token refused on its next use. */
export const signOutAccount = (ctx: ServiceContext, userId: number) => changeAccount(ctx, userId, undefined);

/** Signed out as above, and no sign-in of any kind until enabled (session-service's `refuseDisabled`). */
export const disableAccount = (ctx: ServiceContext, userId: number) => changeAccount(ctx, userId, { disable: isoSeconds(ctx.clock.now()) });

/** Sign-in works again; no old session comes back (the version raised by the disable stays). */
export const enableAccount = (ctx: ServiceContext, userId: number) => changeAccount(ctx, userId, { enable: true });

/** Clears the password-login lock and its failures; the password and the sessions stay as they are. */
export async function unlockAccount(ctx: ServiceContext, userId: number): Promise<AdminUser> {
  const view = await viewAccount(ctx, userId);
  if (view.status === 'deleting') throw noAccount();
  await clearLoginFailures(ctx.db, accountSubject(userId));
  return { ...view, signIn: { ...view.signIn, failedAttempts: 0, lockedUntil: null } };
}

/** An erasure request: the account deleted exactly as its owner's own deletion does. */
export async function deleteAccountForSupport(ctx: ServiceContext, userId: number): Promise<AccountDeletion> {
  const profile = await readProfileItem(ctx.db, userId);
  if (!profile) throw noAccount();
  // The owner's path (shared/identity/account-deletion-service.ts), as a token of the account's
  // current version without a session would ask it: a change of the account in between makes it 401.
  return deleteAccount(ctx, { userId, tokenVersion: Number(profile.tokenVersion) });
}

/** Frees a serial from whichever account holds it; answers that account's id. */
export async function releaseDevice(ctx: ServiceContext, sn: string): Promise<number> {
  const ownerId = await findSerialOwner(ctx.db, sn);
  if (ownerId === undefined) throw new NotFoundError('No device with this serial number is bound to any account.');
  await releaseSerial(ctx.db, ownerId, sn);
  return ownerId;
}

/** The audit entries of an account or a serial, newest first. */
export async function listAudit(ctx: ServiceContext, target: AuditTarget, page: PageRequest): Promise<Page<AdminAuditEntry>> {
  return listAuditEntries(ctx.db, target, page);
}
