import { describe, expect, it } from 'vitest';
import type { Change } from '../../client/src/index';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient, useServersBehindFaultProxy } from './support';
import { localDatabase, onService, secondDevice, synced } from './sync-support';

/** The client's walk after its cursor expired, on a server that keeps tombstones for seconds (issue 36). */
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers), { RECORD_TOMBSTONE_RETENTION_SECONDS: '5' });

const note = (title: string) => ({ recordTitle: title, text: `${title}.`, language: 'en-US', durationSeconds: 60 });

describe('a cursor older than the tombstones are kept', () => {
  it('starts the walk over with a reset, and the app drops the records deleted meanwhile', async () => {
    const a = await signedInClient(api, proxy.url);
    const dbA = localDatabase();
    for (const title of ['Monday', 'Tuesday', 'Wednesday', 'Thursday']) dbA.put(await a.client.transcriptions.save(note(title)));
    await synced(a.client, dbA);
    // Another device deletes two records; their tombstones outlive the retention before A pulls.
    const b = await secondDevice(proxy.url, a.storage);
    const dbB = localDatabase();
    await synced(b, dbB);
    for (const record of [...dbB.records.values()].filter((candidate) => ['Monday', 'Wednesday'].includes(candidate.recordTitle))) await b.transcriptions.remove(record);
    await b.transcriptions.push();
    api.clock.advance(10);
    // Saved on A and not sent yet: the reset keeps it.
    const offline = dbA.put(await a.client.transcriptions.save(note('Friday')));
    proxy.answer((request) => request.method === 'POST', 503, Infinity);
    const pages: Change[][] = [];
    await a.client.transcriptions.pull({ limit: 1, apply: (changes) => (pages.push(changes), dbA.apply(changes)) });
    dbA.pulled();
    expect(proxy.seen.filter((request) => request.path === '/api/transcriptions/changes').length).toBeGreaterThanOrEqual(3);
    expect(pages[0]![0]).toEqual({ type: 'reset', keep: [offline.clientRecordId] });
    expect(pages.flat().filter((change) => change.type === 'reset')).toHaveLength(1);
    expect(dbA.contents().map((record) => record.recordTitle)).toEqual(['Friday', 'Thursday', 'Tuesday']);
    proxy.heal();
    await synced(a.client, dbA);
    expect(dbA.contents()).toEqual(await onService(a.client));
  });

  it('does not expire the cursor of a device that stayed at the head while nothing changed', async () => {
    const a = await signedInClient(api, proxy.url);
    const db = localDatabase();
    db.put(await a.client.transcriptions.save(note('Idle')));
    await synced(a.client, db);
    api.clock.advance(60);
    const pages: Change[][] = [];
    await a.client.transcriptions.pull({ apply: (changes) => void pages.push(changes) });
    expect(pages.flat()).toEqual([]);
  });
});
