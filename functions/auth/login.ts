import * as z from 'zod';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { endpoint } from '../../shared/http/endpoint';
import { logInWithPassword } from '../../shared/identity/account-service';
import { accountTargetFields, oneAccountTarget, submittedPasswordSchema } from '../../shared/identity/schemas';

const body = z.object({ ...accountTargetFields, password: submittedPasswordSchema }).transform(oneAccountTarget);

/** Password login by phone or e-mail; answers without the code/message envelope (seed 4.3). */
export const handler = endpoint('POST /api/auth/login', {
  body,
  adapters: { secrets: secretsManagerSource },
  run: ({ body }, ctx) => logInWithPassword(ctx, body.target, body.password),
});
