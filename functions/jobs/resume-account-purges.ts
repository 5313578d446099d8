import type { Context } from 'aws-lambda';
import { performance } from 'node:perf_hooks';
import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { resumePendingPurges } from '../../shared/db/account-deletion';
import { database } from '../../shared/db/client';

/** Time a run keeps for itself after its last purge step, before the function's timeout. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * Finishes the account purges that deletion requests left (their time budget ran out, or they
 * died), with the table and logs of a context. Stops in time on a partition larger than one run
 * can delete; the next run goes on from there.
 */
const withContext =
  (app: AppContext) =>
  async (_event?: unknown, invocation?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<{ purged: number; deletedItems: number; cutShort: boolean }> => {
    const remaining = typeof invocation?.getRemainingTimeInMillis === 'function' ? invocation.getRemainingTimeInMillis() : Infinity;
    const budgetEnds = performance.now() + remaining - SAFETY_MARGIN_MS;
    const outcome = await resumePendingPurges(app.db, () => budgetEnds - performance.now());
    const summary = { purged: outcome.purged.length, deletedItems: outcome.deletedItems, cutShort: outcome.cutShort };
    app.logging.logger().info('account purges resumed', summary);
    return summary;
  };

/** Scheduled (see `jobs` in shared/routes.ts); on Lambda a context of its own, built on the first run; the local server and tests run it with theirs (`withContext`). */
export const handler = perContainer(withContext, { database });
