import * as z from 'zod/mini';
import { changeTarget } from '../../shared/accounts/profile-service';
import { endpoint } from '../../shared/http/endpoint';
import { verifyCodeSchema } from '../../shared/identity/code-schemas';
import { phoneTargetSchema } from '../../shared/identity/phone-targets';

const body = z.object({ phone: phoneTargetSchema, verifyCode: verifyCodeSchema });

export const handler = endpoint('PUT /api/users/me/phone', {
  body,
  response: 'userSchema',
  docs: {
    summary: 'Link or change the phone number',
    description: 'With a code sent to the new number by `POST /api/verify-code/send`. The old number is freed for others.',
    errors: ['CODE_INVALID', 'CODE_ATTEMPTS_EXCEEDED', 'ACCOUNT_EXISTS'],
  },
  run: ({ body, caller }, ctx) => changeTarget(ctx, caller, body.phone, body.verifyCode),
});
