import { createHmac, randomUUID } from 'node:crypto';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { speechKeys } from '../../shared/db/keys';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';
import { AWS_TEST_CREDENTIALS, TENCENT, startBody, startSpeechApi, useSpeechApi } from '../support/speech';

/**
 * POST /api/speech/sessions (issue 44, docs/speech.md), through the local server over HTTP against
 * DynamoDB Local, with Azure's token endpoint and Deepgram's grant as stand-ins checking the key as
 * the providers do; Amazon Transcribe's address verified with the SDK's SigV4 signer, Tencent's
 * signature recomputed.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
const logLines: string[] = [];
useSpeechApi((servers) => ({ api, standIns } = servers), { LOG_LEVEL: 'debug' }, { logSink: (line) => logLines.push(line) });

const start = (account: Account, body: Record<string, unknown> = startBody()) => api.request('POST', '/api/speech/sessions', { token: account.token, body });

async function sessionItem(account: Account, sessionId: string) {
  return (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: speechKeys.speechSession(account.userId, sessionId) }))).Item;
}

describe('POST /api/speech/sessions', () => {
  it('answers 201 with an Azure token the stand-in issued for the right key, where to connect, limits and quota', async () => {
    const owner = await newAccount(api, 'azure');
    const response = await start(owner);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const body = response.body;
    expect(body.credential.kind).toBe('token');
    expect(standIns.speech.issued.azure).toContain(body.credential.value);
    expect(body.connect.headers).toEqual({ Authorization: `Bearer ${body.credential.value}` });
    expect(body.connect.url).toMatch(/^wss:\/\/westeurope\.stt\.speech\.microsoft\.com\/.*language=en-US/);
    // Azure's token lives 10 minutes: renewAfter at most 9.
    const issued = Date.parse(body.serverTime);
    expect(Date.parse(body.credential.expiresAt) - issued).toBeLessThanOrEqual(600_000);
    expect(Date.parse(body.credential.renewAfter) - issued).toBeLessThanOrEqual(540_000);
    expect(body.limits).toEqual({ maxSeconds: 7_200, heartbeatSeconds: 60 });
    expect(body.quota).toMatchObject({ day: { usedSeconds: 0, limitSeconds: 7_200, remainingSeconds: 7_200 }, month: { limitSeconds: 108_000 }, sessionMaxSeconds: 14_400, liveSessions: 1 });
    expect(body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('Deepgram: the access token of the grant, asked for no longer than two heartbeats', async () => {
    const owner = await newAccount(api, 'deepgram');
    const response = await start(owner, startBody({ provider: 'deepgram', language: 'en-US', sampleRate: 8000 }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const grant = standIns.speech.issued.deepgram.at(-1)!;
    expect(response.body.credential.value).toBe(grant.token);
    expect(grant.ttlSeconds).toBe(120);
    expect(response.body.connect).toEqual({
      url: 'wss://api.deepgram.com/v1/listen?model=nova-3&language=en-US&encoding=linear16&sample_rate=8000',
      headers: { Authorization: `Bearer ${grant.token}` },
    });
  });

  it('Amazon Transcribe: a presigned address that verifies with the SDK signer and carries the language and rate', async () => {
    const owner = await newAccount(api, 'aws');
    const response = await start(owner, startBody({ provider: 'aws', language: 'zh-CN', sampleRate: 8000 }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.credential.kind).toBe('url');
    const url = new URL(response.body.credential.value);
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('wss://transcribestreaming.eu-west-1.amazonaws.com:8443/stream-transcription-websocket');
    const query = Object.fromEntries(url.searchParams);
    expect(query).toMatchObject({ 'language-code': 'zh-CN', 'media-encoding': 'pcm', 'sample-rate': '8000', 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256', 'X-Amz-Security-Token': AWS_TEST_CREDENTIALS.sessionToken });
    expect(query['X-Amz-Credential']).toMatch(new RegExp(`^${AWS_TEST_CREDENTIALS.accessKeyId}/\\d{8}/eu-west-1/transcribe/aws4_request$`));
    expect(Number(query['X-Amz-Expires'])).toBeLessThanOrEqual(300);
    // Signed again by the SDK's signer from the same request and moment: the same signature.
    const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(query['X-Amz-Date']!)!;
    const signingDate = new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!));
    const signer = new SignatureV4({ service: 'transcribe', region: 'eu-west-1', credentials: AWS_TEST_CREDENTIALS, sha256: Hash.bind(null, 'sha256') });
    const host = 'transcribestreaming.eu-west-1.amazonaws.com:8443';
    const again = await signer.presign(
      { method: 'GET', protocol: 'wss:', hostname: host, path: '/stream-transcription-websocket', query: { 'language-code': 'zh-CN', 'media-encoding': 'pcm', 'sample-rate': '8000' }, headers: { host } },
      { signingDate, expiresIn: Number(query['X-Amz-Expires']) },
    );
    expect(query['X-Amz-Signature']).toBe(again.query!['X-Amz-Signature']);
    const forged = await signer.presign(
      { method: 'GET', protocol: 'wss:', hostname: host, path: '/stream-transcription-websocket', query: { 'language-code': 'en-US', 'media-encoding': 'pcm', 'sample-rate': '8000' }, headers: { host } },
      { signingDate, expiresIn: Number(query['X-Amz-Expires']) },
    );
    expect(query['X-Amz-Signature']).not.toBe(forged.query!['X-Amz-Signature']);
  });

  it('Tencent: the address with the engine of the language, and a signature that recomputes with the secret key', async () => {
    const owner = await newAccount(api, 'tencent');
    const response = await start(owner, startBody({ provider: 'tencent', language: 'zh-CN' }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const value: string = response.body.credential.value;
    expect(value.startsWith(`wss://asr.cloud.tencent.com/asr/v2/${TENCENT.appId}?`)).toBe(true);
    const url = new URL(value);
    const parameters = Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'signature'));
    expect(parameters).toMatchObject({ secretid: TENCENT.secretId, engine_model_type: '16k_zh' });
    expect(Number(parameters.expired)).toBeGreaterThan(Number(parameters.timestamp));
    const signed = `asr.cloud.tencent.com/asr/v2/${TENCENT.appId}?${Object.keys(parameters).sort().map((name) => `${name}=${parameters[name]}`).join('&')}`;
    expect(url.searchParams.get('signature')).toBe(createHmac('sha1', TENCENT.secretKey).update(signed).digest('base64'));
    expect(value).not.toContain(TENCENT.secretKey);
  });

  it('the same clientSessionId and body while live answers the same session (200, Idempotent-Replayed); another body 409 CLIENT_SESSION_ID_REUSED', async () => {
    const owner = await newAccount(api, 'idem');
    const body = startBody();
    const first = await start(owner, body);
    expect(first.status).toBe(201);
    const again = await start(owner, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.sessionId).toBe(first.body.sessionId);
    expect(again.body.credential.value).toBe(first.body.credential.value);
    expect(again.body.quota.liveSessions).toBe(1);
    const other = await start(owner, { ...body, language: 'zh-CN' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 409, error: 'CLIENT_SESSION_ID_REUSED' });
    // Parallel repeats of one new start make one session.
    const parallelBody = startBody({ provider: 'tencent', language: 'en-US' });
    const answers = await Promise.all([start(owner, parallelBody), start(owner, parallelBody), start(owner, parallelBody)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.sessionId)).size).toBe(1);
  });

  it('as many live sessions as SPEECH_CONCURRENT_SESSIONS: 409 SPEECH_SESSIONS_LIMIT, also for parallel starts', async () => {
    const owner = await newAccount(api, 'concurrent');
    const answers = await Promise.all(Array.from({ length: 5 }, () => start(owner, startBody({ provider: 'tencent', language: 'en-US' }))));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => answer.body.error)).toEqual(['SPEECH_SESSIONS_LIMIT', 'SPEECH_SESSIONS_LIMIT', 'SPEECH_SESSIONS_LIMIT']);
    expect((await api.request('GET', '/api/speech/quota', { token: owner.token })).body.liveSessions).toBe(2);
    // Ending one frees its place.
    const live = answers.find((answer) => answer.status === 201)!.body;
    expect((await api.request('POST', `/api/speech/sessions/${live.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 0 } })).status).toBe(200);
    expect((await start(owner, startBody({ provider: 'tencent', language: 'en-US' }))).status).toBe(201);
  });

  it('a language the provider does not serve: 400 LANGUAGE_NOT_SUPPORTED with the configured providers that do; an unknown provider 400 naming body.provider', async () => {
    const owner = await newAccount(api, 'language');
    const response = await start(owner, startBody({ provider: 'deepgram', language: 'zh-CN' }));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'LANGUAGE_NOT_SUPPORTED', supportedProviders: ['azure', 'aws', 'tencent'] });
    const unknown = await start(owner, startBody({ provider: 'whisper' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([expect.objectContaining({ path: 'body.provider' })]);
    const badId = await start(owner, startBody({ clientSessionId: 'ABC' }));
    expect(badId.body.details).toEqual([expect.objectContaining({ path: 'body.clientSessionId' })]);
  });

  it('refuses a request without credentials', async () => {
    const response = await api.request('POST', '/api/speech/sessions', { body: startBody() });
    expect(response.status).toBe(401);
  });

  it('never puts a provider key in an answer or a log line', async () => {
    const owner = await newAccount(api, 'no-keys');
    const bodies: string[] = [];
    for (const body of [startBody(), startBody({ provider: 'deepgram' }), startBody({ provider: 'aws' }), startBody({ provider: 'tencent' })]) {
      const started = await start(owner, body);
      bodies.push(JSON.stringify(started.body));
      const renewed = await api.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 1 } });
      bodies.push(JSON.stringify(renewed.body));
      await api.request('POST', `/api/speech/sessions/${started.body.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 1 } });
    }
    standIns.speech.mode = 'fail';
    try {
      bodies.push(JSON.stringify((await start(owner, startBody())).body));
    } finally {
      standIns.speech.mode = 'ok';
    }
    const secrets = [standIns.speech.azureKey, standIns.speech.deepgramKey, TENCENT.secretKey, AWS_TEST_CREDENTIALS.secretAccessKey];
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      for (const text of [...bodies, ...logLines]) expect(text).not.toContain(secret);
    }
    // Nor the short-lived credentials in the logs.
    for (const token of standIns.speech.issued.azure) for (const line of logLines) expect(line).not.toContain(token);
  });
});

describe('a provider failing', () => {
  it('503 PROVIDER_UNAVAILABLE with Retry-After and fallbackProviders for a 5xx, and nothing is kept', async () => {
    const owner = await newAccount(api, 'provider-5xx');
    standIns.speech.mode = 'fail';
    try {
      const body = startBody({ language: 'en-US' });
      const response = await start(owner, body);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.body).toMatchObject({ code: 503, error: 'PROVIDER_UNAVAILABLE', fallbackProviders: ['deepgram', 'aws', 'tencent'] });
      expect((await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: speechKeys.speechClientSession(owner.userId, body.clientSessionId) }))).Item).toBeUndefined();
      const quota = (await api.request('GET', '/api/speech/quota', { token: owner.token })).body;
      expect(quota.liveSessions).toBe(0);
    } finally {
      standIns.speech.mode = 'ok';
    }
  });

  it('a provider that does not answer: 503 within SPEECH_PROVIDER_TIMEOUT_MS, well inside the function’s 10 s', async () => {
    // A server of its own with a short provider timeout (the shared one allows 1.5 s for a busy machine).
    const timeoutMs = 300;
    const { api: quick, standIns: its, close } = await startSpeechApi({ SPEECH_PROVIDER_TIMEOUT_MS: String(timeoutMs) });
    try {
      const owner = await newAccount(quick, 'provider-hang');
      its.speech.mode = 'hang';
      const began = Date.now();
      const response = await quick.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'deepgram' }) });
      const took = Date.now() - began;
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ error: 'PROVIDER_UNAVAILABLE', fallbackProviders: ['azure', 'aws', 'tencent'] });
      // It waited for the provider's timeout, not a failure at once, and answered well inside the function's 10 s.
      expect(took).toBeGreaterThanOrEqual(timeoutMs * 0.9);
      expect(took).toBeLessThan(10_000);
    } finally {
      its.speech.mode = 'ok';
      await close();
    }
  });

  it('a wrong key at the stand-in: 503 (the person can do nothing about it), counted as a refused key, nothing charged', async () => {
    const { api: other, close } = await startSpeechApi({ AZURE_SPEECH_KEY: 'not-the-key', DEEPGRAM_API_KEY: 'not-the-key-either' });
    try {
      const owner = await newAccount(other, 'wrong-key');
      for (const provider of ['azure', 'deepgram']) {
        const response = await other.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider }) });
        expect(response.status).toBe(503);
        expect(response.body.error).toBe('PROVIDER_UNAVAILABLE');
      }
      expect(other.metrics.summary().filter((total) => total.name === 'SpeechKeysRefused').map((total) => [total.dimensions.provider, total.value])).toEqual([['azure', 1], ['deepgram', 1]]);
      const quota = (await other.request('GET', '/api/speech/quota', { token: owner.token })).body;
      expect(quota).toMatchObject({ day: { usedSeconds: 0 }, liveSessions: 0 });
    } finally {
      await close();
    }
  });

  it('a provider this deployment does not configure: 404 PROVIDER_NOT_CONFIGURED', async () => {
    const { api: other, close } = await startSpeechApi({ SPEECH_PROVIDERS: 'azure' });
    try {
      const owner = await newAccount(other, 'not-configured');
      const response = await other.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent', language: 'zh-CN' }) });
      expect(response.status).toBe(404);
      expect(response.body.error).toBe('PROVIDER_NOT_CONFIGURED');
      const unserved = await other.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'azure', language: 'es-US' }) });
      expect(unserved.body).toMatchObject({ error: 'LANGUAGE_NOT_SUPPORTED', supportedProviders: [] });
    } finally {
      await close();
    }
  });
});

describe('the session item', () => {
  it('keeps no provider key, only the short-lived credential', async () => {
    const owner = await newAccount(api, 'item');
    const started = await start(owner, startBody({ provider: 'tencent', language: 'en-US' }));
    const item = await sessionItem(owner, started.body.sessionId);
    expect(item).toMatchObject({ provider: 'tencent', language: 'en-US', status: 'live', chargedSeconds: 0, clientSessionId: expect.any(String) });
    expect(JSON.stringify(item)).not.toContain(TENCENT.secretKey);
    expect(randomUUID()).not.toBe(started.body.sessionId);
  });
});
