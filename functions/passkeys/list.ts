import { endpoint } from '../../shared/http/endpoint';
import { listAccountPasskeys } from '../../shared/identity/passkey-service';

export const handler = endpoint('GET /api/auth/passkeys', {
  response: 'passkeyListSchema',
  docs: { summary: 'The account’s passkeys', description: 'Oldest first.' },
  run: ({ caller }, ctx) => listAccountPasskeys(ctx, caller),
});
