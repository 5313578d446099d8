import { describe, expect, it } from 'vitest';
import { adminHelpers } from '../support/admin';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';
import { startBody, useSpeechApi } from '../support/speech';

/**
 * PUT /admin/users/{userId}/speech-limits (issue 44): support sets an account's own daily and
 * monthly speech limits, audited, and they hold at once: the next start's `limits.maxSeconds` and
 * `quota`, the next renewal and the quota; the admin view shows the minutes used and the limits.
 * Through the local server over HTTP against DynamoDB Local, signed as the support CLI signs.
 */
let api: LocalApi;
let admin: ReturnType<typeof adminHelpers>;
useSpeechApi(
  (servers) => {
    ({ api } = servers);
    admin = adminHelpers(api);
  },
  { SPEECH_DAILY_SECONDS: '600', SPEECH_MONTHLY_SECONDS: '3000', SPEECH_HEARTBEAT_SECONDS: '10' },
);
const REASON = 'Ticket 4711: more minutes for a conference';

const setLimits = (userId: number | string, body: Record<string, unknown>) => admin.call({ method: 'PUT', path: `/admin/users/${userId}/speech-limits`, body });
const start = (account: Account) => api.request('POST', '/api/speech/sessions', { token: account.token, body: startBody({ provider: 'tencent' }) });

describe('PUT /admin/users/{userId}/speech-limits', () => {
  it('holds at once: the next start answers the new maxSeconds and quota, the view and the quota show them, the audit trail has the change', async () => {
    const owner = await newAccount(api, 'speech-limits');
    const before = await start(owner);
    expect(before.status).toBe(201);
    expect(before.body.limits.maxSeconds).toBe(600);
    api.clock.advance(5);
    expect((await api.request('POST', `/api/speech/sessions/${before.body.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 5 } })).status).toBe(200);

    const set = await setLimits(owner.userId, { dailySeconds: 120, monthlySeconds: 900, reason: REASON });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.speech).toMatchObject({
      day: { usedSeconds: 5, limitSeconds: 120, remainingSeconds: 115 },
      month: { usedSeconds: 5, limitSeconds: 900, remainingSeconds: 895 },
      liveSessions: 0,
      ownLimits: true,
    });

    const after = await start(owner);
    expect(after.status).toBe(201);
    expect(after.body.limits.maxSeconds).toBe(115);
    expect(after.body.quota.day).toMatchObject({ limitSeconds: 120, remainingSeconds: 115 });
    expect(after.body.quota.month).toMatchObject({ limitSeconds: 900, remainingSeconds: 895 });
    expect((await api.request('GET', '/api/speech/quota', { token: owner.token })).body.day.limitSeconds).toBe(120);

    // The admin view (find) shows today's and this month's minutes and the account's limits, the live session too.
    const found = await admin.find({ userId: String(owner.userId) });
    expect(found.body.speech).toMatchObject({ day: { usedSeconds: 5, limitSeconds: 120 }, month: { usedSeconds: 5, limitSeconds: 900 }, liveSessions: 1, ownLimits: true });

    // Newest first: the lookup above, then the change with its reason.
    const audit = await admin.audit({ userId: String(owner.userId) });
    expect(audit.body.map((entry: { operation: string }) => entry.operation)).toEqual(['GET /admin/users', 'PUT /admin/users/{userId}/speech-limits']);
    expect(audit.body[1]).toMatchObject({ userId: owner.userId, reason: REASON, status: 200, actorKind: 'local' });
  });

  it('a limit lowered below what is used: the live session’s next renewal and the next start answer 403 SPEECH_QUOTA_EXHAUSTED', async () => {
    const owner = await newAccount(api, 'speech-limits-spent');
    const live = await start(owner);
    api.clock.advance(8);
    expect((await api.request('POST', `/api/speech/sessions/${live.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 8 } })).status).toBe(200);

    expect((await setLimits(owner.userId, { dailySeconds: 8, monthlySeconds: 3000, reason: REASON })).status).toBe(200);
    api.clock.advance(2);
    const renewed = await api.request('POST', `/api/speech/sessions/${live.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 10 } });
    expect(renewed.status).toBe(403);
    expect(renewed.body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
    const refused = await start(owner);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'SPEECH_QUOTA_EXHAUSTED', resetsAt: expect.any(String) });

    // Raised again: the next start is let through with the new remainder.
    expect((await setLimits(owner.userId, { dailySeconds: 68, monthlySeconds: 3000, reason: REASON })).status).toBe(200);
    const again = await start(owner);
    expect(again.status).toBe(201);
    expect(again.body.limits.maxSeconds).toBe(60);
  });

  it('0 stops speech for the account: the next start is 403', async () => {
    const owner = await newAccount(api, 'speech-limits-zero');
    expect((await setLimits(owner.userId, { dailySeconds: 0, monthlySeconds: 0, reason: REASON })).status).toBe(200);
    expect((await start(owner)).body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
  });

  it('answers 400 naming the field for a limit that is not a whole number within its range, a month below the day, no reason; nothing changes', async () => {
    const owner = await newAccount(api, 'speech-limits-invalid');
    const cases: [Record<string, unknown>, string][] = [
      [{ dailySeconds: -1, monthlySeconds: 600 }, 'body.dailySeconds'],
      [{ dailySeconds: 1.5, monthlySeconds: 600 }, 'body.dailySeconds'],
      [{ dailySeconds: '60', monthlySeconds: 600 }, 'body.dailySeconds'],
      [{ dailySeconds: 86_401, monthlySeconds: 2_678_400 }, 'body.dailySeconds'],
      [{ dailySeconds: 60, monthlySeconds: 2_678_401 }, 'body.monthlySeconds'],
      [{ dailySeconds: 600, monthlySeconds: 599 }, 'body.monthlySeconds'],
      [{ monthlySeconds: 600 }, 'body.dailySeconds'],
      [{ dailySeconds: 60 }, 'body.monthlySeconds'],
    ];
    for (const [limits, path] of cases) {
      const response = await setLimits(owner.userId, { ...limits, reason: REASON });
      expect(response.status, JSON.stringify(limits)).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: expect.arrayContaining([expect.objectContaining({ path })]) });
    }
    const noReason = await setLimits(owner.userId, { dailySeconds: 60, monthlySeconds: 600 });
    expect(noReason.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.reason' })]));
    expect((await admin.find({ userId: String(owner.userId) })).body.speech).toMatchObject({ day: { limitSeconds: 600 }, month: { limitSeconds: 3000 }, ownLimits: false });
  });

  it('answers 400 naming path.userId for a malformed userId', async () => {
    const response = await setLimits('not%20an%20id', { dailySeconds: 60, monthlySeconds: 600, reason: REASON });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.userId' })] });
  });

  it('answers 404 for an unknown or deleted account (audited as such)', async () => {
    const unknown = await setLimits(999_999_999, { dailySeconds: 60, monthlySeconds: 600, reason: REASON });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
    const owner = await newAccount(api, 'speech-limits-deleted');
    expect((await api.request('DELETE', '/api/users/me', { token: owner.token })).status).toBe(200);
    expect((await setLimits(owner.userId, { dailySeconds: 60, monthlySeconds: 600, reason: REASON })).status).toBe(404);
    const audit = await admin.audit({ userId: String(owner.userId) });
    expect(audit.body[0]).toMatchObject({ operation: 'PUT /admin/users/{userId}/speech-limits', status: 404 });
  });

  it('refuses a request without a signature', async () => {
    const response = await api.request('PUT', '/admin/users/1/speech-limits', { body: { dailySeconds: 60, monthlySeconds: 600, reason: REASON } });
    expect(response.status).toBe(403);
  });
});
