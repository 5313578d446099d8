import { endpoint } from '../../shared/http/endpoint';
import { signInOptions } from '../../shared/identity/passkey-sign-in-options';

export const handler = endpoint('POST /api/auth/passkey/options', {
  response: 'passkeyRequestOptionsSchema',
  docs: {
    summary: 'Options to sign in with a passkey',
    description:
      'For `navigator.credentials.get({publicKey})` or the platform’s passkey module. No account is named: the platform offers the person’s passkeys. Writes nothing; the challenge is valid for 5 minutes, once.',
  },
  run: (_input, ctx) => signInOptions(ctx),
});
