/**
 * Speech providers (issue 44, docs/speech.md) behind one port: each turns the service's key into a
 * short-lived credential the app streams with (a token, or a signed address), and says where to
 * connect. The keys never leave the server: they are not settings (so never in a log of the
 * settings) but the speech secret in Secrets Manager on AWS (`SPEECH_SECRET_ARN`:
 * `{"azureSpeechKey": "...", "deepgramApiKey": "...", "tencentSecretId": "...", "tencentSecretKey": "..."}`)
 * and environment variables in local mode. Amazon Transcribe has no key: the function's own role
 * signs the address.
 */
import type { SpeechProviderName } from '../config';

export interface SpeechKeys {
  azureSpeechKey?: string;
  deepgramApiKey?: string;
  tencentSecretId?: string;
  tencentSecretKey?: string;
}

const SPEECH_KEY_NAMES = ['azureSpeechKey', 'deepgramApiKey', 'tencentSecretId', 'tencentSecretKey'] as const;

/** The JSON of the Secrets Manager secret: the string fields it names, nothing else. */
export function speechKeysOf(json: string): SpeechKeys {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  return Object.fromEntries(SPEECH_KEY_NAMES.filter((name) => typeof parsed[name] === 'string' && parsed[name] !== '').map((name) => [name, parsed[name] as string]));
}

/** Local mode: AZURE_SPEECH_KEY, DEEPGRAM_API_KEY, TENCENT_SECRET_ID, TENCENT_SECRET_KEY. */
export function localSpeechKeys(env: Record<string, string | undefined>): SpeechKeys {
  const keys: Record<string, string> = {};
  if (env.AZURE_SPEECH_KEY) keys.azureSpeechKey = env.AZURE_SPEECH_KEY;
  if (env.DEEPGRAM_API_KEY) keys.deepgramApiKey = env.DEEPGRAM_API_KEY;
  if (env.TENCENT_SECRET_ID) keys.tencentSecretId = env.TENCENT_SECRET_ID;
  if (env.TENCENT_SECRET_KEY) keys.tencentSecretKey = env.TENCENT_SECRET_KEY;
  return keys;
}

export interface SpeechConnection {
  url: string;
  headers?: Record<string, string>;
  region?: string;
}

export interface CredentialRequest {
  /** The language as records have it (`en-US`); the provider's table knows it. */
  language: string;
  sampleRate: number;
  /** The service's clock. */
  now: Date;
  /** How long the credential should last at least (providers that let us choose are asked for this, no more). */
  ttlSeconds: number;
}

export interface ShortLivedCredential {
  kind: 'token' | 'url';
  value: string;
  expiresAt: Date;
  connect: SpeechConnection;
}

/**
 * Why a provider gave no credential. `key-refused`: the provider answered 401/403 to the service's
 * own key (an operator's problem, alarmed); `missing-key`: this deployment has no key for it.
 * Every reason is a 503 PROVIDER_UNAVAILABLE to the person, who can do nothing about any of them.
 */
export type ProviderFailureReason = 'timeout' | 'unreachable' | 'server-error' | 'key-refused' | 'missing-key' | 'malformed';

export class SpeechProviderFailure extends Error {
  constructor(
    readonly provider: SpeechProviderName,
    readonly reason: ProviderFailureReason,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${reason}`, options);
    this.name = 'SpeechProviderFailure';
  }
}

/** The providers of the deployment: one call, whatever the provider. */
export interface SpeechProviders {
  issue(provider: SpeechProviderName, request: CredentialRequest): Promise<ShortLivedCredential>;
}
