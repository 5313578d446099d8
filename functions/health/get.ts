import { endpoint } from '../../shared/http/endpoint';
import { healthResponse } from '../../shared/http/response-shapes.generated';

/** Liveness for load balancers and the local server's start-up check. Touches no dependency. */
export const handler = endpoint('GET /api/health', {
  response: healthResponse,
  docs: { summary: 'Liveness' },
  run: async (_input, ctx) => ({ status: 'ok' as const, time: ctx.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z') }),
});
