import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { sessionName } from '../../shared/identity/session-service';
import { clientNameSchema } from '../../shared/identity/session-schemas';
import { googleSignInSchema } from '../../shared/identity/social/schemas';
import { signInWithGoogle } from '../../shared/identity/social/google-sign-in';
import * as z from 'zod/mini';

const body = z.extend(googleSignInSchema, { clientName: z.optional(clientNameSchema) });

export const handler = endpoint('POST /api/auth/google', {
  body,
  response: 'socialSessionSchema',
  docs: {
    summary: 'Sign in with Google',
    description:
      'Verifies Google’s ID token (RS256, issuer, audience and `azp` among the configured client ids, nonce: the SHA-256 hex of the one sent) and opens a session as a code sign-in does: the linked account, the account of its e-mail when Google is authoritative for it (verified, gmail.com or a Workspace domain); an address an account holds that Google is not authoritative for (one `email_verified` false included) is 409 `ACCOUNT_EXISTS_LINK_REQUIRED` and makes nothing; else a new account, with the e-mail only when verified. See docs/social-sign-in.md.',
    errors: ['SOCIAL_CREDENTIAL_INVALID', 'ACCOUNT_DISABLED', 'ACCOUNT_EXISTS_LINK_REQUIRED', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE'],
  },
  run: async ({ body, headers }, ctx) => {
    const { clientName, ...credential } = body;
    return { ...succeeded('Signed in.'), ...(await signInWithGoogle(ctx, credential, sessionName(clientName, headerValue(headers, 'user-agent')))) };
  },
});
