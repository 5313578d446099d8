import { describe, expect, it, onTestFinished } from 'vitest';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';
import { startBody, startSpeechApi, useSpeechApi } from '../support/speech';

/**
 * POST /api/speech/sessions/{sessionId}/renew (issue 44, docs/speech.md): metering by the
 * service's clock and quotas that hold, with a day's limit of 20 s and a heartbeat of 2 s (the
 * settings), through the local server over HTTP against DynamoDB Local; the clock is the server's
 * movable one.
 */
let api: LocalApi;
useSpeechApi((servers) => ({ api } = servers), { SPEECH_DAILY_SECONDS: '20', SPEECH_HEARTBEAT_SECONDS: '2' });

const start = async (account: Account, overrides: Record<string, unknown> = {}) => {
  const response = await api.request('POST', '/api/speech/sessions', { token: account.token, body: startBody(overrides) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { sessionId: string; credential: { value: string; expiresAt: string }; limits: { maxSeconds: number } };
};
const renew = (account: Account, sessionId: string, elapsedSeconds: number) =>
  api.request('POST', `/api/speech/sessions/${sessionId}/renew`, { token: account.token, body: { elapsedSeconds } });
const quota = async (account: Account) => (await api.request('GET', '/api/speech/quota', { token: account.token })).body;

describe('POST /api/speech/sessions/{sessionId}/renew', () => {
  it('charges the time since the last charge and moves the remainder down; at the day’s limit 403 SPEECH_QUOTA_EXHAUSTED, and the next start is refused until the person’s next local midnight', async () => {
    const owner = await newAccount(api, 'quota');
    expect((await api.request('PATCH', '/api/users/me', { token: owner.token, body: { timeZone: 'Asia/Shanghai' } })).status).toBe(200);
    const session = await start(owner);
    expect(session.limits.maxSeconds).toBe(20);
    let remaining = 20;
    for (let elapsed = 2; elapsed < 20; elapsed += 2) {
      api.clock.advance(2);
      const renewed = await renew(owner, session.sessionId, elapsed);
      expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
      expect(renewed.body.quota.day.remainingSeconds).toBe(remaining - 2);
      remaining = renewed.body.quota.day.remainingSeconds;
      // Valid for at least another heartbeat.
      expect(Date.parse(renewed.body.credential.expiresAt) - api.clock.now().getTime()).toBeGreaterThanOrEqual(1_000);
    }
    api.clock.advance(2);
    const last = await renew(owner, session.sessionId, 20);
    expect(last.status).toBe(403);
    const now = api.clock.now();
    // Shanghai is UTC+8 all year: its next midnight, computed here without the service's code.
    const local = new Date(now.getTime() + 8 * 3_600_000);
    const midnight = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + 1) - 8 * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    expect(last.body).toMatchObject({ code: 403, error: 'SPEECH_QUOTA_EXHAUSTED', resetsAt: midnight });
    expect(await quota(owner)).toMatchObject({ day: { usedSeconds: 20, remainingSeconds: 0, resetsAt: midnight }, liveSessions: 0 });
    // The session ended with the refusal; the next start is refused with when minutes return.
    expect((await renew(owner, session.sessionId, 22)).body.error).toBe('SPEECH_SESSION_ENDED');
    const next = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody() });
    expect(next.status).toBe(403);
    expect(next.body).toMatchObject({ error: 'SPEECH_QUOTA_EXHAUSTED', resetsAt: midnight });
    // The next local day has its own minutes.
    api.clock.set(new Date(Date.parse(midnight) + 60_000));
    try {
      expect((await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody() })).status).toBe(201);
    } finally {
      api.clock.reset();
    }
  });

  it('two sessions of one person renewing at once end within one heartbeat of the limit, never past it', async () => {
    const owner = await newAccount(api, 'parallel');
    const [a, b] = [await start(owner, { provider: 'tencent' }), await start(owner, { provider: 'deepgram' })];
    const refusedAt: Record<string, number> = {};
    for (let round = 1; round <= 8 && Object.keys(refusedAt).length < 2; round++) {
      api.clock.advance(2);
      const live = [a, b].filter((session) => refusedAt[session.sessionId] === undefined);
      const answers = await Promise.all(live.map((session) => renew(owner, session.sessionId, 2 * round)));
      answers.forEach((answer, index) => {
        if (answer.status === 403) {
          expect(answer.body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
          refusedAt[live[index]!.sessionId] = round;
        } else expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      });
      expect((await quota(owner)).day.usedSeconds).toBeLessThanOrEqual(20);
    }
    // 20 s between two sessions of 2 s a heartbeat: the fifth round reaches it, each ends by the sixth.
    expect(Object.values(refusedAt).every((round) => round >= 5 && round <= 6)).toBe(true);
    expect(Object.keys(refusedAt)).toHaveLength(2);
    expect(await quota(owner)).toMatchObject({ day: { usedSeconds: 20, remainingSeconds: 0 }, liveSessions: 0 });
  });

  it('an app that reports more than the service’s clock is charged the clock; less, never below its last charge; fractions rounded up', async () => {
    const owner = await newAccount(api, 'meter');
    // Stopped, so that the service sees exactly the seconds the test moves it by.
    api.clock.freeze(new Date());
    onTestFinished(() => api.clock.reset());
    const session = await start(owner, { provider: 'tencent' });
    api.clock.advance(2);
    expect((await renew(owner, session.sessionId, 500)).body.quota.day.usedSeconds).toBe(2);
    api.clock.advance(2);
    expect((await renew(owner, session.sessionId, 1)).body.quota.day.usedSeconds).toBe(2);
    api.clock.advance(2);
    expect((await renew(owner, session.sessionId, 4.2)).body.quota.day.usedSeconds).toBe(5);
    const ended = await api.request('POST', `/api/speech/sessions/${session.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 999 } });
    expect(ended.body.chargedSeconds).toBe(6);
  });

  it('a session not renewed within two heartbeats is expired: charged to its last renewal, 409 SPEECH_SESSION_ENDED, and no longer live', async () => {
    const owner = await newAccount(api, 'expiry');
    const session = await start(owner, { provider: 'tencent' });
    api.clock.advance(2);
    expect((await renew(owner, session.sessionId, 2)).status).toBe(200);
    api.clock.advance(5);
    expect((await quota(owner)).liveSessions).toBe(0);
    const late = await renew(owner, session.sessionId, 7);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 409, error: 'SPEECH_SESSION_ENDED' });
    const ended = await api.request('POST', `/api/speech/sessions/${session.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 7 } });
    expect(ended.status).toBe(200);
    expect(ended.body.chargedSeconds).toBe(2);
    expect(ended.body.quota.day.usedSeconds).toBe(2);
  });

  it('keeps the credential held until its renewAfter and hands a new one from then, a heartbeat before the held one expires', async () => {
    const { api: slow, standIns: slowStandIns, close } = await startSpeechApi({ SPEECH_HEARTBEAT_SECONDS: '60' });
    try {
      const owner = await newAccount(slow, 'remint');
      // At a whole second: the answers' times are whole seconds.
      slow.clock.freeze(new Date(Math.floor(Date.now() / 1000) * 1000));
      const started = await slow.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'deepgram' }) });
      const grants = slowStandIns.speech.issued.deepgram.length;
      // 120 s asked: renewAfter a heartbeat before it expires.
      const issued = slow.clock.now().getTime();
      expect(Date.parse(started.body.credential.renewAfter)).toBe(issued + 60_000);
      slow.clock.advance(30);
      const first = await slow.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 30 } });
      // Before renewAfter: the same token.
      expect(first.body.credential.value).toBe(started.body.credential.value);
      // At renewAfter, as an app renewing every heartbeat arrives: a new one (the held one would expire at its next renewal).
      slow.clock.advance(30);
      const second = await slow.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 60 } });
      expect(second.body.credential.value).not.toBe(started.body.credential.value);
      expect(slowStandIns.speech.issued.deepgram.length).toBe(grants + 1);
      expect(second.body.credential.value).toBe(slowStandIns.speech.issued.deepgram.at(-1)!.token);
      expect(Date.parse(second.body.credential.expiresAt) - slow.clock.now().getTime()).toBe(120_000);
      // The provider failing when a new one is needed: 503 with the fallbacks, and nothing charged.
      slowStandIns.speech.mode = 'fail';
      slow.clock.advance(61);
      const failed = await slow.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 121 } });
      slowStandIns.speech.mode = 'ok';
      expect(failed.status).toBe(503);
      expect(failed.body).toMatchObject({ error: 'PROVIDER_UNAVAILABLE', fallbackProviders: ['azure', 'aws', 'tencent'] });
      expect((await slow.request('GET', '/api/speech/quota', { token: owner.token })).body.day.usedSeconds).toBe(60);
      const retried = await slow.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 121 } });
      expect(retried.body.quota.day.usedSeconds).toBe(121);
    } finally {
      await close();
    }
  });

  it('the session maximum ends a session', async () => {
    const { api: short, close } = await startSpeechApi({ SPEECH_SESSION_MAX_SECONDS: '4', SPEECH_HEARTBEAT_SECONDS: '2' });
    try {
      const owner = await newAccount(short, 'session-max');
      const started = await short.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) });
      expect(started.body.limits.maxSeconds).toBe(4);
      short.clock.advance(2);
      expect((await short.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 2 } })).status).toBe(200);
      short.clock.advance(2);
      const over = await short.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 4 } });
      expect(over.status).toBe(403);
      expect(over.body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
      const quotaNow = (await short.request('GET', '/api/speech/quota', { token: owner.token })).body;
      expect(quotaNow).toMatchObject({ day: { usedSeconds: 4 }, liveSessions: 0 });
      // A new session may start: the day still has minutes.
      expect((await short.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) })).status).toBe(201);
    } finally {
      await close();
    }
  });

  it('answers 400 naming path.sessionId for a malformed sessionId', async () => {
    const owner = await newAccount(api, 'malformed');
    const response = await api.request('POST', '/api/speech/sessions/not%20an%20id/renew', { token: owner.token, body: { elapsedSeconds: 1 } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.sessionId' })] });
  });

  it('refuses a request without credentials', async () => {
    const response = await api.request('POST', '/api/speech/sessions/00000000-0000-4000-8000-000000000000/renew', { body: { elapsedSeconds: 1 } });
    expect(response.status).toBe(401);
  });

  it("answers 404 for an unknown sessionId and for another account's, which stays as it was", async () => {
    const [owner, stranger] = [await newAccount(api, 'owner'), await newAccount(api, 'stranger')];
    expect((await renew(owner, '00000000-0000-4000-8000-000000000000', 1)).status).toBe(404);
    const session = await start(owner, { provider: 'tencent' });
    api.clock.advance(1);
    const response = await renew(stranger, session.sessionId, 1);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    expect(await quota(owner)).toMatchObject({ day: { usedSeconds: 0 }, liveSessions: 1 });
    expect(await quota(stranger)).toMatchObject({ day: { usedSeconds: 0 }, liveSessions: 0 });
    expect((await renew(owner, session.sessionId, 1)).status).toBe(200);
  });
});
