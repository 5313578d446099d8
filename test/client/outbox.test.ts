import { describe, expect, it } from 'vitest';
import { OutboxFullError, memoryStorage } from '../../client/src/index';
import type { CaptioningClient, Change, Conflict, LocalRecord } from '../../client/src/index';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient, testClient, useServersBehindFaultProxy } from './support';
import { secondDevice } from './sync-support';

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

/** The service's records as a device reads them (revision and clientRecordId included), newest first. */
const listed = async (client: CaptioningClient) => (await client.api.GET('/transcriptions', { params: { query: { limit: 100 } } })).data! as unknown as LocalRecord[];

describe('the outbox against another device\'s changes', () => {
  /** Two devices of one person holding the same record at revision 1; both report conflicts to `conflicts`. */
  async function twoDevices(conflicts: Conflict[]) {
    const onConflict = (conflict: Conflict) => void conflicts.push(conflict);
    const a = await signedInClient(api, proxy.url, { onConflict });
    const b = await secondDevice(proxy.url, a.storage, { onConflict });
    const saved = await a.client.transcriptions.save({ ...note('Standup'), durationSeconds: 120 });
    await a.client.transcriptions.push();
    const [onB] = await listed(b);
    expect(onB).toMatchObject({ clientRecordId: saved.clientRecordId, revision: 1 });
    return { a: a.client, b, onA: saved, onB: onB! };
  }

  it('sends only its own field again after a 412 when the other device changed another one', async () => {
    const conflicts: Conflict[] = [];
    const { a, b, onA, onB } = await twoDevices(conflicts);
    await a.transcriptions.update(onA, { recordTitle: 'Standup, Monday' });
    await b.transcriptions.update(onB, { text: 'Good morning, everyone.' });
    await a.transcriptions.push();
    // The 412 is merged; the merged change waits until the app was shown the service's record.
    expect(await b.transcriptions.push()).toMatchObject({ sent: 1, count: 1 });
    const applied: Change[] = [];
    await b.transcriptions.pull({ apply: (changes) => void applied.push(...changes) });
    expect(applied[0]).toEqual({ type: 'upsert', pending: true, record: expect.objectContaining({ recordTitle: 'Standup, Monday', text: 'Good morning, everyone.', revision: 2 }) });
    expect(await b.transcriptions.push()).toMatchObject({ sent: 1, count: 0 });
    expect(await listed(a)).toEqual([expect.objectContaining({ recordTitle: 'Standup, Monday', text: 'Good morning, everyone.', revision: 3 })]);
    const patches = proxy.seen.filter((request) => request.method === 'PATCH').map((request) => [request.headers['if-match'], JSON.parse(request.body)]);
    expect(patches).toEqual([
      ['"1"', { recordTitle: 'Standup, Monday' }],
      ['"1"', { text: 'Good morning, everyone.' }],
      ['"2"', { text: 'Good morning, everyone.' }],
    ]);
    expect(conflicts).toEqual([]);
  });

  it('keeps both texts: the service\'s in the record, its own as a conflict copy of no duration, usage counted once', async () => {
    const conflicts: Conflict[] = [];
    const { a, b, onA, onB } = await twoDevices(conflicts);
    await a.transcriptions.update(onA, { text: 'Text from the phone.' });
    await b.transcriptions.update(onB, { text: 'Text from the tablet.' });
    await a.transcriptions.push();
    await b.transcriptions.push();
    expect((await listed(a)).map((record) => [record.recordTitle, record.text, record.durationSeconds])).toEqual([
      ['Standup (conflict copy)', 'Text from the tablet.', 0],
      ['Standup', 'Text from the phone.', 120],
    ]);
    expect(conflicts).toEqual([
      expect.objectContaining({
        type: 'merged',
        record: expect.objectContaining({ text: 'Text from the phone.' }),
        fields: [{ field: 'text', mine: 'Text from the tablet.', theirs: 'Text from the phone.', kept: 'theirs' }],
        copy: expect.objectContaining({ recordTitle: 'Standup (conflict copy)', text: 'Text from the tablet.', durationSeconds: 0 }),
      }),
    ]);
    const { data } = await a.api.GET('/transcriptions/usage', { params: { query: { days: 7 } } });
    expect(data!.totalUsage).toBe(120);
  });

  it('reports an offline edit of a record the other device deleted, with its text, and does not bring it back', async () => {
    const conflicts: Conflict[] = [];
    const { a, b, onA, onB } = await twoDevices(conflicts);
    proxy.offline();
    await a.transcriptions.update(onA, { text: 'Take the dose at three.' });
    proxy.online();
    await b.transcriptions.remove(onB);
    await b.transcriptions.push();
    expect(await a.transcriptions.push()).toMatchObject({ count: 1, problems: 1 });
    expect(conflicts).toEqual([{ type: 'deleted', record: expect.objectContaining({ clientRecordId: onA.clientRecordId, text: 'Take the dose at three.' }) }]);
    expect(await a.transcriptions.pendingProblems()).toEqual([expect.objectContaining({ status: 410, error: 'RECORD_DELETED', record: expect.objectContaining({ text: 'Take the dose at three.' }) })]);
    expect(await listed(a)).toEqual([]);
    expect(proxy.count(creates)).toBe(1);
    await a.transcriptions.discard(onA);
    expect(await a.transcriptions.pending()).toEqual({ count: 0, problems: 0 });
  });

  it('takes a removal answered 410 or 404 as done: the record is gone either way, nothing parks', async () => {
    const { a, b, onA, onB } = await twoDevices([]);
    await b.transcriptions.remove(onB);
    await b.transcriptions.push();
    // Deleted elsewhere: 410 with the tombstone.
    await a.transcriptions.remove(onA);
    expect(await a.transcriptions.push()).toMatchObject({ count: 0, problems: 0 });
    // A tombstone past its retention answers 404.
    const other = await a.transcriptions.save(note('Short-lived'));
    await a.transcriptions.push();
    const [stored] = await listed(a);
    proxy.answer(route('DELETE', `/api/transcriptions/${stored!.transcriptionRecordId}`), 404, 1);
    await a.transcriptions.remove(other);
    expect(await a.transcriptions.push()).toMatchObject({ count: 0, problems: 0 });
    expect(proxy.seen.filter((request) => request.method === 'DELETE').length).toBe(3);
  });

  it('removes a record another device edited since: the removal wins', async () => {
    const { a, b, onA, onB } = await twoDevices([]);
    await b.transcriptions.update(onB, { recordTitle: 'Edited on the tablet' });
    await b.transcriptions.push();
    await a.transcriptions.remove(onA);
    expect(await a.transcriptions.push()).toMatchObject({ count: 0, problems: 0 });
    expect(await listed(b)).toEqual([]);
    expect(proxy.seen.filter((request) => request.method === 'DELETE').map((request) => request.headers['if-match'])).toEqual(['"1"', '"2"']);
  });
});

