import { disableAccount } from '../../shared/admin/admin-service';
import { adminReasonBody, adminUserPath } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support disables an account: signed out everywhere, and no sign-in of any kind until enabled. */
export const handler = adminEndpoint('POST /admin/users/{userId}/disable', {
  params: adminUserPath,
  body: adminReasonBody,
  response: 'adminUserSchema',
  docs: {
    summary: 'Disable an account',
    description:
      'Signed out as by sign-out, and every way in (code, password, passkey, Apple, Google, WeChat, refresh, password reset) answers 403 `ACCOUNT_DISABLED` once the credential is proven; ' +
      'no code is sent to its e-mail or phone. Answers the account as it is now.',
    errors: ['NOT_FOUND'],
  },
  run: ({ params }, ctx) => disableAccount(ctx, params.userId),
});
