import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { resetPassword } from '../../shared/identity/account-service';
import { verifyCodeSchema } from '../../shared/identity/code-schemas';
import { newPasswordSchema } from '../../shared/identity/password-schemas';
import { targetSchema } from '../../shared/identity/phone-targets';

const body = z.object({ target: targetSchema, verifyCode: verifyCodeSchema, newPassword: newPasswordSchema });

/** Sets a new password with a code; tokens issued before stop working. */
export const handler = endpoint('POST /api/auth/password/reset', {
  body,
  response: 'successSchema',
  docs: {
    summary: 'Set a new password with a code',
    description: 'The code must have been sent to `target`. Tokens issued before stop working; a login lock is lifted.',
    errors: ['CODE_INVALID', 'CODE_ATTEMPTS_EXCEEDED', 'ACCOUNT_DISABLED'],
  },
  run: async ({ body }, ctx) => {
    await resetPassword(ctx, body.target, body.verifyCode, body.newPassword);
    return succeeded('Password changed.');
  },
});
