import { endpoint } from '../../shared/http/endpoint';
import { listActiveSessions } from '../../shared/identity/session-service';

export const handler = endpoint('GET /api/auth/sessions', {
  response: 'activeSessionListSchema',
  docs: { summary: 'The signed-in sessions', description: 'Every live session of the account, newest first; `current` marks the caller\'s own.' },
  run: ({ caller }, ctx) => listActiveSessions(ctx, caller),
});
