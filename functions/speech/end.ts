import { endpoint } from '../../shared/http/endpoint';
import { endSpeechBody, speechSessionParams } from '../../shared/speech/schemas';
import { endSpeechSession } from '../../shared/speech/session-service';

/** Settles a speech session; repeated, the same charge. */
export const handler = endpoint('POST /api/speech/sessions/{sessionId}/end', {
  params: speechSessionParams,
  body: endSpeechBody,
  response: 'speechSessionEndSchema',
  docs: {
    summary: 'End a speech session',
    description:
      'Settles the session: charged `elapsedSeconds` (never more than the service saw pass, never less than its last renewal charged) and ended; `clientRecordId` links it to the record it produced. Safe to repeat: an ended session answers its charge again. A session expired unrenewed answers what its last renewal charged.',
    errors: ['ACCOUNT_DISABLED', 'NOT_FOUND'],
  },
  run: ({ params, body, caller }, ctx) => endSpeechSession(ctx, caller, params.sessionId, body.elapsedSeconds, body.clientRecordId),
});
