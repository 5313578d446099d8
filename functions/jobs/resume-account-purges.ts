import { parseConfig } from '../../shared/config';
import { createContext } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { resumePendingPurges } from '../../shared/db/account-deletion';
import { database } from '../../shared/db/client';

/** Finishes every account purge that was cut short, with the table and logs of a context. */
const withContext = (app: AppContext) => async (): Promise<{ purged: number }> => {
  const purged = await resumePendingPurges(app.db);
  app.logging.logger().info('account purges resumed', { purged: purged.length });
  return { purged: purged.length };
};

/** On Lambda, a context built on the first run, once per container, as the endpoints'. */
let onThisContainer: ReturnType<typeof withContext> | undefined;

/** Scheduled (see `jobs` in shared/routes.ts); tests run it with their own context (`withContext`). */
export const handler = Object.assign(() => (onThisContainer ??= withContext(createContext({ config: parseConfig(process.env), database })))(), {
  withContext,
});
