import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { startProviderStandIns } from '../../infra/local/provider-stand-ins';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { startLocalApi } from './local-api';
import type { LocalApi } from './local-api';

/** Tencent's app id and keys the tests' server signs with (Tencent's addresses are signed locally). */
export const TENCENT = { appId: '1250000000', secretId: 'AKIDtestsecretid0000000000000000', secretKey: 'test-tencent-secret-key-0000000' };
/** The AWS credentials the tests' Transcribe addresses are signed with (the function's, from the environment). */
export const AWS_TEST_CREDENTIALS = { accessKeyId: 'AKIATESTSPEECH000001', secretAccessKey: 'test-speech-secret-access-key-000000000', sessionToken: 'test-session-token' };

/**
 * The local server offering all four speech providers (docs/speech.md), with Azure's token
 * endpoint and Deepgram's grant served by the stand-ins (infra/local/provider-stand-ins.ts), as
 * `npm start` does; `env` overrides (limits, heartbeat). Amazon Transcribe's addresses are signed
 * with AWS_TEST_CREDENTIALS, set in this process's environment as Lambda sets the role's.
 */
export async function startSpeechApi(env: Record<string, string> = {}, options: { logSink?: (line: string) => void } = {}): Promise<{ api: LocalApi; standIns: ProviderStandIns; close(): Promise<void> }> {
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, token: process.env.AWS_SESSION_TOKEN };
  process.env.AWS_ACCESS_KEY_ID = AWS_TEST_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = AWS_TEST_CREDENTIALS.secretAccessKey;
  process.env.AWS_SESSION_TOKEN = AWS_TEST_CREDENTIALS.sessionToken;
  const late: { api?: LocalApi } = {};
  const standIns = await startProviderStandIns({ now: () => late.api?.clock.now().getTime() ?? Date.now() });
  const api = await startLocalApi({
    SPEECH_PROVIDERS: 'azure,deepgram,aws,tencent',
    AZURE_SPEECH_STS_URL: standIns.azureStsUrl,
    AZURE_SPEECH_REGION: 'westeurope',
    AZURE_SPEECH_KEY: standIns.speech.azureKey,
    DEEPGRAM_API_URL: standIns.deepgramUrl,
    DEEPGRAM_API_KEY: standIns.speech.deepgramKey,
    AWS_TRANSCRIBE_REGION: 'eu-west-1',
    TENCENT_ASR_APP_ID: TENCENT.appId,
    TENCENT_SECRET_ID: TENCENT.secretId,
    TENCENT_SECRET_KEY: TENCENT.secretKey,
    SPEECH_PROVIDER_TIMEOUT_MS: '1500',
    ...env,
  }, options);
  late.api = api;
  return {
    api,
    standIns,
    close: async () => {
      await api.close();
      await standIns.close();
      for (const [name, value] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret], ['AWS_SESSION_TOKEN', saved.token]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}

/** For one test file: startSpeechApi before its tests, closed after them. */
export function useSpeechApi(started: (servers: { api: LocalApi; standIns: ProviderStandIns }) => void, env: Record<string, string> = {}, options: { logSink?: (line: string) => void } = {}): void {
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const servers = await startSpeechApi(env, options);
    close = servers.close;
    started(servers);
  });
  afterAll(() => close?.());
}

/** A start's body: a new clientSessionId each time unless given. */
export const startBody = (overrides: Record<string, unknown> = {}) => ({ provider: 'azure', language: 'en-US', clientSessionId: randomUUID(), ...overrides });
