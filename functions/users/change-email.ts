import * as z from 'zod/mini';
import { changeTarget } from '../../shared/accounts/profile-service';
import { endpoint } from '../../shared/http/endpoint';
import { verifyCodeSchema } from '../../shared/identity/code-schemas';
import { emailTargetSchema } from '../../shared/identity/targets';

const body = z.object({ email: emailTargetSchema, verifyCode: verifyCodeSchema });

export const handler = endpoint('PUT /api/users/me/email', {
  body,
  response: 'userSchema',
  docs: {
    summary: 'Link or change the e-mail address',
    description: 'With a code sent to the new address by `POST /api/verify-code/send`. The old address is freed for others.',
    errors: ['CODE_INVALID', 'CODE_ATTEMPTS_EXCEEDED', 'ACCOUNT_EXISTS'],
  },
  run: ({ body, caller }, ctx) => changeTarget(ctx, caller, body.email, body.verifyCode),
});
