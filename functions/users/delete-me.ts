import { deleteAccount } from '../../shared/identity/account-deletion-service';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';

/** Deletes the caller's account at once; its data goes within this request or, if large, shortly after. */
export const handler = endpoint('DELETE /api/users/me', {
  response: 'successSchema',
  docs: {
    summary: 'Delete your account',
    description:
      'Ends the account at once: its tokens stop working and its e-mail, phone and serials are free (the same e-mail or phone may sign up again ' +
      'at once, as a new account). Its data (devices, records, usage, events, sessions) is removed within this request while time allows, and ' +
      'by a scheduled job within minutes otherwise; the answer is 200 either way and never waits on the size of the history.',
  },
  run: async ({ caller }, ctx) => {
    const { purgeFinished } = await deleteAccount(ctx, caller);
    return succeeded(purgeFinished ? 'Account deleted.' : 'Account deleted; the rest of its data is being removed.');
  },
});
