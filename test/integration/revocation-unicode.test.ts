import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as authorizer } from '../../functions/authorizer/token';
import { latestCode, signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Issue 5: revocation at the authorizer itself (not only in the handlers behind a cached Allow),
 * the same answers for existing and unknown accounts, and Unicode that round-trips exactly.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const METHOD_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/GET/api/users/me';
const authorize = (token: string) =>
  // The real authorizer, serving the local server's context (its table and root secret).
  authorizer.withContext(api.context)({ type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: METHOD_ARN } as APIGatewayTokenAuthorizerEvent);

async function registerWithPassword(email: string, password: string) {
  await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: email } });
  const response = await api.request('POST', '/api/auth/register', { body: { email, verifyCode: latestCode(api, email), password } });
  expect(response.status).toBe(200);
}

describe('token revocation', () => {
  it('a password reset ends old tokens at the authorizer and at any write', async () => {
    const email = uniqueEmail('revoke-reset');
    await registerWithPassword(email, 'first passphrase 1');
    const old = (await api.request('POST', '/api/auth/login', { body: { email, password: 'first passphrase 1' } })).body.token;
    await expect(authorize(old)).resolves.toMatchObject({ principalId: expect.any(String) });

    api.clock.advance(61);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: email } });
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target: email, verifyCode: latestCode(api, email), newPassword: 'second passphrase 2' },
    });
    expect(reset.status).toBe(200);

    await expect(authorize(old)).rejects.toThrow(/^Unauthorized$/);
    const write = await api.request('POST', '/api/devices', { token: old, body: { sn: 'REV-1', mac: 'aa:bb:cc:dd:ee:ff', productModel: 'Glass' } });
    expect(write.status).toBe(401);
    const fresh = (await api.request('POST', '/api/auth/login', { body: { email, password: 'second passphrase 2' } })).body.token;
    await expect(authorize(fresh)).resolves.toMatchObject({ principalId: expect.any(String) });
  });

  it('deleting the account ends its tokens at the authorizer and at any write', async () => {
    const { token } = await signIn(api, uniqueEmail('revoke-delete'));
    expect((await api.request('DELETE', '/api/users/me', { token })).status).toBe(200);
    await expect(authorize(token)).rejects.toThrow(/^Unauthorized$/);
    const write = await api.request('POST', '/api/behavior/events', { token, body: { eventType: 'subtitle_layout', eventValue: 'top' } });
    expect(write.status).toBe(401);
  });
});

describe('no account enumeration', () => {
  it('send and reset answer the same for existing and unknown targets', async () => {
    const existing = uniqueEmail('known');
    await signIn(api, existing);
    api.clock.advance(61);
    const unknown = uniqueEmail('unknown');
    const sendExisting = await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: existing } });
    const sendUnknown = await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: unknown } });
    expect({ status: sendUnknown.status, body: sendUnknown.body }).toEqual({ status: sendExisting.status, body: sendExisting.body });

    const wrongCode = (target: string) =>
      api.request('POST', '/api/auth/password/reset', { body: { target, verifyCode: '000000', newPassword: 'a fine new passphrase' } });
    // A wrong guess for each (the stored codes are random; 000000 matching either is a 1-in-a-million flake).
    const resetExisting = await wrongCode(existing);
    const resetUnknown = await wrongCode(unknown);
    expect({ status: resetUnknown.status, body: resetUnknown.body }).toEqual({ status: resetExisting.status, body: resetExisting.body });
  });
});

describe('Unicode round-trips exactly', () => {
  const samples = ['会议记录：季度总结 📝', '😀👩🏽‍💻🇨🇳 mixed 混合 текст', 'e\u0301 composed vs é precomposed'];

  it('in transcription titles and text, with textLength in code points', async () => {
    const { token } = await signIn(api, uniqueEmail('unicode-records'));
    for (const sample of samples) {
      const created = await api.request('POST', '/api/transcriptions', {
        token,
        body: { recordTitle: sample, text: sample.repeat(3), language: 'zh-CN', durationSeconds: 5 },
      });
      expect(created.status).toBe(200);
      expect(created.body.textLength).toBe([...sample.repeat(3)].length);
      const read = await api.request('GET', `/api/transcriptions/${created.body.transcriptionRecordId}`, { token });
      expect(read.body.recordTitle).toBe(sample);
      expect(read.body.text).toBe(sample.repeat(3));
    }
  });

  it('in login locations and voice provider names, through lists and statistics', async () => {
    const { token } = await signIn(api, uniqueEmail('unicode-events'));
    for (const sample of samples) {
      expect((await api.request('POST', '/api/behavior/login', { token, body: { location: sample } })).status).toBe(200);
      expect((await api.request('POST', '/api/behavior/events', { token, body: { eventType: 'voice_provider', eventValue: sample } })).status).toBe(200);
    }
    const logins = await api.request('GET', '/api/behavior/login', { token });
    expect(logins.body.map((event: { location: string }) => event.location).sort()).toEqual([...samples].sort());
    const providers = await api.request('GET', '/api/behavior/voice-provider', { token });
    expect(providers.body.map((event: { eventValue: string }) => event.eventValue).sort()).toEqual([...samples].sort());
    const stats = await api.request('GET', '/api/behavior/stats', { token });
    const voice = stats.body.events.find((entry: { eventType: string }) => entry.eventType === 'voice_provider');
    expect(voice.lastValue).toBe(samples.at(-1));
  });
});
