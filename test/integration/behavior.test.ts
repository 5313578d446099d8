import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEvents } from '../../shared/db/events-repository';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, postEvent, walkList } from '../support/resources';
import type { Account } from '../support/resources';

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const login = (account: Account, location: unknown) => api.request('POST', '/api/behavior/login', { token: account.token, body: { location } });
const event = (account: Account, body: Record<string, unknown>) => api.request('POST', '/api/behavior/events', { token: account.token, body });
const list = async (account: Account, path: string) => {
  const response = await api.request('GET', path, { token: account.token });
  expect(response.status).toBe(200);
  return response.body;
};
const stats = async (account: Account) => (await api.request('GET', '/api/behavior/stats', { token: account.token })).body;

describe('POST /api/behavior/login and GET /api/behavior/login', () => {
  it('records login events and lists them newest first with location set and eventValue null', async () => {
    const account = await newAccount(api);
    const first = await login(account, 'Shanghai, China');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ code: 0, message: expect.any(String) });
    api.clock.advance(5);
    expect((await login(account, '北京')).status).toBe(200);
    const events = await list(account, '/api/behavior/login');
    expect(events).toEqual([
      { eventId: expect.any(Number), eventType: 'login', eventValue: null, location: '北京', createdAt: expect.stringMatching(ISO_SECONDS), occurredAt: expect.stringMatching(ISO_SECONDS) },
      { eventId: expect.any(Number), eventType: 'login', eventValue: null, location: 'Shanghai, China', createdAt: expect.stringMatching(ISO_SECONDS), occurredAt: expect.stringMatching(ISO_SECONDS) },
    ]);
    expect(events[0].eventId).not.toBe(events[1].eventId);
    expect(events[0].createdAt > events[1].createdAt).toBe(true);
  });

  it.each([
    ['a missing location', undefined],
    ['an empty location', ''],
    ['a blank location', '   '],
    ['a location of 201 characters', 'x'.repeat(201)],
    ['a numeric location', 42],
  ])('refuses %s with 400', async (_label, location) => {
    const account = await newAccount(api);
    const response = await login(account, location);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(await list(account, '/api/behavior/login')).toEqual([]);
    expect((await stats(account)).loginCount).toBe(0);
  });

  it('answers 401 without a token', async () => {
    expect((await api.request('POST', '/api/behavior/login', { body: { location: 'x' } })).status).toBe(401);
    expect((await api.request('GET', '/api/behavior/login')).status).toBe(401);
  });
});

describe('POST /api/behavior/events', () => {
  it.each([
    ['translation_on', 'true'],
    ['translation_on', 'false'],
    ['voice_provider', 'azure'],
    ['voice_provider', 'p'.repeat(64)],
    ['language_choice', 'zh-CN'],
    ['ambient_sound', 'enabled'],
    ['ambient_sound', 'disabled'],
    ['subtitle_layout', 'top'],
    ['subtitle_layout', 'bottom'],
    ['volume_detection', 'auto'],
    ['volume_detection', 'manual'],
  ])('accepts %s = %s', async (eventType, eventValue) => {
    const account = await newAccount(api);
    const response = await event(account, { eventType, eventValue });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String) });
    expect((await stats(account)).events).toEqual([{ eventType, count: 1, lastValue: eventValue }]);
  });

  it.each([
    ['an unknown eventType', { eventType: 'dark_mode', eventValue: 'on' }, 'body.eventType'],
    ['eventType login', { eventType: 'login', eventValue: 'x' }, 'body.eventType'],
    ['a missing eventType', { eventValue: 'true' }, 'body.eventType'],
    ['a missing eventValue', { eventType: 'translation_on' }, 'body.eventValue'],
    ['translation_on yes', { eventType: 'translation_on', eventValue: 'yes' }, 'body.eventValue'],
    ['translation_on as a boolean', { eventType: 'translation_on', eventValue: true }, 'body.eventValue'],
    ['translation_on TRUE', { eventType: 'translation_on', eventValue: 'TRUE' }, 'body.eventValue'],
    ['an empty voice_provider', { eventType: 'voice_provider', eventValue: '' }, 'body.eventValue'],
    ['a blank voice_provider', { eventType: 'voice_provider', eventValue: '  ' }, 'body.eventValue'],
    ['a voice_provider of 65 characters', { eventType: 'voice_provider', eventValue: 'p'.repeat(65) }, 'body.eventValue'],
    ['language_choice chinese', { eventType: 'language_choice', eventValue: 'chinese' }, 'body.eventValue'],
    ['ambient_sound on', { eventType: 'ambient_sound', eventValue: 'on' }, 'body.eventValue'],
    ['subtitle_layout middle', { eventType: 'subtitle_layout', eventValue: 'middle' }, 'body.eventValue'],
    ['volume_detection loud', { eventType: 'volume_detection', eventValue: 'loud' }, 'body.eventValue'],
  ])('refuses %s with 400 VALIDATION_FAILED and records nothing', async (_label, body, path) => {
    const account = await newAccount(api);
    const response = await event(account, body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(response.body.details.map((detail: any) => detail.path)).toContain(path);
    expect(await stats(account)).toEqual({ loginCount: 0, events: [] });
  });
});

describe('event lists by type', () => {
  it('lists only events of the path’s type, newest first, with location null', async () => {
    const account = await newAccount(api);
    await postEvent(api, account, 'translation_on', 'true');
    api.clock.advance(1);
    await postEvent(api, account, 'voice_provider', 'azure');
    api.clock.advance(1);
    await postEvent(api, account, 'translation_on', 'false');
    api.clock.advance(1);
    await postEvent(api, account, 'language_choice', 'ja-JP');
    await postEvent(api, account, 'ambient_sound', 'enabled');
    expect((await login(account, 'Home')).status).toBe(200);

    const translation = await list(account, '/api/behavior/translation');
    expect(translation.map((entry: any) => [entry.eventType, entry.eventValue, entry.location])).toEqual([
      ['translation_on', 'false', null],
      ['translation_on', 'true', null],
    ]);
    expect(translation[0]).toEqual({
      eventId: expect.any(Number),
      eventType: 'translation_on',
      eventValue: 'false',
      location: null,
      createdAt: expect.stringMatching(ISO_SECONDS),
      occurredAt: expect.stringMatching(ISO_SECONDS),
    });
    expect((await list(account, '/api/behavior/voice-provider')).map((entry: any) => entry.eventValue)).toEqual(['azure']);
    expect((await list(account, '/api/behavior/language-choice')).map((entry: any) => entry.eventValue)).toEqual(['ja-JP']);
    expect((await list(account, '/api/behavior/login')).map((entry: any) => entry.location)).toEqual(['Home']);
    expect((await list(account, '/api/v1/behavior/translation'))).toEqual(translation);
  });

  it('pages every list with limit and cursor', async () => {
    const account = await newAccount(api);
    for (let index = 0; index < 5; index++) await postEvent(api, account, 'voice_provider', `provider-${index}`);
    const pages = await walkList(api, '/api/behavior/voice-provider', account, 2);
    expect(pages.flatMap((page) => page.body.map((entry: any) => entry.eventValue))).toEqual([
      'provider-4',
      'provider-3',
      'provider-2',
      'provider-1',
      'provider-0',
    ]);
  });
});

describe('GET /api/behavior/stats', () => {
  it('is empty for a new account', async () => {
    const account = await newAccount(api);
    expect(await stats(account)).toEqual({ loginCount: 0, events: [] });
  });

  it('counts logins and events per type with the most recent value of each', async () => {
    const account = await newAccount(api);
    for (const location of ['a', 'b', 'c']) expect((await login(account, location)).status).toBe(200);
    await postEvent(api, account, 'translation_on', 'true');
    await postEvent(api, account, 'translation_on', 'false');
    await postEvent(api, account, 'voice_provider', 'google');
    await postEvent(api, account, 'voice_provider', 'azure');
    await postEvent(api, account, 'voice_provider', 'whisper');
    await postEvent(api, account, 'volume_detection', 'manual');
    expect(await stats(account)).toEqual({
      loginCount: 3,
      events: [
        { eventType: 'translation_on', count: 2, lastValue: 'false' },
        { eventType: 'voice_provider', count: 3, lastValue: 'whisper' },
        { eventType: 'volume_detection', count: 1, lastValue: 'manual' },
      ],
    });
  });

  it('stays exact under concurrent posts, with lastValue the value of the newest listed event', async () => {
    const account = await newAccount(api);
    const values = Array.from({ length: 30 }, (_, index) => `provider-${index}`);
    const posts = [
      ...values.map((value) => event(account, { eventType: 'voice_provider', eventValue: value })),
      ...Array.from({ length: 10 }, (_, index) => event(account, { eventType: 'translation_on', eventValue: index % 2 ? 'true' : 'false' })),
      ...Array.from({ length: 10 }, (_, index) => login(account, `place ${index}`)),
    ];
    for (const response of await Promise.all(posts)) expect(response.status, JSON.stringify(response.body)).toBe(200);
    const result = await stats(account);
    const newestProvider = (await list(account, '/api/behavior/voice-provider?limit=1'))[0];
    const newestTranslation = (await list(account, '/api/behavior/translation?limit=1'))[0];
    expect(result).toEqual({
      loginCount: 10,
      events: [
        { eventType: 'translation_on', count: 10, lastValue: newestTranslation.eventValue },
        { eventType: 'voice_provider', count: 30, lastValue: newestProvider.eventValue },
      ],
    });
    const listed = (await walkList(api, '/api/behavior/voice-provider', account, 100)).flatMap((page) => page.body);
    expect(listed.map((entry: any) => entry.eventValue).sort()).toEqual([...values].sort());
  });

  it('counts an event that commits after a later one but keeps the later one’s value', async () => {
    const account = await newAccount(api);
    await postEvent(api, account, 'subtitle_layout', 'bottom');
    // As if a request that started earlier committed only now: its event is positioned earlier.
    const earlier = new Date(api.clock.now().getTime() - 60_000);
    await insertEvents(
      api.db,
      { userId: account.userId, tokenVersion: 0 },
      [
        {
          eventId: 1,
          eventType: 'subtitle_layout',
          eventValue: 'top',
          location: null,
          createdAt: earlier.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          createdAtMs: earlier.toISOString(),
          occurredAt: earlier.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          occurredAtMs: earlier.toISOString(),
        },
      ],
      [],
    );
    expect((await stats(account)).events).toEqual([{ eventType: 'subtitle_layout', count: 2, lastValue: 'bottom' }]);
  });
});
