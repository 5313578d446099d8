import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * `occurredAt` on events (issue 29): an app queues interface choices while offline and sends them
 * later; the choice that happened last, not the one that arrived last, is the type's lastValue in
 * the statistics and the summary. Against DynamoDB Local through the local server.
 */
let api: LocalApi;

beforeAll(async () => {
  // Long-lived tokens, so the clock can move by hours and days without signing in again.
  api = await startLocalApi({ TOKEN_TTL_MS: String(400 * 86_400_000) });
});
afterAll(() => {
  api?.clock.reset();
  return api?.close();
});

const batch = (account: Account, events: Record<string, unknown>[]) =>
  api.request('POST', '/api/behavior/events/batch', { token: account.token, body: { events } });

async function read(account: Account, path: string) {
  const response = await api.request('GET', path, { token: account.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** A new account, then the clock stopped at `moment`: the times the tests expect are exact, whatever the machine's speed. */
async function accountAt(moment: string): Promise<Account> {
  api.clock.set(new Date(Date.parse(moment) - 60_000));
  const account = await newAccount(api, 'occurred');
  api.clock.freeze(new Date(moment));
  return account;
}

describe('occurredAt of events', () => {
  it('an event queued offline at 10:00 and sent at 14:00 does not override one made online at 12:00', async () => {
    const account = await accountAt('2033-05-10T12:00:00Z');
    expect((await batch(account, [{ eventType: 'subtitle_layout', eventValue: 'bottom' }])).status).toBe(200);
    api.clock.freeze(new Date('2033-05-10T14:00:00Z'));
    expect((await batch(account, [{ eventType: 'subtitle_layout', eventValue: 'top', occurredAt: '2033-05-10T10:00:00Z' }])).status).toBe(200);

    expect((await read(account, '/api/behavior/stats')).events).toEqual([{ eventType: 'subtitle_layout', count: 2, lastValue: 'bottom' }]);
    expect((await read(account, '/api/users/me/summary')).settings).toEqual({ subtitle_layout: { value: 'bottom', occurredAt: '2033-05-10T12:00:00Z' } });
  });

  it('lists occurredAt beside createdAt', async () => {
    const account = await accountAt('2033-05-11T14:00:00Z');
    expect(
      (
        await batch(account, [
          { eventType: 'translation_on', eventValue: 'true', occurredAt: '2033-05-11T10:00:00.250Z' },
          { eventType: 'translation_on', eventValue: 'false' },
        ])
      ).status,
    ).toBe(200);
    const listed = await read(account, '/api/behavior/translation');
    expect(listed.map(({ eventValue, createdAt, occurredAt }: any) => ({ eventValue, createdAt, occurredAt }))).toEqual([
      { eventValue: 'false', createdAt: '2033-05-11T14:00:00Z', occurredAt: '2033-05-11T14:00:00Z' },
      { eventValue: 'true', createdAt: '2033-05-11T14:00:00Z', occurredAt: '2033-05-11T10:00:00Z' },
    ]);
    expect((await read(account, '/api/behavior/stats')).events).toEqual([{ eventType: 'translation_on', count: 2, lastValue: 'false' }]);
  });

  it('an offline event later than the last one online becomes lastValue, whatever the order in the batch', async () => {
    const account = await accountAt('2033-05-12T12:00:00Z');
    expect((await batch(account, [{ eventType: 'ambient_sound', eventValue: 'enabled' }])).status).toBe(200);
    api.clock.freeze(new Date('2033-05-12T14:00:00Z'));
    const sent = await batch(account, [
      { eventType: 'ambient_sound', eventValue: 'disabled', occurredAt: '2033-05-12T13:00:00Z' },
      { eventType: 'ambient_sound', eventValue: 'enabled', occurredAt: '2033-05-12T11:00:00Z' },
    ]);
    expect(sent.status).toBe(200);
    expect((await read(account, '/api/behavior/stats')).events).toEqual([{ eventType: 'ambient_sound', count: 3, lastValue: 'disabled' }]);
    expect((await read(account, '/api/users/me/summary')).settings).toEqual({ ambient_sound: { value: 'disabled', occurredAt: '2033-05-12T13:00:00Z' } });
  });

  it.each([
    ['more than 5 minutes in the future', '2033-05-13T12:05:01Z', 'must not be more than 5 minutes in the future'],
    ['more than 30 days ago', '2033-04-13T11:59:59Z', 'must not be more than 30 days ago'],
    ['not a real day', '2033-02-30T10:00:00Z', 'is not a real moment'],
    ['with an offset instead of Z', '2033-05-13T10:00:00+08:00', 'must be ISO 8601 UTC, like 2026-01-29T10:30:00Z'],
    ['a date without a time', '2033-05-13', 'must be ISO 8601 UTC, like 2026-01-29T10:30:00Z'],
  ])('refuses an occurredAt %s with 400 VALIDATION_FAILED and records nothing of the batch', async (_, occurredAt, message) => {
    const account = await accountAt('2033-05-13T12:00:00Z');
    const response = await batch(account, [
      { eventType: 'volume_detection', eventValue: 'auto' },
      { eventType: 'volume_detection', eventValue: 'manual', occurredAt },
    ]);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(response.body.details).toContainEqual({ path: 'body.events.1.occurredAt', message });
    expect((await read(account, '/api/behavior/stats')).events).toEqual([]);
  });

  it('takes the edges: exactly 5 minutes ahead and exactly 30 days back', async () => {
    const account = await accountAt('2033-05-14T12:00:00Z');
    const response = await batch(account, [
      { eventType: 'voice_provider', eventValue: 'old', occurredAt: '2033-04-14T12:00:00Z' },
      { eventType: 'voice_provider', eventValue: 'ahead', occurredAt: '2033-05-14T12:05:00Z' },
    ]);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect((await read(account, '/api/users/me/summary')).settings).toEqual({ voice_provider: { value: 'ahead', occurredAt: '2033-05-14T12:05:00Z' } });
  });

  it('reads an event recorded before occurredAt existed as occurring when it was created, and an earlier offline event leaves its value', async () => {
    const account = await accountAt('2033-05-15T12:00:00Z');
    expect((await batch(account, [{ eventType: 'language_choice', eventValue: 'en-US' }])).status).toBe(200);
    const [stored] = await read(account, '/api/behavior/language-choice');
    // As the item was written before this change: no occurredAt attribute. The statistics item's
    // position was already made of the creation time then.
    await api.db.client.send(
      new UpdateCommand({
        TableName: api.db.tableName,
        Key: keys.event(account.userId, 'language_choice', '2033-05-15T12:00:00.000Z', stored.eventId),
        UpdateExpression: 'REMOVE occurredAt',
        ConditionExpression: 'attribute_exists(occurredAt)',
      }),
    );
    const [old] = await read(account, '/api/behavior/language-choice');
    expect(old).toEqual({ ...stored, occurredAt: '2033-05-15T12:00:00Z' });
    expect(old.occurredAt).toBe(old.createdAt);

    api.clock.freeze(new Date('2033-05-15T15:00:00Z'));
    expect((await batch(account, [{ eventType: 'language_choice', eventValue: 'zh-CN', occurredAt: '2033-05-15T11:00:00Z' }])).status).toBe(200);
    expect((await read(account, '/api/users/me/summary')).settings).toEqual({ language_choice: { value: 'en-US', occurredAt: '2033-05-15T12:00:00Z' } });
    expect((await read(account, '/api/behavior/stats')).events).toEqual([{ eventType: 'language_choice', count: 2, lastValue: 'en-US' }]);
  });
});
