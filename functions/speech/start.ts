import { endpoint } from '../../shared/http/endpoint';
import { Reply } from '../../shared/http/response';
import { startSpeechBody } from '../../shared/speech/schemas';
import { startSpeechSession } from '../../shared/speech/session-service';

/** Starts a speech session: a short-lived credential of the chosen provider (never its key), where to connect, limits and quota. */
export const handler = endpoint('POST /api/speech/sessions', {
  body: startSpeechBody,
  response: 'speechSessionSchema',
  created: true,
  docs: {
    summary: 'Start a speech session',
    description:
      'Answers a short-lived credential of the provider (`kind: token`, sent as `connect.headers` shows, or `kind: url`, a signed address to open), never the provider’s key; `limits.maxSeconds` is the most the session may be charged, and the app renews it every `limits.heartbeatSeconds`. The same `clientSessionId` with the same body while the session is live answers it again with a credential valid now (`Idempotent-Replayed: true`). Nothing is charged at the start; a provider that fails (503 `PROVIDER_UNAVAILABLE` with `fallbackProviders`) leaves nothing. See docs/speech.md.',
    errors: ['ACCOUNT_DISABLED', 'PROVIDER_NOT_CONFIGURED', 'LANGUAGE_NOT_SUPPORTED', 'SPEECH_QUOTA_EXHAUSTED', 'SPEECH_SESSIONS_LIMIT', 'CLIENT_SESSION_ID_REUSED', 'SPEECH_SESSION_ENDED', 'PROVIDER_UNAVAILABLE'],
  },
  run: async ({ body, caller }, ctx) => {
    const { answer, replayed } = await startSpeechSession(ctx, caller, body);
    return replayed ? new Reply(answer, { 'Idempotent-Replayed': 'true' }) : new Reply(answer, {}, 201);
  },
});
