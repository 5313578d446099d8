import { endpoint } from '../../shared/http/endpoint';
import { activeSessionListResponse } from '../../shared/http/response-shapes.generated';
import { listActiveSessions } from '../../shared/identity/session-service';

export const handler = endpoint('GET /api/auth/sessions', {
  response: activeSessionListResponse,
  docs: { summary: 'The signed-in sessions', description: 'Every live session of the account, newest first; `current` marks the caller\'s own.' },
  run: ({ caller }, ctx) => listActiveSessions(ctx, caller),
});
