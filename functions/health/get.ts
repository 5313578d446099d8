import { endpoint } from '../../shared/http/endpoint';

/** Liveness for load balancers and the local server's start-up check. Touches no dependency. */
export const handler = endpoint('GET /api/health', {
  run: async (_input, ctx) => ({ status: 'ok', time: ctx.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z') }),
});
