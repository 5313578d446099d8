import { stats } from '../../shared/behavior/behavior-service';
import { endpoint } from '../../shared/http/endpoint';

/** Login count and per-type count and last value, from aggregates: constant cost. */
export const handler = endpoint('GET /api/behavior/stats', {
  response: 'behaviorStatsSchema',
  docs: { summary: 'Behavior statistics' },
  run: ({ caller }, ctx) => stats(ctx, caller),
});
