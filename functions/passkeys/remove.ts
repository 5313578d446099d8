import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { passkeyPathParams } from '../../shared/identity/passkey-schemas';
import { removeAccountPasskey } from '../../shared/identity/passkey-service';

export const handler = endpoint('DELETE /api/auth/passkeys/{passkeyId}', {
  params: passkeyPathParams,
  response: 'successSchema',
  docs: {
    summary: 'Remove a passkey',
    description:
      'From then on it signs no one in. The copy on the person’s devices stays until they delete it there (the app may say so). ' +
      'Not the account’s last way in: with no e-mail, phone or linked Apple, Google or WeChat, another passkey must remain (409 `LAST_SIGN_IN_METHOD`).',
    errors: ['NOT_FOUND', 'LAST_SIGN_IN_METHOD'],
  },
  run: async ({ params, caller }, ctx) => {
    await removeAccountPasskey(ctx, caller, params.passkeyId);
    return succeeded('Passkey removed.');
  },
});
