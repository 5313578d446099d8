import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Hash } from '@smithy/core/serde';
import { escapeUri } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Config } from '../../config';
import { providerLanguage } from '../../ports/speech-languages';
import { SpeechProviderFailure } from '../../ports/speech';
import type { CredentialRequest, ShortLivedCredential } from '../../ports/speech';

/** Amazon Transcribe accepts a presigned streaming address for at most 5 minutes. */
export const TRANSCRIBE_MAX_EXPIRES_SECONDS = 300;

/** The streaming endpoint's host, port included (it is part of the signed `host`). */
export const transcribeHost = (region: string) => `transcribestreaming.${region}.amazonaws.com:8443`;
export const TRANSCRIBE_PATH = '/stream-transcription-websocket';

/**
 * Amazon Transcribe streaming: the WebSocket address with the language, encoding and rate,
 * presigned with Signature Version 4 (service `transcribe`) by the function's own credentials (the
 * Lambda role's, from the environment Lambda gives it; locally the environment's), with the SDK's
 * signer. No key of ours: only the speech functions' role may start a stream (infra/stack.ts).
 */
export async function transcribeCredential(
  cfg: Config,
  request: CredentialRequest,
  credentials: ReturnType<typeof fromEnv> = fromEnv(),
): Promise<ShortLivedCredential> {
  const region = cfg.AWS_TRANSCRIBE_REGION ?? cfg.AWS_REGION;
  let identity;
  try {
    identity = await credentials();
  } catch (error) {
    throw new SpeechProviderFailure('aws', 'missing-key', { cause: error instanceof Error ? error.name : undefined });
  }
  const expiresIn = Math.min(TRANSCRIBE_MAX_EXPIRES_SECONDS, Math.max(1, Math.ceil(request.ttlSeconds)));
  const signer = new SignatureV4({ service: 'transcribe', region, credentials: identity, sha256: Hash.bind(null, 'sha256') });
  const host = transcribeHost(region);
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'wss:',
      hostname: host,
      path: TRANSCRIBE_PATH,
      query: {
        'language-code': providerLanguage('aws', request.language, request.sampleRate)!,
        'media-encoding': 'pcm',
        'sample-rate': String(request.sampleRate),
      },
      headers: { host },
    },
    { expiresIn, signingDate: request.now },
  );
  const query = Object.entries(signed.query ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${escapeUri(name)}=${escapeUri(String(value))}`)
    .join('&');
  const url = `wss://${host}${TRANSCRIBE_PATH}?${query}`;
  return { kind: 'url', value: url, expiresAt: new Date(request.now.getTime() + expiresIn * 1000), connect: { url, region } };
}
