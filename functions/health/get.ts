import { probeTable } from '../../shared/db/health-repository';
import { endpoint } from '../../shared/http/endpoint';
import { isoSeconds } from '../../shared/ports/clock';

/** Readiness: 200 only when the table answers a read; otherwise 503 (shared/db/health-repository.ts). */
export const handler = endpoint('GET /api/health', {
  response: 'healthSchema',
  docs: { summary: 'Health: the table can be read' },
  run: async (_input, ctx) => {
    await probeTable(ctx.db);
    return { status: 'ok' as const, time: isoSeconds(ctx.clock.now()) };
  },
});
