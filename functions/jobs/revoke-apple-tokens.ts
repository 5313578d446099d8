import type { Context } from 'aws-lambda';
import { performance } from 'node:perf_hooks';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { powertoolsMetricSink } from '../../shared/adapters/powertools-metrics';
import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { database } from '../../shared/db/client';
import { revokePendingAppleTokens } from '../../shared/identity/social/apple-revocations';
import type { RevocationRun } from '../../shared/identity/social/apple-revocations';
import { InvocationMetrics } from '../../shared/ports/metrics';

/** Time a run keeps for itself after its last call to Apple (3 s at most each), before the function's timeout. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * Revokes at Apple the tokens of deleted accounts (issue 38, docs/social-sign-in.md): each
 * revocation recorded by a deletion is tried on every run until Apple confirms it or
 * APPLE_REVOCATION_LIMIT_DAYS pass (shared/identity/social/apple-revocations.ts). Its counts are
 * published as the HTTP functions' are.
 */
const withContext =
  (app: AppContext) =>
  async (_event?: unknown, invocation?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<RevocationRun> => {
    const remaining = typeof invocation?.getRemainingTimeInMillis === 'function' ? invocation.getRemainingTimeInMillis() : Infinity;
    const budgetEnds = performance.now() + remaining - SAFETY_MARGIN_MS;
    const metrics = new InvocationMetrics();
    const log = app.logging.logger();
    try {
      const run = await revokePendingAppleTokens(
        { config: app.config, clock: app.clock, db: app.db, keys: () => app.keys(), providerSecrets: () => app.providerSecrets(), log, metrics },
        () => budgetEnds - performance.now(),
      );
      if (run.revoked + run.failed + run.abandoned > 0 || run.cutShort) log.info('apple token revocations run', { ...run });
      return run;
    } finally {
      app.metrics.publish(metrics.drain());
    }
  };

/** Scheduled (see `jobs` in shared/routes.ts); on Lambda a context of its own, built on the first run; the local server and tests run it with theirs (`withContext`). */
export const handler = perContainer(withContext, { database, secrets: secretsManagerSource, metrics: (cfg) => powertoolsMetricSink(cfg.SERVICE_NAME) });
