import type { Config } from '../../config';
import { providerLanguage } from '../../ports/speech-languages';
import { SpeechProviderFailure } from '../../ports/speech';
import type { CredentialRequest, ShortLivedCredential, SpeechKeys } from '../../ports/speech';
import { callProvider, readBody } from './http';

/** Deepgram's grant takes 1 to 3600 seconds. */
const DEEPGRAM_TTL = { min: 1, max: 3600 };

/**
 * Deepgram: `POST /v1/auth/grant` with `Authorization: Token <key>` and `{"ttl_seconds": n}`, n no
 * longer than the session needs before its next renewal; the answer's `access_token` opens the
 * listen WebSocket as `Authorization: Bearer`.
 */
export async function deepgramCredential(cfg: Config, keys: SpeechKeys, request: CredentialRequest): Promise<ShortLivedCredential> {
  if (!keys.deepgramApiKey) throw new SpeechProviderFailure('deepgram', 'missing-key');
  const ttl = Math.min(DEEPGRAM_TTL.max, Math.max(DEEPGRAM_TTL.min, Math.ceil(request.ttlSeconds)));
  const response = await callProvider(
    'deepgram',
    `${cfg.DEEPGRAM_API_URL.replace(/\/+$/, '')}/v1/auth/grant`,
    { method: 'POST', headers: { Authorization: `Token ${keys.deepgramApiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ttl_seconds: ttl }) },
    cfg.SPEECH_PROVIDER_TIMEOUT_MS,
  );
  const grant = await readBody('deepgram', response, (answer) => answer.json() as Promise<{ access_token?: unknown; expires_in?: unknown }>);
  if (typeof grant.access_token !== 'string' || grant.access_token === '' || typeof grant.expires_in !== 'number') throw new SpeechProviderFailure('deepgram', 'malformed');
  const query = new URLSearchParams({
    model: 'nova-3',
    language: providerLanguage('deepgram', request.language, request.sampleRate)!,
    encoding: 'linear16',
    sample_rate: String(request.sampleRate),
  });
  return {
    kind: 'token',
    value: grant.access_token,
    expiresAt: new Date(request.now.getTime() + grant.expires_in * 1000),
    connect: { url: `wss://api.deepgram.com/v1/listen?${query.toString()}`, headers: { Authorization: `Bearer ${grant.access_token}` } },
  };
}
