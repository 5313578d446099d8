import { readWithProfile } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { listDevices } from '../db/devices-repository';
import { readStats } from '../db/events-repository';
import { settingsOf } from '../behavior/behavior-service';
import { PUBLIC_USER_FIELDS, publicUser } from '../identity/account-service';
import type { ServiceContext } from '../service-context';
import { readUsageAround, usageInZone } from '../transcriptions/transcription-service';
import { readSpeechQuotaAround, speechQuotaInZone } from '../speech/session-service';

/** The devices the summary carries: the first page of `GET /api/devices` at this size. */
export const SUMMARY_DEVICES = 20;
/** The days of usage it carries, today included: `GET /api/transcriptions/usage?days=7`. */
export const SUMMARY_USAGE_DAYS = 7;

/**
 * What the app shows when it opens, in one answer: the user (as `GET /api/users/me`), the first
 * page of devices (as `GET /api/devices`), the last week's usage (as
 * `GET /api/transcriptions/usage?days=7`) and the settings to restore (the last value of each
 * event type, from the statistics items).
 *
 * Seven DynamoDB requests, all at once (the speech quota's three: its live sessions, and the day
 * and month items around today in UTC, which hold the account's own today whatever its zone): the profile read, which is also the account check of the
 * other three and gives the time zone the usage is cut by, and one Query each for the devices, the
 * usage items and the statistics items. Each of those reads, standing alone, would make its own
 * account check: seven requests for the same answer.
 */
export async function summary(ctx: ServiceContext, account: AccountRef) {
  const now = ctx.clock.now();
  const { profile, result } = await readWithProfile(ctx.db, account, PUBLIC_USER_FIELDS, () =>
    Promise.all([
      listDevices(ctx.db, account.userId, { limit: SUMMARY_DEVICES }),
      readUsageAround(ctx, account.userId, now, SUMMARY_USAGE_DAYS),
      readStats(ctx.db, account.userId),
      readSpeechQuotaAround(ctx, account.userId, now),
    ]),
  );
  const [devices, usageRead, types, speechRead] = result;
  const usage = usageInZone(usageRead, profile.timeZone, now, SUMMARY_USAGE_DAYS);
  // The speech minutes (as GET /api/speech/quota), cut to the account's own today.
  const speech = speechQuotaInZone(ctx, speechRead, profile.timeZone, now);
  return {
    user: publicUser(profile),
    devices: { items: devices.items, hasMore: devices.nextCursor !== undefined, nextCursor: devices.nextCursor ?? null },
    usage: {
      totalUsage: usage.totalUsage,
      today: { date: usage.today, usage: usage.dailyUsage.find((day) => day.date === usage.today)?.usage ?? 0 },
      dailyUsage: usage.dailyUsage,
    },
    settings: settingsOf(types),
    speech,
  };
}
