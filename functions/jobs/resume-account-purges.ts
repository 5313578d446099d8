import { config } from '../../shared/config';
import { resumePendingPurges } from '../../shared/db/account-deletion';
import { database } from '../../shared/db/client';
import { createLogger } from '../../shared/logging/logger';

/** Scheduled (see `jobs` in shared/routes.ts): finishes every account purge that was cut short. */
export async function handler(): Promise<{ purged: number }> {
  const cfg = config();
  const purged = await resumePendingPurges(database(cfg));
  createLogger(cfg.LOG_LEVEL, {}, { serviceName: cfg.SERVICE_NAME }).info('account purges resumed', { purged: purged.length });
  return { purged: purged.length };
}
