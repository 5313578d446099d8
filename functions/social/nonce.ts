import { endpoint } from '../../shared/http/endpoint';
import { newSocialNonce } from '../../shared/identity/social/nonce-service';

export const handler = endpoint('POST /api/auth/social/nonce', {
  response: 'socialNonceSchema',
  docs: {
    summary: 'A nonce for signing in with Apple or Google',
    description:
      'Give the provider its SHA-256 (lower-case hex) and send the nonce itself with `POST /api/auth/apple` or `POST /api/auth/google`. Signed by the service, writes nothing; valid 10 minutes, once.',
  },
  run: (_input, ctx) => newSocialNonce(ctx),
});
