import * as z from 'zod';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { endpoint } from '../../shared/http/endpoint';
import { register } from '../../shared/identity/account-service';
import { accountTargetFields, newPasswordSchema, oneAccountTarget, verifyCodeSchema } from '../../shared/identity/schemas';

const body = z
  .object({ ...accountTargetFields, verifyCode: verifyCodeSchema, password: newPasswordSchema })
  .transform(oneAccountTarget);

/** Registers with a password; returns the new user without a token (seed 4.4). */
export const handler = endpoint('POST /api/auth/register', {
  body,
  adapters: { secrets: secretsManagerSource },
  run: ({ body }, ctx) => register(ctx, body.target, body.verifyCode, body.password),
});
