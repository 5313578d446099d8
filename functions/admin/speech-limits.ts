import { setAccountSpeechLimits } from '../../shared/admin/admin-service';
import { adminSpeechLimitsBody, adminUserPath } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support sets an account's own daily and monthly speech limits; they hold from the next start or renewal. */
export const handler = adminEndpoint('PUT /admin/users/{userId}/speech-limits', {
  params: adminUserPath,
  body: adminSpeechLimitsBody,
  response: 'adminUserSchema',
  docs: {
    summary: 'Set the account’s speech limits',
    description:
      'The account’s own limits of speech seconds a day (its time zone’s) and a month, instead of the deployment’s `SPEECH_DAILY_SECONDS` and `SPEECH_MONTHLY_SECONDS`. ' +
      'They hold at once: the next start’s `limits.maxSeconds` and `quota`, the next renewal (403 `SPEECH_QUOTA_EXHAUSTED` once what is used reaches them) and `GET /api/speech/quota`. ' +
      'Minutes already charged stay charged; 0 stops speech for the account. Answers the account as it is now, `speech` with the new limits.',
    errors: ['NOT_FOUND'],
  },
  run: ({ params, body }, ctx) => setAccountSpeechLimits(ctx, params.userId, { dailySeconds: body.dailySeconds, monthlySeconds: body.monthlySeconds }),
});
