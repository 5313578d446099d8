import { describe, expect, it } from 'vitest';
import type { Conflict } from '../../client/src/index';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient } from './support';
import { useServersBehindFaultProxy } from './support';
import { localDatabase, onService, secondDevice, synced } from './sync-support';

/**
 * Two devices of one person keeping their records through the outbox and the change feed, against
 * the real local server, through the fault proxy (issue 36).
 */
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers));

const note = (title: string, text = 'Good morning.', durationSeconds = 60) => ({ recordTitle: title, text, language: 'en-US', durationSeconds });

/**
 * Two devices of one new person, each with its database, both holding one record at revision 1.
 * Either device may send first (each sends by itself a second after an edit): the assertions hold
 * either way.
 */
async function twoDevicesWithOneRecord(conflicts: Conflict[]) {
  const onConflict = (conflict: Conflict) => void conflicts.push(conflict);
  const a = await signedInClient(api, proxy.url, { onConflict });
  const b = await secondDevice(proxy.url, a.storage, { onConflict });
  const dbA = localDatabase();
  const dbB = localDatabase();
  dbA.put(await a.client.transcriptions.save(note('Standup', 'Good morning.', 120)));
  await synced(a.client, dbA);
  await synced(b, dbB);
  const [recordA] = [...dbA.records.values()];
  const [recordB] = [...dbB.records.values()];
  expect(recordA).toMatchObject({ revision: 1 });
  expect(recordB).toEqual(recordA);
  return { a: a.client, b, dbA, dbB, recordA: recordA!, recordB: recordB! };
}

async function usage(client: Awaited<ReturnType<typeof signedInClient>>['client']) {
  const { data } = await client.api.GET('/transcriptions/usage', { params: { query: { days: 7 } } });
  return data!.totalUsage;
}

describe('two devices, one record', () => {
  it('keeps both edits when one device changes the title and the other the text of the same revision', async () => {
    const conflicts: Conflict[] = [];
    const { a, b, dbA, dbB, recordA, recordB } = await twoDevicesWithOneRecord(conflicts);
    dbA.put(await a.transcriptions.update(recordA, { recordTitle: 'Standup, Monday' }));
    dbB.put(await b.transcriptions.update(recordB, { text: 'Good morning, everyone.' }));
    await synced(a, dbA);
    await synced(b, dbB);
    await synced(a, dbA);
    const expected = [{ recordTitle: 'Standup, Monday', text: 'Good morning, everyone.' }];
    expect(dbA.contents()).toEqual(expected);
    expect(dbB.contents()).toEqual(expected);
    expect(await onService(a)).toEqual(expected);
    // The second PATCH met the first one's revision (412) and went again with its own field only.
    const patches = proxy.seen.filter((request) => request.method === 'PATCH').map((request) => [request.headers['if-match'], JSON.parse(request.body)]);
    expect(patches).toHaveLength(3);
    expect(patches.filter(([ifMatch]) => ifMatch === '"1"')).toHaveLength(2);
    expect(patches[2]).toEqual(['"2"', patches[1]![1]]);
    expect(conflicts).toEqual([]);
    expect([...dbA.records.values()][0]).toMatchObject({ revision: 3 });
  });

  it('keeps both texts when both devices change the text: the other one as a conflict copy of no duration, usage counted once', async () => {
    const conflicts: Conflict[] = [];
    const { a, b, dbA, dbB, recordA, recordB } = await twoDevicesWithOneRecord(conflicts);
    dbA.put(await a.transcriptions.update(recordA, { text: 'Text from the phone.' }));
    dbB.put(await b.transcriptions.update(recordB, { text: 'Text from the tablet.' }));
    await synced(a, dbA);
    await synced(b, dbB);
    await synced(a, dbA);
    // The text that reached the service first stays in the record; the other is the copy.
    expect(conflicts).toHaveLength(1);
    const conflict = conflicts[0] as Extract<Conflict, { type: 'merged' }>;
    const [kept, copied] = [conflict.record.text, conflict.copy!.text];
    expect(new Set([kept, copied])).toEqual(new Set(['Text from the phone.', 'Text from the tablet.']));
    expect(conflict).toMatchObject({ fields: [{ field: 'text', mine: copied, theirs: kept, kept: 'theirs' }], copy: { recordTitle: 'Standup (conflict copy)', durationSeconds: 0 } });
    const expected = [
      { recordTitle: 'Standup', text: kept },
      { recordTitle: 'Standup (conflict copy)', text: copied },
    ];
    expect(dbA.contents()).toEqual(expected);
    expect(dbB.contents()).toEqual(expected);
    expect(await onService(a)).toEqual(expected);
    expect(await usage(a)).toBe(120);
  });

  it('lets the later edit of a title win when both devices changed it', async () => {
    const conflicts: Conflict[] = [];
    const { a, b, dbA, dbB, recordA, recordB } = await twoDevicesWithOneRecord(conflicts);
    dbB.put(await b.transcriptions.update(recordB, { recordTitle: 'Earlier title' }));
    // The tablet sends its edit by itself a second later; the phone edits once the service has it
    // (stamped to the whole second), so the phone's edit is the later one by any clock.
    await expect.poll(() => onService(b), { timeout: 10_000, interval: 50 }).toEqual([{ recordTitle: 'Earlier title', text: 'Good morning.' }]);
    dbA.put(await a.transcriptions.update(recordA, { recordTitle: 'Later title' }));
    // The later edit wins the merge.
    await synced(a, dbA);
    await synced(b, dbB);
    await synced(a, dbA);
    expect(dbA.contents()).toEqual([{ recordTitle: 'Later title', text: 'Good morning.' }]);
    expect(dbB.contents()).toEqual(dbA.contents());
    expect(await onService(a)).toEqual(dbA.contents());
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ type: 'merged', record: { recordTitle: 'Later title' } });
  });

  it('converges without a record the other device deletes while this one walks its first pull', async () => {
    const a = await signedInClient(api, proxy.url);
    for (let index = 0; index < 7; index++) await a.client.transcriptions.save(note(`Note ${index}`));
    await a.client.transcriptions.push();
    const b = await secondDevice(proxy.url, a.storage);
    const dbB = localDatabase();
    let pages = 0;
    const first = await a.client.api.GET('/transcriptions', { params: { query: { limit: 100 } } });
    // Deleted on the phone while the tablet applies its first page.
    const doomed = first.data!.find((record) => record.recordTitle === 'Note 1')!;
    await b.transcriptions.pull({
      limit: 2,
      apply: async (changes) => {
        dbB.apply(changes);
        if (pages++ === 0) await a.client.api.DELETE('/transcriptions/{id}', { params: { path: { id: doomed.transcriptionRecordId } } });
      },
    });
    dbB.pulled();
    expect(pages).toBeGreaterThan(2);
    expect(dbB.contents()).toEqual(await onService(a.client));
    expect(dbB.contents().map((record) => record.recordTitle)).not.toContain('Note 1');
  });
});

describe('a record saved offline', () => {
  it('comes back through the feed recognisably and does not undo a newer edit still in the outbox', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const db = localDatabase();
    const saved = db.put(await client.transcriptions.save(note('Lecture', 'Chapter one.')));
    await client.transcriptions.push();
    // Edited offline after it was sent; the pull comes before the push gets through.
    proxy.answer(route('PATCH', `/api/transcriptions/${(await client.api.GET('/transcriptions')).data![0]!.transcriptionRecordId}`), 503, Infinity);
    db.put(await client.transcriptions.update(saved, { text: 'Chapter one and two.' }));
    const changes: unknown[] = [];
    await client.transcriptions.pull({ apply: (page) => (changes.push(...page), db.apply(page)) });
    expect(changes).toEqual([{ type: 'upsert', pending: true, record: expect.objectContaining({ clientRecordId: saved.clientRecordId, revision: 1, text: 'Chapter one and two.' }) }]);
    expect(db.contents()).toEqual([{ recordTitle: 'Lecture', text: 'Chapter one and two.' }]);
    proxy.heal();
    await synced(client, db);
    expect([...db.records.values()]).toEqual([expect.objectContaining({ revision: 2, text: 'Chapter one and two.' })]);
    expect(proxy.seen.filter((request) => request.method === 'PATCH').at(-1)!.headers['if-match']).toBe('"1"');
  });
});
