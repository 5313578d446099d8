import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { sessionName } from '../../shared/identity/session-service';
import { clientNameSchema } from '../../shared/identity/session-schemas';
import { appleSignInSchema } from '../../shared/identity/social/schemas';
import { signInWithApple } from '../../shared/identity/social/apple-sign-in';
import * as z from 'zod/mini';

const body = z.extend(appleSignInSchema, { clientName: z.optional(clientNameSchema) });

export const handler = endpoint('POST /api/auth/apple', {
  body,
  response: 'socialSessionSchema',
  docs: {
    summary: 'Sign in with Apple',
    description:
      'Verifies Apple’s identity token (nonce: the SHA-256 hex of the one sent), exchanges the authorization code, and opens a session as a code sign-in does: the linked account, the account of its e-mail when Apple is authoritative for it; an address an account holds that Apple is not authoritative for (one `email_verified` false included) is 409 `ACCOUNT_EXISTS_LINK_REQUIRED` and makes nothing; else a new account, with the e-mail only when verified. See docs/social-sign-in.md.',
    errors: ['SOCIAL_CREDENTIAL_INVALID', 'ACCOUNT_DISABLED', 'ACCOUNT_EXISTS_LINK_REQUIRED', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE'],
  },
  run: async ({ body, headers }, ctx) => {
    const { clientName, ...credential } = body;
    return { ...succeeded('Signed in.'), ...(await signInWithApple(ctx, credential, sessionName(clientName, headerValue(headers, 'user-agent')))) };
  },
});
