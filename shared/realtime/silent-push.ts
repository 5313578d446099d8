import { claimPush, listPushTargets, removeDeadPushToken } from '../db/push-repository';
import type { PushTarget } from '../db/push-repository';
import { bookHonours, findSessionBook } from '../db/users-repository';
import { epochSeconds } from '../ports/clock';
import type { PushSender } from '../ports/push';
import type { ServiceContext } from '../service-context';

export interface PushResult {
  pushed: number;
  removed: number;
  failed: number;
}

/**
 * The silent push for closed apps (docs/realtime.md#the-silent-push): after a change to the
 * account's records, each of its live sessions with a push token and no open live-channel
 * connection gets one silent push, at most one per PUSH_MIN_INTERVAL_SECONDS (claimed on the
 * session's item before sending, so parallel fan-outs send one); a token the provider reports
 * dead is removed. One Query of the sessions with tokens; the profile read only when there are
 * some. Never throws for a provider: the pokes beside it go on.
 */
export async function pushToClosedApps(
  ctx: Pick<ServiceContext, 'db' | 'metrics' | 'log' | 'config' | 'clock'>,
  pusher: PushSender,
  userId: number,
  connectedSessions: ReadonlySet<string>,
): Promise<PushResult> {
  const result: PushResult = { pushed: 0, removed: 0, failed: 0 };
  const closed = (await listPushTargets(ctx.db, userId)).filter((target) => !connectedSessions.has(target.sessionId));
  if (closed.length === 0) return result;
  const book = await findSessionBook(ctx.db, userId);
  if (!book || book.disabled) return result;
  // One push per device: an app signed in twice (a session the app forgot) keeps the token on both.
  const seen = new Set<string>();
  const targets: PushTarget[] = [];
  for (const target of closed) {
    if (!bookHonours(book, target) || seen.has(`${target.platform}:${target.token}`)) continue;
    seen.add(`${target.platform}:${target.token}`);
    targets.push(target);
  }
  const now = epochSeconds(ctx.clock.now());
  await Promise.all(
    targets.map(async (target) => {
      if (!(await pusher.offers(target.platform))) return;
      if (now - target.sentAt < ctx.config.PUSH_MIN_INTERVAL_SECONDS) return;
      if (!(await claimPush(ctx.db, target, now, ctx.config.PUSH_MIN_INTERVAL_SECONDS))) return;
      const outcome = await pusher.send(target);
      if (outcome === 'sent') {
        ctx.metrics.count('PushesSent', target.platform);
        result.pushed++;
      } else if (outcome === 'dead') {
        await removeDeadPushToken(ctx.db, target);
        ctx.metrics.count('PushTokensRemoved', target.platform);
        result.removed++;
      } else {
        ctx.metrics.count('PushFailures', target.platform);
        result.failed++;
      }
    }),
  );
  return result;
}
