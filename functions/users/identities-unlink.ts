import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { unlinkIdentity } from '../../shared/identity/social/identity-links';
import { providerSchema } from '../../shared/identity/social/schemas';

/** Unlinks the caller's identity of a provider; Apple's token is revoked at Apple. */
export const handler = endpoint('DELETE /api/users/me/identities/{provider}', {
  params: z.object({ provider: providerSchema }),
  response: 'successSchema',
  docs: {
    summary: 'Unlink a sign-in provider',
    description:
      'Refused with 409 `LAST_SIGN_IN_METHOD` when it is the account’s only way in (no e-mail, phone, passkey or other provider); 404 when no identity of the provider is linked. Unlinking Apple revokes Apple’s token. See docs/social-sign-in.md.',
    errors: ['NOT_FOUND', 'LAST_SIGN_IN_METHOD'],
  },
  run: async ({ caller, params }, ctx) => {
    await unlinkIdentity(ctx, caller, params.provider);
    return succeeded('Unlinked.');
  },
});
