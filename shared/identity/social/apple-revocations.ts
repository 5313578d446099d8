import { APPLE_REVOCATION_LIMIT_DAYS, noteFailedRevocation, pendingRevocations, removeRevocation } from '../../db/apple-revocations-repository';
import type { AppleRevocation } from '../../db/apple-revocations-repository';
import type { AppContext } from '../../context';
import type { Logger } from '../../logging/logger';
import { isoSeconds } from '../../ports/clock';
import type { Metrics } from '../../ports/metrics';
import { openAppleToken, revokeAppleToken } from './apple-client';

/**
 * The revocations of Apple tokens that account deletions recorded (docs/social-sign-in.md,
 * "Deleting an account"), done by the scheduled job functions/jobs/revoke-apple-tokens.ts: each is
 * sent to Apple's `/auth/revoke` and removed once Apple answers 200 (also Apple's answer for a
 * token already invalid). A failure (Apple unreachable, a 5xx, a refused client secret) leaves it
 * for the next run, counted on the item; past APPLE_REVOCATION_LIMIT_DAYS after the deletion a
 * failure gives up: the item goes and AppleRevocationsAbandoned is counted (an alarm watches it,
 * docs/operating.md).
 */
export interface RevocationRun {
  revoked: number;
  failed: number;
  abandoned: number;
  /** True when the time ran out first: the next run goes on. */
  cutShort: boolean;
}

type RevocationContext = Pick<AppContext, 'config' | 'clock' | 'db' | 'keys' | 'providerSecrets'> & { log: Logger; metrics: Metrics };

const DAY_MS = 86_400_000;

/** Apple's answer, in words for the item and the log (never the token). */
async function attempt(ctx: RevocationContext, revocation: AppleRevocation, now: Date): Promise<'revoked' | string> {
  try {
    const { appleTokenKey } = await ctx.keys();
    const token = openAppleToken(appleTokenKey, revocation.sealedToken);
    const confirmed = await revokeAppleToken(ctx.config, await ctx.providerSecrets(), now, revocation.clientId, token);
    return confirmed ? 'revoked' : 'refused';
  } catch (error) {
    return `failed: ${(error as Error).name}`;
  }
}

export async function revokePendingAppleTokens(ctx: RevocationContext, timeLeft: () => number = () => Infinity): Promise<RevocationRun> {
  const run: RevocationRun = { revoked: 0, failed: 0, abandoned: 0, cutShort: false };
  for await (const revocation of pendingRevocations(ctx.db)) {
    if (timeLeft() <= 0) return { ...run, cutShort: true };
    const now = ctx.clock.now();
    const outcome = await attempt(ctx, revocation, now);
    const about = { userId: revocation.userId, attempts: revocation.attempts + 1, requestedAt: revocation.requestedAt };
    if (outcome === 'revoked') {
      await removeRevocation(ctx.db, revocation);
      ctx.metrics.count('AppleTokensRevoked');
      ctx.log.info('apple token revoked', about);
      run.revoked++;
    } else if (now.getTime() - Date.parse(revocation.requestedAt) >= APPLE_REVOCATION_LIMIT_DAYS * DAY_MS) {
      await removeRevocation(ctx.db, revocation);
      ctx.metrics.count('AppleRevocationsAbandoned');
      ctx.log.error('apple token revocation abandoned', { ...about, outcome, limitDays: APPLE_REVOCATION_LIMIT_DAYS });
      run.abandoned++;
    } else {
      await noteFailedRevocation(ctx.db, revocation, isoSeconds(now), outcome);
      ctx.log.warn('apple token revocation failed; the next run tries again', { ...about, outcome });
      run.failed++;
    }
  }
  return run;
}
