import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { pushTokenBody } from '../../shared/realtime/push-schemas';
import { keepPushToken } from '../../shared/realtime/push-tokens';

/** Keeps the app's push token on the caller's session, for silent pushes while the app is closed (docs/realtime.md). */
export const handler = endpoint('PUT /api/auth/sessions/current/push', {
  body: pushTokenBody,
  response: 'successSchema',
  docs: {
    summary: 'Keep this app\'s push token',
    description:
      'The session of the caller\'s token keeps the token (one per session: the next replaces it). While this app has no live-channel connection, a change to the account\'s records wakes it with a silent push (APNs background, FCM data message at normal priority), at most one per PUSH_MIN_INTERVAL_SECONDS (20 minutes by default); it then pulls the change feed. Signing out removes the token with the session.',
    errors: ['ACCOUNT_DISABLED'],
  },
  run: async ({ body, caller }, ctx) => {
    await keepPushToken(ctx, caller, body);
    return succeeded('Push token kept.');
  },
});
