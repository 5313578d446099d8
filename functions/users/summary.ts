import { summary } from '../../shared/accounts/summary-service';
import { endpoint } from '../../shared/http/endpoint';

export const handler = endpoint('GET /api/users/me/summary', {
  response: 'userSummarySchema',
  docs: {
    summary: 'Everything the app shows when it opens',
    description:
      'The user (as `GET /api/users/me`), the first 20 devices (as `GET /api/devices`), usage of today and the last 7 days in the account’s time zone ' +
      '(as `GET /api/transcriptions/usage?days=7`) and, per behavior event type ever recorded, its last value and when it happened. ' +
      'Four DynamoDB reads in parallel instead of four requests of two reads each.',
  },
  run: ({ caller }, ctx) => summary(ctx, caller),
});
