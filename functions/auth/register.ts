import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { register } from '../../shared/identity/account-service';
import { EXACTLY_ONE_TARGET, accountTargetFields, oneAccountTarget } from '../../shared/identity/account-target-schemas';
import { verifyCodeSchema } from '../../shared/identity/code-schemas';
import { newPasswordSchema } from '../../shared/identity/password-schemas';

const fields = z.object({ ...accountTargetFields, verifyCode: verifyCodeSchema, password: newPasswordSchema }).check(z.meta(EXACTLY_ONE_TARGET));
const body = z.pipe(fields, z.transform((value: z.output<typeof fields>, context) => oneAccountTarget(value, context)));

/** Registers with a password; returns the new user without a token (seed 4.4). */
export const handler = endpoint('POST /api/auth/register', {
  body,
  response: 'registeredUserSchema',
  docs: {
    summary: 'Register with a code and a password',
    description: 'The code must have been sent to the e-mail or phone. Answers the new user without a token.',
    errors: ['CODE_INVALID', 'CODE_ATTEMPTS_EXCEEDED', 'ACCOUNT_EXISTS'],
  },
  run: ({ body }, ctx) => register(ctx, body.target, body.verifyCode, body.password),
});
