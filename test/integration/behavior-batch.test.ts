import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVENTS_PER_BATCH } from '../../shared/behavior/schemas';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';

/** POST /api/behavior/events/batch: an app's queued interface events in one request, all or none. */
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const batch = (account: Account, body: unknown, key?: string) =>
  api.request('POST', '/api/behavior/events/batch', { token: account.token, body, headers: key === undefined ? {} : { 'Idempotency-Key': key } });
const single = (account: Account, body: Record<string, unknown>) => api.request('POST', '/api/behavior/events', { token: account.token, body });
const stats = async (account: Account) => (await api.request('GET', '/api/behavior/stats', { token: account.token })).body;
const list = async (account: Account, path: string) => (await api.request('GET', path, { token: account.token })).body as { eventId: number; eventValue: string }[];
const statOf = (body: { events: { eventType: string; count: number; lastValue: string }[] }, eventType: string) => body.events.find((entry) => entry.eventType === eventType);

describe('POST /api/behavior/events/batch', () => {
  it('records every event, lists them as single events are, and counts them with the last of each type as its value', async () => {
    const account = await newAccount(api);
    const response = await batch(account, {
      events: [
        { eventType: 'voice_provider', eventValue: 'azure' },
        { eventType: 'translation_on', eventValue: 'true' },
        { eventType: 'voice_provider', eventValue: 'google' },
        { eventType: 'voice_provider', eventValue: 'iflytek' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: '4 events recorded.' });

    // Newest first: the order they were sent, reversed.
    const providers = await list(account, '/api/behavior/voice-provider');
    expect(providers.map((event) => event.eventValue)).toEqual(['iflytek', 'google', 'azure']);
    expect(new Set(providers.map((event) => event.eventId)).size).toBe(3);
    expect(await stats(account)).toEqual({
      loginCount: 0,
      events: [
        { eventType: 'translation_on', count: 1, lastValue: 'true' },
        { eventType: 'voice_provider', count: 3, lastValue: 'iflytek' },
      ],
    });
  });

  it.each([
    ['no events', { events: [] }, 'body.events'],
    [`${MAX_EVENTS_PER_BATCH + 1} events`, { events: Array.from({ length: MAX_EVENTS_PER_BATCH + 1 }, () => ({ eventType: 'translation_on', eventValue: 'true' })) }, 'body.events'],
    ['a bad value in the third event', { events: [{ eventType: 'subtitle_layout', eventValue: 'top' }, { eventType: 'ambient_sound', eventValue: 'enabled' }, { eventType: 'subtitle_layout', eventValue: 'middle' }] }, 'body.events.2.eventValue'],
    ['a login event', { events: [{ eventType: 'translation_on', eventValue: 'true' }, { eventType: 'login', eventValue: 'x' }] }, 'body.events.1.eventType'],
    ['a single event not in a list', { eventType: 'translation_on', eventValue: 'true' }, 'body.events'],
  ])('refuses %s with 400 naming the place, and records none of them', async (_label, body, path) => {
    const account = await newAccount(api);
    const response = await batch(account, body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(response.body.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await stats(account)).toEqual({ loginCount: 0, events: [] });
  });

  it(`takes ${MAX_EVENTS_PER_BATCH} events in one request`, async () => {
    const account = await newAccount(api);
    const events = Array.from({ length: MAX_EVENTS_PER_BATCH }, (_, index) => ({ eventType: 'voice_provider', eventValue: `provider-${index}` }));
    expect((await batch(account, { events })).status).toBe(200);
    expect(statOf(await stats(account), 'voice_provider')).toEqual({ eventType: 'voice_provider', count: MAX_EVENTS_PER_BATCH, lastValue: `provider-${MAX_EVENTS_PER_BATCH - 1}` });
  });

  it('leaves a later value in place for its type only: the batch is counted, and its other types take their values', async () => {
    const account = await newAccount(api);
    // A single event a minute ahead, then a batch stamped a minute earlier (another device's clock ran late).
    api.clock.advance(60);
    expect((await single(account, { eventType: 'subtitle_layout', eventValue: 'top' })).status).toBe(200);
    api.clock.advance(-60);
    const response = await batch(account, {
      events: [
        { eventType: 'subtitle_layout', eventValue: 'bottom' },
        { eventType: 'ambient_sound', eventValue: 'enabled' },
      ],
    });
    expect(response.status).toBe(200);
    const body = await stats(account);
    expect(statOf(body, 'subtitle_layout')).toEqual({ eventType: 'subtitle_layout', count: 2, lastValue: 'top' });
    expect(statOf(body, 'ambient_sound')).toEqual({ eventType: 'ambient_sound', count: 1, lastValue: 'enabled' });
  });

  it('replays a repeat with the same Idempotency-Key and records nothing twice', async () => {
    const account = await newAccount(api);
    const body = { events: [{ eventType: 'volume_detection', eventValue: 'auto' }, { eventType: 'volume_detection', eventValue: 'manual' }] };
    const first = await batch(account, body, 'flush-1');
    const repeat = await batch(account, body, 'flush-1');
    expect(first.status).toBe(200);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(statOf(await stats(account), 'volume_detection')).toMatchObject({ count: 2, lastValue: 'manual' });
  });

  it('counts exactly under parallel batches of one account', async () => {
    const account = await newAccount(api);
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => batch(account, { events: Array.from({ length: 5 }, () => ({ eventType: 'language_choice', eventValue: 'zh-CN' })) })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(200));
    expect(statOf(await stats(account), 'language_choice')?.count).toBe(40);
    expect(await list(account, '/api/behavior/language-choice?limit=100')).toHaveLength(40);
  });

  it('answers 401 without a token', async () => {
    expect((await api.request('POST', '/api/behavior/events/batch', { body: { events: [{ eventType: 'translation_on', eventValue: 'true' }] } })).status).toBe(401);
  });
});
