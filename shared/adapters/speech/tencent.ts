import { createHmac, randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../../config';
import { providerLanguage } from '../../ports/speech-languages';
import { SpeechProviderFailure } from '../../ports/speech';
import type { CredentialRequest, ShortLivedCredential, SpeechKeys } from '../../ports/speech';

export const TENCENT_ASR_HOST = 'asr.cloud.tencent.com';

/**
 * The signature of a Tencent Cloud real-time ASR address: HMAC-SHA1 with the secret key over
 * `asr.cloud.tencent.com/asr/v2/<appid>?` and the parameters sorted by name (`name=value` joined
 * by `&`, values as they are), Base64. Exported for the test that recomputes it.
 */
export function tencentSignature(secretKey: string, appId: string, parameters: Record<string, string>): string {
  const query = Object.keys(parameters)
    .sort()
    .map((name) => `${name}=${parameters[name]}`)
    .join('&');
  return createHmac('sha1', secretKey).update(`${TENCENT_ASR_HOST}/asr/v2/${appId}?${query}`).digest('base64');
}

/**
 * Tencent Cloud real-time ASR: the WebSocket address with the secret id, times, nonce, engine and
 * stream id, signed here with the secret key (no call to Tencent): the address is the credential.
 */
export function tencentCredential(cfg: Config, keys: SpeechKeys, request: CredentialRequest): ShortLivedCredential {
  if (!keys.tencentSecretId || !keys.tencentSecretKey || !cfg.TENCENT_ASR_APP_ID) throw new SpeechProviderFailure('tencent', 'missing-key');
  const timestamp = Math.floor(request.now.getTime() / 1000);
  const expired = timestamp + Math.max(1, Math.ceil(request.ttlSeconds));
  const parameters: Record<string, string> = {
    secretid: keys.tencentSecretId,
    timestamp: String(timestamp),
    expired: String(expired),
    nonce: String(randomInt(1, 2_147_483_647)),
    engine_model_type: providerLanguage('tencent', request.language, request.sampleRate)!,
    voice_id: randomUUID(),
    // 1: PCM, as the app streams it.
    voice_format: '1',
    needvad: '1',
  };
  const signature = tencentSignature(keys.tencentSecretKey, cfg.TENCENT_ASR_APP_ID, parameters);
  const query = Object.keys(parameters)
    .sort()
    .map((name) => `${name}=${encodeURIComponent(parameters[name]!)}`)
    .join('&');
  const url = `wss://${TENCENT_ASR_HOST}/asr/v2/${cfg.TENCENT_ASR_APP_ID}?${query}&signature=${encodeURIComponent(signature)}`;
  return { kind: 'url', value: url, expiresAt: new Date(expired * 1000), connect: { url } };
}
