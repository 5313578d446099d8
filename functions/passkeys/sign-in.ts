import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { authenticationResponseSchema } from '../../shared/identity/passkey-schemas';
import { signInWithPasskey } from '../../shared/identity/passkey-verification';
import { clientNameSchema } from '../../shared/identity/session-schemas';
import { sessionName } from '../../shared/identity/session-service';

const body = z.object({ response: authenticationResponseSchema, clientName: z.optional(clientNameSchema) });

export const handler = endpoint('POST /api/auth/passkey/verify', {
  body,
  response: 'codeSessionSchema',
  docs: {
    summary: 'Sign in with a passkey',
    description: 'Verifies what the platform answered to the options of `POST /api/auth/passkey/options` and opens a session, as a code sign-in does. Every refusal is the same 401 PASSKEY_INVALID.',
    errors: ['PASSKEY_INVALID', 'ACCOUNT_DISABLED'],
  },
  run: async ({ body, headers }, ctx) => ({
    ...succeeded('Signed in.'),
    ...(await signInWithPasskey(ctx, body.response, sessionName(body.clientName, headerValue(headers, 'user-agent')))),
  }),
});
