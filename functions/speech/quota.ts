import { endpoint } from '../../shared/http/endpoint';
import { speechQuota } from '../../shared/speech/session-service';

/** The account's speech minutes today and this month, in its own time zone. */
export const handler = endpoint('GET /api/speech/quota', {
  response: 'speechQuotaSchema',
  docs: {
    summary: 'Your speech minutes',
    description: 'Today’s and this month’s seconds used, the limits and remainders, when each resets (the account’s time zone), the session maximum and the live sessions. `GET /api/users/me/summary` carries the same as `speech`.',
  },
  run: ({ caller }, ctx) => speechQuota(ctx, caller),
});
