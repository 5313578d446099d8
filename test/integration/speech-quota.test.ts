import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { changeStanding, readProfileItem } from '../../shared/db/account-standing-repository';
import { endAccount, resumePendingPurges } from '../../shared/db/account-deletion';
import { findUserById } from '../../shared/db/users-repository';
import { adminHelpers } from '../support/admin';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';
import { startBody, useSpeechApi } from '../support/speech';

/**
 * GET /api/speech/quota (issue 44, docs/speech.md), and where speech meets the account's other
 * features: the summary carries the quota, a disabled account starts and renews nothing, deleting
 * the account removes its sessions and counters. Through the local server over HTTP against
 * DynamoDB Local.
 */
let api: LocalApi;
useSpeechApi((servers) => ({ api } = servers), { SPEECH_DAILY_SECONDS: '600', SPEECH_MONTHLY_SECONDS: '3000', SPEECH_HEARTBEAT_SECONDS: '10' });

const quota = (account: Account) => api.request('GET', '/api/speech/quota', { token: account.token });

describe('GET /api/speech/quota', () => {
  it('answers the day and month of the account’s time zone, with limits, remainders and resets; the summary carries the same', async () => {
    const owner = await newAccount(api, 'quota');
    expect((await api.request('PATCH', '/api/users/me', { token: owner.token, body: { timeZone: 'America/New_York' } })).status).toBe(200);
    // 03:30 UTC on 2 March is still 1 March in New York (UTC-5): that day and month are counted.
    api.clock.set(new Date('2026-03-02T03:30:00Z'));
    try {
      const started = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) });
      api.clock.advance(9);
      await api.request('POST', `/api/speech/sessions/${started.body.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 9 } });
      const response = await quota(owner);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        day: { date: '2026-03-01', usedSeconds: 9, limitSeconds: 600, remainingSeconds: 591, resetsAt: '2026-03-02T05:00:00Z' },
        month: { date: '2026-03', usedSeconds: 9, limitSeconds: 3000, remainingSeconds: 2991, resetsAt: '2026-04-01T04:00:00Z' },
        sessionMaxSeconds: 14_400,
        liveSessions: 0,
      });
      const summary = await api.request('GET', '/api/users/me/summary', { token: owner.token });
      expect(summary.body.speech).toEqual(response.body);
    } finally {
      api.clock.reset();
    }
  });

  it('refuses a request without credentials', async () => {
    expect((await api.request('GET', '/api/speech/quota')).status).toBe(401);
  });
});

describe('speech and the account', () => {
  it('a disabled account starts and renews nothing: 403 ACCOUNT_DISABLED at once, with the token still allowed', async () => {
    const owner = await newAccount(api, 'disabled');
    const started = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) });
    expect(started.status).toBe(201);
    const profile = await readProfileItem(api.db, owner.userId);
    await changeStanding(api.db, profile!, { disable: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
    const renewed = await api.request('POST', `/api/speech/sessions/${started.body.sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 1 } });
    expect(renewed.status).toBe(403);
    expect(renewed.body.error).toBe('ACCOUNT_DISABLED');
    const again = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) });
    expect(again.status).toBe(403);
    expect(again.body.error).toBe('ACCOUNT_DISABLED');
  });

  it('deleting the account removes its sessions and counters', async () => {
    const owner = await newAccount(api, 'deleted');
    const started = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) });
    api.clock.advance(2);
    await api.request('POST', `/api/speech/sessions/${started.body.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 2 } });
    const speechItems = async () =>
      (
        await api.db.client.send(
          new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :speech)', ExpressionAttributeValues: { ':pk': `USER#${owner.userId}`, ':speech': 'SPEECH#' } }),
        )
      ).Items ?? [];
    expect((await speechItems()).length).toBeGreaterThanOrEqual(4);
    expect((await api.request('DELETE', '/api/users/me', { token: owner.token })).status).toBe(200);
    expect(await speechItems()).toEqual([]);
  });

  it('support\'s deletion and the purge job remove the sessions, the counters and the limits support set, a live session among them', async () => {
    const admin = adminHelpers(api);
    const withSpeech = async (name: string) => {
      const owner = await newAccount(api, name);
      const ended = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) });
      api.clock.advance(2);
      expect((await api.request('POST', `/api/speech/sessions/${ended.body.sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 2 } })).status).toBe(200);
      expect((await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) })).status).toBe(201);
      expect((await admin.call({ method: 'PUT', path: `/admin/users/${owner.userId}/speech-limits`, body: { dailySeconds: 60, monthlySeconds: 600, reason: 'Ticket 4711' } })).status).toBe(200);
      return owner;
    };
    const itemsOf = async (userId: number) =>
      (
        await api.db.client.send(
          new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :speech)', ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':speech': 'SPEECH#' } }),
        )
      ).Items ?? [];

    const bySupport = await withSpeech('deleted-by-support');
    // Two sessions and their client ids, the day, the month and the state (with the limits).
    expect((await itemsOf(bySupport.userId)).length).toBeGreaterThanOrEqual(7);
    expect((await admin.remove(bySupport.userId)).status).toBe(200);
    expect(await itemsOf(bySupport.userId)).toEqual([]);

    // An account ended whose purge was left to the job (a budget spent, a crash): the job removes its speech too.
    const pending = await withSpeech('purged-by-job');
    const user = (await findUserById(api.db, pending.userId))!;
    await endAccount(api.db, user, user, new Date().toISOString());
    expect((await itemsOf(pending.userId)).length).toBeGreaterThanOrEqual(7);
    expect((await resumePendingPurges(api.db)).purged).toContain(pending.userId);
    expect(await itemsOf(pending.userId)).toEqual([]);
  });
});
