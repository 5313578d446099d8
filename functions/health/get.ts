import { endpoint } from '../../shared/http/endpoint';
import { healthResponse } from '../../shared/http/response-shapes.generated';
import { isoSeconds } from '../../shared/ports/clock';

/** Liveness for load balancers and the local server's start-up check. Touches no dependency. */
export const handler = endpoint('GET /api/health', {
  response: healthResponse,
  docs: { summary: 'Liveness' },
  run: async (_input, ctx) => ({ status: 'ok' as const, time: isoSeconds(ctx.clock.now()) }),
});
