import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { signInWithCode } from '../../shared/identity/account-service';
import { verifyCodeSchema } from '../../shared/identity/code-schemas';
import { clientNameSchema } from '../../shared/identity/session-schemas';
import { sessionName } from '../../shared/identity/session-service';
import { targetSchema } from '../../shared/identity/phone-targets';
import { headerValue } from '../../shared/http/headers';

const body = z.object({ target: targetSchema, verifyCode: verifyCodeSchema, clientName: z.optional(clientNameSchema) });

/** Signs in with a code, opening a session; a target without an account gets one (seed 4.2). */
export const handler = endpoint('POST /api/verify-code/verify', {
  body,
  response: 'codeSessionSchema',
  docs: { summary: 'Sign in with a code', description: 'A target without an account gets one.', errors: ['CODE_INVALID', 'CODE_ATTEMPTS_EXCEEDED', 'ACCOUNT_DISABLED'] },
  run: async ({ body, headers }, ctx) => ({
    ...succeeded('Signed in.'),
    ...(await signInWithCode(ctx, body.target, body.verifyCode, sessionName(body.clientName, headerValue(headers, 'user-agent')))),
  }),
});
