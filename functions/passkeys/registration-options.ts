import { endpoint } from '../../shared/http/endpoint';
import { registrationOptions } from '../../shared/identity/passkey-service';

export const handler = endpoint('POST /api/auth/passkeys/registration-options', {
  response: 'passkeyCreationOptionsSchema',
  docs: {
    summary: 'Options to add a passkey',
    description:
      'For `navigator.credentials.create({publicKey})` or the platform’s passkey module: a discoverable credential, user verification required, the account’s passkeys excluded. The challenge is valid for 5 minutes, for this account, once.',
    errors: ['PASSKEY_LIMIT_REACHED'],
  },
  run: ({ caller }, ctx) => registrationOptions(ctx, caller),
});
