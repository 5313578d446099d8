import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { endOtherSessions } from '../../shared/identity/session-service';

export const handler = endpoint('DELETE /api/auth/sessions', {
  response: 'endedSessionsSchema',
  docs: { summary: 'Sign out the other devices', description: 'Ends every session of the account except the caller\'s own.' },
  run: async ({ caller }, ctx) => ({ ...succeeded('Other sessions ended.'), ended: await endOtherSessions(ctx, caller) }),
});
