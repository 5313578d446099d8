import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryStorage } from '../../client/src/index';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient, testClient, useServersBehindFaultProxy } from './support';

/** The offline event queue against the real local server, through a proxy that loses answers. */
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers));
afterEach(() => {
  vi.useRealTimers();
});

const batch = route('POST', '/api/behavior/events/batch');

/** What the service counted for the signed-in person: statistics and the list of one type. */
async function counted(client: Awaited<ReturnType<typeof signedInClient>>['client']) {
  const stats = await client.api.GET('/behavior/stats');
  const languages = await client.api.GET('/behavior/language-choice', { params: { query: { limit: 100 } } });
  const byType: Record<string, any> = Object.fromEntries(stats.data!.events.map((entry) => [entry.eventType, entry]));
  return { byType, languageList: languages.data!.length };
}

describe('the event queue', () => {
  it('sends queued events in batches of at most 50 and empties the queue once they are confirmed', async () => {
    const { client } = await signedInClient(api, proxy.url);
    // Tracked while the flush of the first 50 may already run: none lost, none twice.
    for (let index = 0; index < 120; index++) await client.events.track('language_choice', index % 2 ? 'en-US' : 'zh-CN');
    const result = await client.events.flush();
    expect(result).toMatchObject({ count: 0, dropped: { full: 0, tooOld: 0, invalid: 0 } });
    expect(result.error).toBeUndefined();
    const sizes = proxy.seen.filter(batch).map((request) => JSON.parse(request.body).events.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(50);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(120);
    expect(new Set(proxy.seen.filter(batch).map((request) => request.headers['idempotency-key'])).size).toBe(sizes.length);
    const { byType, languageList } = await counted(client);
    expect(byType.language_choice.count).toBe(120);
    expect(languageList).toBe(100);
  });

  it('flushes by itself once 50 events wait', async () => {
    const { client } = await signedInClient(api, proxy.url);
    for (let index = 0; index < 50; index++) await client.events.track('ambient_sound', 'enabled');
    await vi.waitFor(async () => expect((await client.events.pending()).count).toBe(0), { timeout: 10_000 });
    expect(proxy.count(batch)).toBe(1);
    expect((await counted(client)).byType.ambient_sound.count).toBe(50);
  });

  it('counts every event once when the answer to a stored batch is lost and the batch is sent again', async () => {
    const { client } = await signedInClient(api, proxy.url);
    for (let index = 0; index < 7; index++) await client.events.track('language_choice', 'en-US');
    // The service stores the batch; the answer never arrives; the client sends it again, same key.
    proxy.loseAnswer(batch, 1);
    const result = await client.events.flush();
    expect(result).toMatchObject({ sent: 7, count: 0 });
    const sent = proxy.seen.filter(batch);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers['idempotency-key']).toBe(sent[0]!.headers['idempotency-key']);
    expect(sent[1]!.body).toBe(sent[0]!.body);
    const { byType, languageList } = await counted(client);
    expect(byType.language_choice.count).toBe(7);
    expect(languageList).toBe(7);
  });

  it('keeps a batch whose answers were all lost, with its key, and a new instance on the same storage sends it once', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    for (let index = 0; index < 3; index++) await client.events.track('subtitle_layout', 'top');
    proxy.loseAnswer(batch, Infinity);
    const failed = await client.events.flush();
    expect(failed.error?.name).toBe('NetworkError');
    expect(failed.count).toBe(3);
    proxy.heal();
    // The app restarts: a new instance on the same storage.
    const restarted = testClient(proxy.url, { storage });
    expect((await restarted.events.pending()).count).toBe(3);
    expect(await restarted.events.flush()).toMatchObject({ sent: 3, count: 0 });
    const keys = new Set(proxy.seen.filter(batch).map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect((await counted(restarted)).byType.subtitle_layout.count).toBe(3);
  });

  it('survives a restart while offline: a new instance on the same storage sends what the old one queued', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    proxy.offline();
    await client.events.track('volume_detection', 'manual');
    await client.events.track('translation_on', 'true');
    expect((await client.events.flush()).error?.name).toBe('NetworkError');
    proxy.online();
    const restarted = testClient(proxy.url, { storage });
    expect(await restarted.events.pending()).toMatchObject({ count: 2 });
    expect(await restarted.events.flush()).toMatchObject({ sent: 2, count: 0 });
    const { byType } = await counted(restarted);
    expect(byType.volume_detection).toMatchObject({ count: 1, lastValue: 'manual' });
    expect(byType.translation_on).toMatchObject({ count: 1, lastValue: 'true' });
  });

  it('drops the events of a batch the service refuses as invalid, reports them, and sends the rest', async () => {
    const { client } = await signedInClient(api, proxy.url);
    await client.events.track('subtitle_layout', 'top');
    await client.events.track('subtitle_layout', 'sideways');
    await client.events.track('language_choice', 'zh-CN');
    const result = await client.events.flush();
    expect(result).toMatchObject({ count: 0, sent: 2, dropped: { invalid: 1 }, lastRefusal: { status: 400, error: 'VALIDATION_FAILED', events: 1 } });
    // Refused once, not retried forever.
    expect(proxy.count(batch)).toBe(2);
    const { byType } = await counted(client);
    expect(byType.subtitle_layout).toMatchObject({ count: 1, lastValue: 'top' });
    expect(byType.language_choice.count).toBe(1);
  });

  it('holds at most 1 000 events: the oldest go first and are counted', async () => {
    // Not signed in: nothing can be sent, the queue only grows.
    const client = testClient(proxy.url, { storage: memoryStorage() });
    for (let index = 0; index < 1010; index++) await client.events.track('voice_provider', `provider ${index}`);
    const pending = await client.events.pending();
    expect(pending).toMatchObject({ count: 1000, dropped: { full: 10 } });
    expect(proxy.seen).toHaveLength(0);
  });

  it('drops and counts events older than the service accepts', async () => {
    const { client } = await signedInClient(api, proxy.url);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 31 * 86_400_000);
    await client.events.track('ambient_sound', 'disabled');
    vi.useRealTimers();
    await client.events.track('ambient_sound', 'enabled');
    expect(await client.events.flush()).toMatchObject({ sent: 1, count: 0, dropped: { tooOld: 1 } });
    expect((await counted(client)).byType.ambient_sound).toMatchObject({ count: 1, lastValue: 'enabled' });
  });

  it('sends what is queued before logging out', async () => {
    const { client } = await signedInClient(api, proxy.url);
    await client.events.track('translation_on', 'false');
    const signedIn = await client.api.GET('/behavior/stats');
    await client.auth.logout();
    expect(proxy.count(batch)).toBe(1);
    expect(signedIn.response.status).toBe(200);
  });

  it('keeps an event queued offline before a newer online one from becoming lastValue', async () => {
    const { client } = await signedInClient(api, proxy.url);
    // Offline, the person picks "top": queued with its moment.
    proxy.offline();
    await client.events.track('subtitle_layout', 'top');
    expect((await client.events.flush()).error?.name).toBe('NetworkError');
    proxy.online();
    // Two seconds pass at the service (its clock, which stamps the online event), not a real wait.
    api.clock.advance(2);
    // Later, online, "bottom" is recorded at once; only then does the queue get through.
    const online = await client.api.POST('/behavior/events', { body: { eventType: 'subtitle_layout', eventValue: 'bottom' } });
    expect(online.response.status).toBe(200);
    expect(await client.events.flush()).toMatchObject({ sent: 1, count: 0 });
    const { byType } = await counted(client);
    expect(byType.subtitle_layout).toMatchObject({ count: 2, lastValue: 'bottom' });
    expect((await client.users.summary()).settings.subtitle_layout).toMatchObject({ value: 'bottom' });
  });
});
