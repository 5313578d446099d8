import { endpoint } from '../../shared/http/endpoint';
import { renewSpeechBody, speechSessionParams } from '../../shared/speech/schemas';
import { renewSpeechSession } from '../../shared/speech/session-service';

/** Charges the time since the last charge and hands a credential valid for another heartbeat. */
export const handler = endpoint('POST /api/speech/sessions/{sessionId}/renew', {
  params: speechSessionParams,
  body: renewSpeechBody,
  response: 'speechRenewalSchema',
  docs: {
    summary: 'Renew a speech session (every heartbeat)',
    description:
      'Charges the seconds since the last charge: `elapsedSeconds` as the app counts them, never more than the service saw pass since the start. The credential is the one held until its `renewAfter`, from then a new one (valid for at least another heartbeat). Once the session reaches `maxSeconds`, or the day’s or month’s minutes are spent, 403 `SPEECH_QUOTA_EXHAUSTED`: the session ends, settled. Another account’s session, or none, 404; an ended or expired one (not renewed within two heartbeats) 409 `SPEECH_SESSION_ENDED`.',
    errors: ['ACCOUNT_DISABLED', 'NOT_FOUND', 'SPEECH_SESSION_ENDED', 'SPEECH_QUOTA_EXHAUSTED', 'PROVIDER_UNAVAILABLE'],
  },
  run: ({ params, body, caller }, ctx) => renewSpeechSession(ctx, caller, params.sessionId, body.elapsedSeconds),
});
