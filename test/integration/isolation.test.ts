import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, postEvent, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';
import { SoftwareAuthenticator } from '../support/software-authenticator';

/**
 * A second account sees and changes nothing of the first: not through lists, reads by id, edits,
 * deletes, aggregates or cursors.
 */
let api: LocalApi;
let owner: Account;
let stranger: Account;
let record: any;
const sn = `ISO-${Date.now().toString(36)}`;

beforeAll(async () => {
  api = await startLocalApi();
  [owner, stranger] = await Promise.all([newAccount(api, 'owner'), newAccount(api, 'stranger')]);
  const bound = await api.request('POST', '/api/devices', { token: owner.token, body: { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' } });
  expect(bound.status).toBe(200);
  record = await saveRecord(api, owner, { durationSeconds: 300 });
  await saveRecord(api, owner, { durationSeconds: 1 });
  for (const [type, value] of [
    ['translation_on', 'true'],
    ['voice_provider', 'azure'],
    ['language_choice', 'fr-FR'],
    ['voice_provider', 'google'],
  ] as const) {
    await postEvent(api, owner, type, value);
  }
  expect((await api.request('POST', '/api/behavior/login', { token: owner.token, body: { location: 'Paris' } })).status).toBe(200);
});
afterAll(() => api?.close());

const get = (account: Account, path: string) => api.request('GET', path, { token: account.token });

describe('a second account', () => {
  it.each(['/api/devices', '/api/transcriptions', '/api/transcriptions?q=morning', '/api/transcriptions?language=en-US', '/api/behavior/login', '/api/behavior/translation', '/api/behavior/voice-provider', '/api/behavior/language-choice'])(
    'lists nothing of the first at %s',
    async (path) => {
      expect((await get(owner, path)).body.length).toBeGreaterThan(0);
      const response = await get(stranger, path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    },
  );

  it('sees no usage and no statistics of the first', async () => {
    expect((await get(owner, '/api/transcriptions/usage')).body.totalUsage).toBe(301);
    expect((await get(stranger, '/api/transcriptions/usage')).body).toEqual({ userId: stranger.userId, totalUsage: 0, dailyUsage: [] });
    expect((await get(owner, '/api/behavior/stats')).body.loginCount).toBe(1);
    expect((await get(stranger, '/api/behavior/stats')).body).toEqual({ loginCount: 0, events: [] });
  });

  it('cannot read, edit or delete a record of the first: 404, and the record is unchanged', async () => {
    const id = record.transcriptionRecordId;
    const path = `/api/transcriptions/${id}`;
    for (const response of [
      await api.request('GET', `/api/transcriptions/${id}`, { token: stranger.token }),
      await api.request('PATCH', `/api/transcriptions/${id}`, { token: stranger.token, body: { durationSeconds: 0, text: 'overwritten' } }),
      await api.request('DELETE', `/api/transcriptions/${id}`, { token: stranger.token }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    }
    expect((await get(owner, path)).body).toEqual(record);
    expect((await get(owner, '/api/transcriptions/usage')).body.totalUsage).toBe(301);
    expect((await get(stranger, '/api/transcriptions/usage')).body.totalUsage).toBe(0);
  });

  it('cannot unbind or take over a device of the first', async () => {
    const unbind = await api.request('DELETE', `/api/devices/${sn}`, { token: stranger.token });
    expect(unbind.status).toBe(404);
    const takeOver = await api.request('POST', '/api/devices', {
      token: stranger.token,
      body: { sn, mac: 'AA:BB:CC:DD:EE:FF', productModel: 'Mine' },
    });
    expect(takeOver.status).toBe(400);
    expect(takeOver.body).toMatchObject({ code: 1, error: 'DEVICE_BOUND_ELSEWHERE' });
    expect((await get(owner, '/api/devices')).body).toEqual([expect.objectContaining({ sn, mac: '00:11:22:33:44:55', productModel: 'Glass' })]);
  });

  it('cannot end a session of the first: 404, and the session still works', async () => {
    const [session] = (await get(owner, '/api/auth/sessions')).body;
    const ended = await api.request('DELETE', `/api/auth/sessions/${session.sessionId}`, { token: stranger.token });
    expect(ended.status).toBe(404);
    expect(ended.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    expect((await get(owner, '/api/users/me')).status).toBe(200);
    expect((await get(owner, '/api/auth/sessions')).body).toEqual([session]);
  });

  it('cannot rename or remove a passkey of the first: 404, and the passkey is unchanged', async () => {
    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token: owner.token });
    const response = new SoftwareAuthenticator({ origin: 'http://localhost:8080' }).create(options.body);
    const added = await api.request('POST', '/api/auth/passkeys', { token: owner.token, body: { response, name: 'Phone' } });
    expect(added.status).toBe(200);
    const passkeyId = added.body.passkeyId;
    const before = (await get(owner, '/api/auth/passkeys')).body;
    for (const attempt of [
      await api.request('PATCH', `/api/auth/passkeys/${passkeyId}`, { token: stranger.token, body: { name: 'Mine now' } }),
      await api.request('DELETE', `/api/auth/passkeys/${passkeyId}`, { token: stranger.token }),
    ]) {
      expect(attempt.status).toBe(404);
      expect(attempt.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    }
    expect((await get(owner, '/api/auth/passkeys')).body).toEqual(before);
  });

  it('cannot page through the first account’s lists with its cursors', async () => {
    for (const path of ['/api/transcriptions', '/api/behavior/voice-provider', '/api/transcriptions?q=morning']) {
      const separator = path.includes('?') ? '&' : '?';
      const cursor = (await get(owner, `${path}${separator}limit=1`)).headers.get('x-next-cursor');
      expect(cursor).toBeTruthy();
      const response = await get(stranger, `${path}${separator}cursor=${cursor}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    }
  });

  it('does not change the first account’s statistics by posting its own events', async () => {
    const before = (await get(owner, '/api/behavior/stats')).body;
    await postEvent(api, stranger, 'voice_provider', 'whisper');
    expect((await get(owner, '/api/behavior/stats')).body).toEqual(before);
    expect((await get(stranger, '/api/behavior/stats')).body.events).toEqual([{ eventType: 'voice_provider', count: 1, lastValue: 'whisper' }]);
  });
});
