import { deleteAccount } from '../../shared/accounts/account-deletion-service';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';

/** Deletes the caller's account and all its data; its tokens stop working. */
export const handler = endpoint('DELETE /api/users/me', {
  response: 'successSchema',
  docs: {
    summary: 'Delete your account',
    description: 'Deletes the account and all its data (devices are unbound) and frees its e-mail, phone and serials; its tokens stop working at once.',
  },
  run: async ({ caller }, ctx) => {
    await deleteAccount(ctx, caller);
    return succeeded('Account deleted.');
  },
});
