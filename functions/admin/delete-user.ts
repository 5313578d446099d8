import { deleteAccountForSupport } from '../../shared/admin/admin-service';
import { adminReasonBody, adminUserPath } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';
import { succeeded } from '../../shared/http/response';

/** Support deletes an account on an erasure request, exactly as its owner's own deletion does. */
export const handler = adminEndpoint('DELETE /admin/users/{userId}', {
  params: adminUserPath,
  body: adminReasonBody,
  response: 'successSchema',
  docs: {
    summary: 'Delete an account (erasure request)',
    description:
      'As `DELETE /api/users/me`: the account ends at once and its data is removed within this request while time allows, by the scheduled job otherwise. ' +
      'Its lookup says `deleting` until then, 404 after. The audit entries stay.',
    errors: ['NOT_FOUND'],
  },
  run: async ({ params }, ctx) => {
    const { purgeFinished } = await deleteAccountForSupport(ctx, params.userId);
    return succeeded(purgeFinished ? 'Account deleted.' : 'Account deleted; the rest of its data is being removed.');
  },
});
