import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { resumePendingPurges } from '../../shared/db/account-deletion';
import { database } from '../../shared/db/client';

/** Finishes every account purge that was cut short, with the table and logs of a context. */
const withContext = (app: AppContext) => async (): Promise<{ purged: number }> => {
  const purged = await resumePendingPurges(app.db);
  app.logging.logger().info('account purges resumed', { purged: purged.length });
  return { purged: purged.length };
};

/** Scheduled (see `jobs` in shared/routes.ts); on Lambda a context of its own, built on the first run; tests run it with theirs (`withContext`). */
export const handler = perContainer(withContext, { database });
