import { deleteAccount } from '../../shared/accounts/account-deletion-service';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';

/** Deletes the caller's account and all its data; its tokens stop working. */
export const handler = endpoint('DELETE /api/users/me', {
  run: async ({ caller }, ctx) => {
    await deleteAccount(ctx, caller);
    return succeeded('Account deleted.');
  },
});
