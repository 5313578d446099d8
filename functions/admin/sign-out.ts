import { signOutAccount } from '../../shared/admin/admin-service';
import { adminReasonBody, adminUserPath } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support ends every session of an account; its access tokens are refused on their next use. */
export const handler = adminEndpoint('POST /admin/users/{userId}/sign-out', {
  params: adminUserPath,
  body: adminReasonBody,
  response: 'adminUserSchema',
  docs: {
    summary: 'Sign an account out everywhere',
    description: 'Every session ends and every access token of the account is refused on its next use (not after a cache expires). Answers the account as it is now.',
    errors: ['NOT_FOUND'],
  },
  run: ({ params }, ctx) => signOutAccount(ctx, params.userId),
});
