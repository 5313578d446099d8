import type { Config } from '../../config';
import { providerLanguage } from '../../ports/speech-languages';
import { SpeechProviderFailure } from '../../ports/speech';
import type { CredentialRequest, ShortLivedCredential, SpeechKeys } from '../../ports/speech';
import { callProvider, readBody } from './http';

/** Azure's tokens live 10 minutes, whatever we would like (docs/speech.md). */
export const AZURE_TOKEN_SECONDS = 600;

/** The token endpoint: AZURE_SPEECH_STS_URL, or the region's issueToken. */
export const azureStsUrl = (cfg: Pick<Config, 'AZURE_SPEECH_STS_URL' | 'AZURE_SPEECH_REGION'>): string =>
  cfg.AZURE_SPEECH_STS_URL ?? `https://${cfg.AZURE_SPEECH_REGION}.api.cognitive.microsoft.com/sts/v1.0/issueToken`;

/**
 * Azure Speech: `POST issueToken` with the resource key in `Ocp-Apim-Subscription-Key`; the answer's
 * text is a token the Speech SDK takes (`SpeechConfig.fromAuthorizationToken`) or a WebSocket
 * takes as `Authorization: Bearer`.
 */
export async function azureCredential(cfg: Config, keys: SpeechKeys, request: CredentialRequest): Promise<ShortLivedCredential> {
  if (!keys.azureSpeechKey) throw new SpeechProviderFailure('azure', 'missing-key');
  const response = await callProvider('azure', azureStsUrl(cfg), { method: 'POST', headers: { 'Ocp-Apim-Subscription-Key': keys.azureSpeechKey, 'Content-Length': '0' } }, cfg.SPEECH_PROVIDER_TIMEOUT_MS);
  const token = (await readBody('azure', response, (answer) => answer.text())).trim();
  if (token === '') throw new SpeechProviderFailure('azure', 'malformed');
  const language = providerLanguage('azure', request.language, request.sampleRate)!;
  const region = cfg.AZURE_SPEECH_REGION;
  return {
    kind: 'token',
    value: token,
    expiresAt: new Date(request.now.getTime() + AZURE_TOKEN_SECONDS * 1000),
    connect: {
      url: `wss://${region}.stt.speech.microsoft.com/speech/recognition/conversation/cognitiveservices/v1?language=${encodeURIComponent(language)}&format=detailed`,
      headers: { Authorization: `Bearer ${token}` },
      region,
    },
  };
}
