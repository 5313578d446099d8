import { unlockAccount } from '../../shared/admin/admin-service';
import { adminReasonBody, adminUserPath } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support clears an account's password-login lock; the password and the sessions stay. */
export const handler = adminEndpoint('POST /admin/users/{userId}/unlock', {
  params: adminUserPath,
  body: adminReasonBody,
  response: 'adminUserSchema',
  docs: {
    summary: 'Clear the password-login lock',
    description: 'The lock and the failed attempts go at once; the password and the sessions are unchanged. Answers the account as it is now.',
    errors: ['NOT_FOUND'],
  },
  run: ({ params }, ctx) => unlockAccount(ctx, params.userId),
});
