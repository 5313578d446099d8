import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { refreshTokenSchema } from '../../shared/identity/session-schemas';
import { refreshSession } from '../../shared/identity/session-service';

const body = z.object({ refreshToken: refreshTokenSchema });

/** Rotates a session's refresh token: the one sent is spent, a new access token and refresh token come back. */
export const handler = endpoint('POST /api/auth/token/refresh', {
  body,
  response: 'refreshedSessionSchema',
  docs: {
    summary: 'Refresh the access token',
    description:
      'Every refresh rotates: the refresh token sent is spent and the answer carries the next one. Sending the spent token again within ' +
      'REFRESH_GRACE_SECONDS (default 30) answers the same next token (parallel or retried refreshes); later, it is taken as a stolen copy ' +
      'and ends the session with all its tokens (`SESSION_ENDED`).',
    errors: ['REFRESH_TOKEN_INVALID', 'REFRESH_TOKEN_EXPIRED', 'SESSION_ENDED', 'ACCOUNT_DISABLED'],
  },
  run: ({ body }, ctx) => refreshSession(ctx, body.refreshToken),
});
