import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { logInWithPassword } from '../../shared/identity/account-service';
import { EXACTLY_ONE_TARGET, accountTargetFields, oneAccountTarget } from '../../shared/identity/account-target-schemas';
import { submittedPasswordSchema } from '../../shared/identity/password-schemas';
import { clientNameSchema } from '../../shared/identity/session-schemas';
import { sessionName } from '../../shared/identity/session-service';
import { headerValue } from '../../shared/http/headers';

const fields = z
  .object({ ...accountTargetFields, password: submittedPasswordSchema, clientName: z.optional(clientNameSchema) })
  .check(z.meta(EXACTLY_ONE_TARGET));
const body = z.pipe(fields, z.transform((value: z.output<typeof fields>, context) => oneAccountTarget(value, context)));

/** Password login by phone or e-mail; answers without the code/message envelope (seed 4.3), and opens a session. */
export const handler = endpoint('POST /api/auth/login', {
  body,
  response: 'sessionSchema',
  docs: { summary: 'Log in with a password', errors: ['INVALID_CREDENTIALS', 'LOGIN_LOCKED', 'ACCOUNT_DISABLED'] },
  run: ({ body, headers }, ctx) => logInWithPassword(ctx, body.target, body.password, sessionName(body.clientName, headerValue(headers, 'user-agent'))),
});
