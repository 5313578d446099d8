import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { receiveAppleNotification } from '../../shared/identity/social/apple-notifications';

/** What Apple posts: the notification, a JWS signed with Apple's keys. */
const body = z.object({
  payload: z.string().check(z.minLength(1), z.maxLength(8192), z.describe('The notification, a JWS Apple signed (its `events` claim names the event and the person)')),
});

/** Apple's server-to-server notifications for Sign in with Apple (no token: Apple's signature is the credential). */
export const handler = endpoint('POST /api/auth/apple/notifications', {
  body,
  response: 'successSchema',
  docs: {
    summary: "Receive Apple's server-to-server notifications",
    description:
      'The address to give Apple as the Sign in with Apple server-to-server notification endpoint. The `payload` is verified against Apple’s keys (`aud` one of the configured client ids): ' +
      '`consent-revoked` unlinks Apple and ends every session of the account; `account-delete` does the same, and deletes the account when Apple was its only way in; ' +
      '`email-disabled` / `email-enabled` mark the private relay address as not deliverable (no codes are sent to it) or deliverable again. Any other event, or a person ' +
      'no account is linked to, is acknowledged and changes nothing. See docs/social-sign-in.md.',
    errors: ['SOCIAL_CREDENTIAL_INVALID', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE'],
  },
  run: async ({ body }, ctx) => {
    await receiveAppleNotification(ctx, body.payload);
    return succeeded('Notification received.');
  },
});
