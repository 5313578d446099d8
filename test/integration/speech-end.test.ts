import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';
import { startBody, useSpeechApi } from '../support/speech';

/**
 * POST /api/speech/sessions/{sessionId}/end (issue 44, docs/speech.md): settles the session,
 * repeated answers the same charge, links the record it produced; through the local server over
 * HTTP against DynamoDB Local.
 */
let api: LocalApi;
useSpeechApi((servers) => ({ api } = servers), { SPEECH_HEARTBEAT_SECONDS: '5' });

const start = async (account: Account) => {
  const response = await api.request('POST', '/api/speech/sessions', { token: account.token, body: startBody({ provider: 'tencent' }) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.sessionId as string;
};
const end = (account: Account, sessionId: string, body: Record<string, unknown>) => api.request('POST', `/api/speech/sessions/${sessionId}/end`, { token: account.token, body });

describe('POST /api/speech/sessions/{sessionId}/end', () => {
  it('settles the session by the service’s clock and answers the same charge when repeated; the export lists it with its record', async () => {
    const owner = await newAccount(api, 'end');
    api.clock.freeze(new Date());
    onTestFinished(() => api.clock.reset());
    const sessionId = await start(owner);
    api.clock.advance(4);
    const clientRecordId = randomUUID();
    const first = await end(owner, sessionId, { elapsedSeconds: 3.5, clientRecordId });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ sessionId, chargedSeconds: 4, quota: { day: { usedSeconds: 4 }, liveSessions: 0 } });
    api.clock.advance(30);
    const again = await end(owner, sessionId, { elapsedSeconds: 100 });
    expect(again.status).toBe(200);
    expect(again.body.chargedSeconds).toBe(4);
    expect(again.body.quota.day.usedSeconds).toBe(4);
    // An ended session renews nothing.
    expect((await api.request('POST', `/api/speech/sessions/${sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 40 } })).body.error).toBe('SPEECH_SESSION_ENDED');
    const exported = await api.request('GET', '/api/users/me/export', { token: owner.token });
    expect(exported.body.speechSessions).toEqual([
      { sessionId, provider: 'tencent', language: 'en-US', startedAt: expect.any(String), endedAt: expect.any(String), chargedSeconds: 4, clientRecordId },
    ]);
    expect(JSON.stringify(exported.body)).not.toContain('wss://');
  });

  it('answers 400 naming path.sessionId for a malformed sessionId', async () => {
    const owner = await newAccount(api, 'malformed');
    const response = await end(owner, 'not%20an%20id', { elapsedSeconds: 1 });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.sessionId' })] });
  });

  it('refuses a request without credentials', async () => {
    const response = await api.request('POST', `/api/speech/sessions/${randomUUID()}/end`, { body: { elapsedSeconds: 1 } });
    expect(response.status).toBe(401);
  });

  it("answers 404 for an unknown sessionId and for another account's, which stays as it was", async () => {
    const [owner, stranger] = [await newAccount(api, 'owner'), await newAccount(api, 'stranger')];
    expect((await end(owner, randomUUID(), { elapsedSeconds: 1 })).status).toBe(404);
    const sessionId = await start(owner);
    const response = await end(stranger, sessionId, { elapsedSeconds: 1 });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    expect((await api.request('GET', '/api/speech/quota', { token: owner.token })).body.liveSessions).toBe(1);
    expect((await api.request('POST', `/api/speech/sessions/${sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 1 } })).status).toBe(200);
  });
});
