import { performance } from 'node:perf_hooks';
import { handler as resumeAccountPurgesJob } from '../../functions/jobs/resume-account-purges';
import { seedEvents } from '../support/seed-items';
import type { Bench } from './harness';

/** One account deletion: how long the request took, and the whole purge per 10 000 items. */
export interface DeletionResult {
  items: number;
  /** The DELETE /api/users/me request, bounded by its budget whatever the account holds. */
  answerMs: number;
  /** Items the job deleted: those the request had no time for. */
  deletedByJob: number;
  /** The scheduled job's run that finished the purge. */
  jobMs: number;
  /** Request and job together, per 10 000 items. */
  msPer10kItems: number;
}

/**
 * Deletes an account holding `items` events (written straight into its partition) through the
 * real handler with the stack's 10 s timeout, then runs the purge job to the end.
 */
export async function measureDeletion(bench: Bench, items: number, label = `delete-${items}`): Promise<DeletionResult> {
  const account = await bench.signUp(label);
  await seedEvents({ client: bench.bare, tableName: bench.config.TABLE_NAME }, account.userId, items);
  const answerStarted = performance.now();
  await bench.call('DELETE /api/users/me', { account });
  const answerMs = performance.now() - answerStarted;
  const jobStarted = performance.now();
  const job = await resumeAccountPurgesJob.withContext(bench.app)();
  const jobMs = performance.now() - jobStarted;
  if (job.cutShort) throw new Error('the purge job did not finish');
  return { items, answerMs, deletedByJob: job.deletedItems, jobMs, msPer10kItems: ((answerMs + jobMs) / items) * 10_000 };
}
