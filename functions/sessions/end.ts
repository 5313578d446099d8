import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { SESSION_ID_PATTERN } from '../../shared/identity/refresh-tokens';
import { endSession } from '../../shared/identity/session-service';

const params = z.object({
  sessionId: z.string().check(
    z.regex(SESSION_ID_PATTERN, 'must be a session id as GET /api/auth/sessions lists it'),
    z.meta({ description: 'From `GET /api/auth/sessions`', examples: ['p3Xq9vK2T0a8YbWcLm4N1g'] }),
  ),
});

export const handler = endpoint('DELETE /api/auth/sessions/{sessionId}', {
  params,
  response: 'successSchema',
  docs: {
    summary: 'End a session',
    description: 'Signs that device out: its refresh token stops working and its access tokens get 401 at once. Ending the caller\'s own session is logging out.',
    errors: ['NOT_FOUND'],
  },
  run: async ({ params, caller }, ctx) => {
    await endSession(ctx, caller, params.sessionId);
    return succeeded('Session ended.');
  },
});
