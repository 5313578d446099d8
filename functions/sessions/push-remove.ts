import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { forgetPushToken } from '../../shared/realtime/push-tokens';

/** Removes the push token of the caller's session: no more silent pushes to this app (docs/realtime.md). */
export const handler = endpoint('DELETE /api/auth/sessions/current/push', {
  response: 'successSchema',
  docs: {
    summary: 'Forget this app\'s push token',
    description: 'No more silent pushes to this app. Repeatable: a session without a token answers 200 too.',
    errors: ['ACCOUNT_DISABLED'],
  },
  run: async ({ caller }, ctx) => {
    await forgetPushToken(ctx, caller);
    return succeeded('Push token removed.');
  },
});
