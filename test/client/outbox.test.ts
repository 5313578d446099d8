import { describe, expect, it } from 'vitest';
import { OutboxFullError, memoryStorage } from '../../client/src/index';
import type { CaptioningClient } from '../../client/src/index';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient, testClient, useServersBehindFaultProxy } from './support';

/** The records outbox against the real local server, through a proxy that takes the network away. */
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers));

const creates = route('POST', '/api/transcriptions');
const writes = (request: { method: string; path: string }) => request.path.startsWith('/api/transcriptions') && request.method !== 'GET';
const note = (title: string, text = 'Good morning.') => ({ recordTitle: title, text, language: 'en-US', durationSeconds: 60 });

/** The person's records on the service, oldest first. */
async function stored(client: CaptioningClient) {
  const { data } = await client.api.GET('/transcriptions', { params: { query: { limit: 100 } } });
  return [...data!].reverse();
}

/** Pushes until the outbox got through (a push that the offline period stopped ends first). */
async function pushed(client: CaptioningClient) {
  const result = await client.transcriptions.push();
  return result.error ? client.transcriptions.push() : result;
}

describe('the records outbox', () => {
  it('sends a record saved offline and edited 1 000 times as one create of its last state', async () => {
    const { client } = await signedInClient(api, proxy.url);
    proxy.offline();
    let record = await client.transcriptions.save(note('Lecture'));
    expect(record.clientRecordId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (let index = 1; index <= 1000; index++) record = await client.transcriptions.update(record, { text: `Version ${index}.`, durationSeconds: 60 + index });
    expect(await client.transcriptions.pending()).toEqual({ count: 1, problems: 0 });
    proxy.online();
    expect(await pushed(client)).toMatchObject({ count: 0, problems: 0 });
    const sent = proxy.seen.filter(writes);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.body)).toEqual({ ...note('Lecture', 'Version 1000.'), durationSeconds: 1060, clientRecordId: record.clientRecordId });
    expect((await stored(client)).map((saved) => [saved.recordTitle, saved.text])).toEqual([['Lecture', 'Version 1000.']]);
  }, 60_000);

  it('sends nothing for a record saved and removed before it was sent', async () => {
    const { client } = await signedInClient(api, proxy.url);
    proxy.offline();
    const record = await client.transcriptions.save(note('Mistake'));
    await client.transcriptions.update(record, { recordTitle: 'Still a mistake' });
    await client.transcriptions.remove(record);
    expect(await client.transcriptions.pending()).toEqual({ count: 0, problems: 0 });
    proxy.online();
    await pushed(client);
    expect(proxy.seen.filter(writes)).toHaveLength(0);
    expect(await stored(client)).toEqual([]);
  });

  it('keeps what was saved offline across a restart: a new instance on the same storage sends it', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    proxy.offline();
    await client.transcriptions.save(note('On the plane'));
    await client.transcriptions.save(note('In the underground'));
    proxy.online();
    const restarted = testClient(proxy.url, { storage });
    expect(await restarted.transcriptions.pending()).toEqual({ count: 2, problems: 0 });
    expect(await pushed(restarted)).toMatchObject({ count: 0 });
    expect((await stored(restarted)).map((saved) => saved.recordTitle)).toEqual(['On the plane', 'In the underground']);
  });

  it('is stored and counted once when the create\'s answer was lost and it is sent again more than 24 hours later, after restarts', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    proxy.offline();
    const record = await client.transcriptions.save({ ...note('On the plane', 'Cabin crew, prepare for landing.'), durationSeconds: 600 });
    // The app is closed and opened again, online: the service stores the create, every answer is lost.
    proxy.online();
    const restarted = testClient(proxy.url, { storage });
    proxy.loseAnswer(creates, Infinity);
    expect((await restarted.transcriptions.push()).error?.name).toBe('NetworkError');
    expect(proxy.count(creates)).toBeGreaterThan(1);
    proxy.heal();
    // More than a day later (the service's clock, and the age of the client's journaled key): the
    // Idempotency-Key protects nothing any more; the clientRecordId still does.
    api.clock.advance(25 * 3600);
    const journal = JSON.parse((await storage.get('captioning.idempotency')) ?? '{}');
    for (const entry of Object.values(journal) as { at: number }[]) entry.at -= 25 * 3_600_000;
    await storage.set('captioning.idempotency', JSON.stringify(journal));
    const again = testClient(proxy.url, { storage });
    expect(await again.transcriptions.push()).toMatchObject({ count: 0, problems: 0 });
    const sent = proxy.seen.filter(creates);
    expect(new Set(sent.map((request) => JSON.parse(request.body).clientRecordId))).toEqual(new Set([record.clientRecordId]));
    expect(new Set(sent.map((request) => request.headers['idempotency-key'])).size).toBe(2);
    expect((await stored(again)).map((saved) => [saved.recordTitle, saved.clientRecordId])).toEqual([['On the plane', record.clientRecordId]]);
    const { data } = await again.api.GET('/transcriptions/usage', { params: { query: { days: 7 } } });
    expect(data!.totalUsage).toBe(600);
  });

  it('parks a refused save with the service\'s error and sends the 50 behind it', async () => {
    const { client } = await signedInClient(api, proxy.url);
    // The service refuses the first save for good (injected 422); the next 50 are fine.
    proxy.answer((request) => creates(request) && request.body.includes('"Refused"'), 422, 1);
    proxy.offline();
    const refused = await client.transcriptions.save(note('Refused'));
    for (let index = 0; index < 50; index++) await client.transcriptions.save(note(`Note ${index}`));
    proxy.online();
    expect(await pushed(client)).toMatchObject({ count: 1, problems: 1 });
    expect((await stored(client)).map((saved) => saved.recordTitle)).toEqual(Array.from({ length: 50 }, (_, index) => `Note ${index}`));
    const problems = await client.transcriptions.pendingProblems();
    expect(problems).toEqual([{ status: 422, error: 'HTTP_422', message: 'Injected by the test proxy', record: { ...refused, revision: 0 } }]);
    // Tried once, not again by later pushes.
    await client.transcriptions.push();
    expect(proxy.count((request) => creates(request) && request.body.includes('"Refused"'))).toBe(1);
    // The app fixes it: sent again, stored.
    await client.transcriptions.update(refused, { recordTitle: 'Accepted' });
    expect(await pushed(client)).toMatchObject({ count: 0, problems: 0 });
    expect((await stored(client)).at(-1)!.recordTitle).toBe('Accepted');
  }, 60_000);

  it('sends the outbox before logging out, and keeps what could not go for the same person only', async () => {
    const { client, target } = await signedInClient(api, proxy.url);
    await client.transcriptions.save(note('Before logout'));
    await client.auth.logout();
    expect(proxy.count(creates)).toBe(1);
    const storage = memoryStorage();
    const other = await signedInClient(api, proxy.url, { storage });
    proxy.offline();
    await other.client.transcriptions.save(note('Left behind'));
    await other.client.auth.logout();
    proxy.online();
    // Someone else signs in on the same storage: the record waits for its owner.
    const someoneElse = await signedInClient(api, proxy.url, { storage });
    expect(await someoneElse.client.transcriptions.push()).toMatchObject({ sent: 0, count: 1 });
    expect(await stored(someoneElse.client)).toEqual([]);
    expect(target).not.toBe(someoneElse.target);
  });

  it('refuses a save once the outbox holds its most records or bytes, and keeps what it holds', async () => {
    // Not signed in: nothing leaves, the outbox only grows.
    const client = testClient(proxy.url, { storage: memoryStorage(), outbox: { maxRecords: 3, maxBytes: 5_000 } });
    for (let index = 0; index < 3; index++) await client.transcriptions.save(note(`Note ${index}`));
    await expect(client.transcriptions.save(note('One too many'))).rejects.toThrow(OutboxFullError);
    await expect(client.transcriptions.save(note('One too many'))).rejects.toThrow(/3 records wait.*nothing was queued/);
    const small = testClient(proxy.url, { storage: memoryStorage(), outbox: { maxBytes: 5_000 } });
    await small.transcriptions.save(note('Short', 'x'.repeat(2_000)));
    await expect(small.transcriptions.save(note('Long', 'y'.repeat(3_000)))).rejects.toThrow(/5000 bytes/);
    expect(await small.transcriptions.pending()).toEqual({ count: 1, problems: 0 });
    expect(proxy.seen).toHaveLength(0);
  });
});
