import { enableAccount } from '../../shared/admin/admin-service';
import { adminReasonBody, adminUserPath } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support enables a disabled account again; no old session comes back. */
export const handler = adminEndpoint('POST /admin/users/{userId}/enable', {
  params: adminUserPath,
  body: adminReasonBody,
  response: 'adminUserSchema',
  docs: {
    summary: 'Enable a disabled account',
    description: 'Sign-in works again; the sessions and tokens ended by the disable stay ended. Answers the account as it is now.',
    errors: ['NOT_FOUND'],
  },
  run: ({ params }, ctx) => enableAccount(ctx, params.userId),
});
