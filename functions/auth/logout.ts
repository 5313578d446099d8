import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { refreshTokenSchema } from '../../shared/identity/session-schemas';
import { signOut } from '../../shared/identity/session-service';

const body = z.object({ refreshToken: z.optional(refreshTokenSchema) });

/** The seed's stateless logout (4.5, 5.5); with the app's refresh token it also ends that session. */
export const handler = endpoint('POST /api/auth/logout', {
  body,
  bodyOptional: true,
  response: 'successSchema',
  docs: {
    summary: 'Log out',
    description:
      'Without a body, keeps no state (seed): the app forgets its tokens. Apps should send `{refreshToken}`: the session it belongs to ' +
      'then ends at once, with every token of it. A refresh token that is not one of the caller\'s changes nothing; the answer is the same.',
  },
  run: async ({ body, caller }, ctx) => {
    await signOut(ctx, caller, body?.refreshToken);
    return succeeded('Logged out.');
  },
});
