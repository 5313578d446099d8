import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { linkIdentity } from '../../shared/identity/social/identity-links';
import { appleSignInSchema, googleSignInSchema, providerSchema, wechatSignInSchema } from '../../shared/identity/social/schemas';

/** Links the identity the provider's credential proves (the sign-in's body) to the caller's account. */
export const handler = endpoint('POST /api/users/me/identities/{provider}', {
  params: z.object({ provider: providerSchema }),
  body: z.union([appleSignInSchema, googleSignInSchema, wechatSignInSchema]),
  response: 'linkedIdentitySchema',
  docs: {
    summary: 'Link Apple, Google or WeChat to your account',
    description:
      'The body is the provider’s sign-in body (`POST /api/auth/apple`, `/google` or `/wechat`, with a fresh nonce for Apple and Google). Only from a session signed in within the last 10 minutes (else 403 `REAUTHENTICATION_REQUIRED`); an identity linked to another account is 409 `IDENTITY_IN_USE`, another identity of the same provider on this account 409 `PROVIDER_ALREADY_LINKED`; one already linked here is answered as it is. See docs/social-sign-in.md.',
    errors: ['REAUTHENTICATION_REQUIRED', 'SOCIAL_CREDENTIAL_INVALID', 'IDENTITY_IN_USE', 'PROVIDER_ALREADY_LINKED', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE'],
  },
  run: ({ caller, params, body }, ctx) => linkIdentity(ctx, caller, params.provider, body),
});
