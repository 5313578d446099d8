import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, sampleRecord, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * Issue 36, the service side of records an app can sync (docs/sync.md): a `clientRecordId` that
 * keeps a create safe to repeat for as long as the record or its tombstone lives, `revision` and
 * `ETag` on every record answer, and `If-Match` on PATCH and DELETE; through the local server on
 * DynamoDB Local.
 */
let api: LocalApi;

// Long-lived tokens, so the clock can move across days without signing in again.
beforeAll(async () => {
  api = await startLocalApi({ TOKEN_TTL_MS: String(400 * 86_400_000) });
  api.clock.set(new Date('2030-03-10T08:00:00Z'));
});
afterAll(() => api?.close());

const create = (account: Account, body: Record<string, unknown>, headers?: Record<string, string>) =>
  api.request('POST', '/api/transcriptions', { token: account.token, body: sampleRecord(body), headers });
const patch = (account: Account, id: number, body: Record<string, unknown>, ifMatch?: string) =>
  api.request('PATCH', `/api/transcriptions/${id}`, { token: account.token, body, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
const remove = (account: Account, id: number, ifMatch?: string) =>
  api.request('DELETE', `/api/transcriptions/${id}`, { token: account.token, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
const totalUsage = async (account: Account) => (await api.request('GET', '/api/transcriptions/usage?days=7', { token: account.token })).body.totalUsage as number;
const allRecords = async (account: Account) => (await api.request('GET', '/api/transcriptions?limit=100', { token: account.token })).body as { clientRecordId: string | null }[];

describe('POST /api/transcriptions with a clientRecordId', () => {
  it('saves the record with it, at revision 1, with its ETag', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    const response = await create(account, { clientRecordId });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ clientRecordId, revision: 1 });
    expect(response.headers.get('etag')).toBe('"1"');
    expect(response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers a repeat with the same body with the stored record, writes nothing and counts usage once', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    const first = await create(account, { clientRecordId, durationSeconds: 90 });
    const again = await create(account, { clientRecordId, durationSeconds: 90 });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe('"1"');
    expect(again.body).toEqual(first.body);
    expect(await allRecords(account)).toHaveLength(1);
    expect(await totalUsage(account)).toBe(90);
  });

  it('answers a repeat after an edit with the record as it is now', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    const first = await create(account, { clientRecordId });
    const edited = await patch(account, first.body.transcriptionRecordId, { recordTitle: 'Renamed' });
    const again = await create(account, { clientRecordId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(edited.body);
    expect(again.headers.get('etag')).toBe('"2"');
  });

  it('replays a create more than 24 hours later, after its Idempotency-Key expired: one record, usage counted once', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    const key = randomUUID();
    const first = await create(account, { clientRecordId, durationSeconds: 300 }, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    // The app kept the record two days offline after an answer it never saw; the key's 24 hours are over.
    api.clock.advance(49 * 3600);
    const again = await create(account, { clientRecordId, durationSeconds: 300 }, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.transcriptionRecordId).toBe(first.body.transcriptionRecordId);
    expect(await allRecords(account)).toHaveLength(1);
    expect(await totalUsage(account)).toBe(300);
  });

  it('refuses the same clientRecordId with another body: 409 CLIENT_RECORD_ID_REUSED, nothing written', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    await create(account, { clientRecordId, text: 'one' });
    const other = await create(account, { clientRecordId, text: 'two' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 409, error: 'CLIENT_RECORD_ID_REUSED' });
    expect(await allRecords(account)).toHaveLength(1);
  });

  it('never brings a deleted record back: a late create answers 410 RECORD_DELETED with the tombstone', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    const saved = await create(account, { clientRecordId, durationSeconds: 40 });
    expect((await remove(account, saved.body.transcriptionRecordId)).status).toBe(200);
    const late = await create(account, { clientRecordId, durationSeconds: 40 });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({
      code: 410,
      error: 'RECORD_DELETED',
      tombstone: { transcriptionRecordId: saved.body.transcriptionRecordId, clientRecordId, revision: 2, deletedAt: expect.any(String) },
    });
    expect(await allRecords(account)).toHaveLength(0);
    expect(await totalUsage(account)).toBe(0);
  });

  it('keeps ids of different accounts apart: the same clientRecordId makes a record in each', async () => {
    const [alice, bob] = await Promise.all([newAccount(api), newAccount(api)]);
    const clientRecordId = randomUUID();
    const [a, b] = await Promise.all([create(alice, { clientRecordId }), create(bob, { clientRecordId, text: 'other' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.transcriptionRecordId).not.toBe(b.body.transcriptionRecordId);
  });

  it('saves one record for 8 parallel creates with one clientRecordId, and counts usage once', async () => {
    const account = await newAccount(api);
    const clientRecordId = randomUUID();
    const responses = await Promise.all(Array.from({ length: 8 }, () => create(account, { clientRecordId, durationSeconds: 15 })));
    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(200));
    expect(new Set(responses.map((response) => response.body.transcriptionRecordId)).size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await allRecords(account)).toHaveLength(1);
    expect(await totalUsage(account)).toBe(15);
  });

  it.each([
    ['upper case', '6F1C2A9E-5B7D-4C1E-9F0A-6D2B8E4C7A15'],
    ['no dashes', '6f1c2a9e5b7d4c1e9f0a6d2b8e4c7a15'],
    ['braces', '{6f1c2a9e-5b7d-4c1e-9f0a-6d2b8e4c7a15}'],
    ['a number', 42],
    ['an empty string', ''],
  ])('refuses a clientRecordId in %s with 400 naming the field', async (_label, clientRecordId) => {
    const account = await newAccount(api);
    const response = await create(account, { clientRecordId });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'VALIDATION_FAILED' });
    expect(response.body.details.map((detail: { path: string }) => detail.path)).toEqual(['body.clientRecordId']);
    expect(await allRecords(account)).toHaveLength(0);
  });
});

describe('revision and ETag', () => {
  it('every record answer carries clientRecordId (null when none) and revision; single-record answers the ETag', async () => {
    const account = await newAccount(api);
    const saved = await saveRecord(api, account);
    expect(saved).toMatchObject({ clientRecordId: null, revision: 1 });
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: account.token });
    expect(read.headers.get('etag')).toBe('"1"');
    const edited = await patch(account, saved.transcriptionRecordId, { durationSeconds: 5 });
    expect(edited.body.revision).toBe(2);
    expect(edited.headers.get('etag')).toBe('"2"');
    const listed = await api.request('GET', '/api/transcriptions', { token: account.token });
    expect(listed.body[0]).toMatchObject({ clientRecordId: null, revision: 2 });
    const searched = await api.request('GET', '/api/transcriptions?q=morning', { token: account.token });
    expect(searched.body[0]).toMatchObject({ clientRecordId: null, revision: 2 });
    const exported = await api.request('GET', '/api/users/me/export', { token: account.token });
    expect(exported.body.transcriptions[0]).toMatchObject({ clientRecordId: null, revision: 2 });
  });
});

describe('If-Match on PATCH and DELETE', () => {
  it('changes the record only at the revision it names; 412 RECORD_CHANGED with the current record otherwise', async () => {
    const account = await newAccount(api);
    const saved = await saveRecord(api, account);
    const first = await patch(account, saved.transcriptionRecordId, { recordTitle: 'From the phone' }, '"1"');
    expect(first.status).toBe(200);
    expect(first.body.revision).toBe(2);
    const stale = await patch(account, saved.transcriptionRecordId, { recordTitle: 'From the tablet' }, '"1"');
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 412, error: 'RECORD_CHANGED', current: first.body });
    const staleDelete = await remove(account, saved.transcriptionRecordId, '"1"');
    expect(staleDelete.status).toBe(412);
    expect(staleDelete.body.current).toEqual(first.body);
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: account.token });
    expect(read.body).toEqual(first.body);
  });

  it('lets exactly one of two parallel edits from the same revision through; the other gets 412 with the winner', async () => {
    const account = await newAccount(api);
    const saved = await saveRecord(api, account);
    const responses = await Promise.all([
      patch(account, saved.transcriptionRecordId, { recordTitle: 'A' }, '"1"'),
      patch(account, saved.transcriptionRecordId, { recordTitle: 'B' }, '"1"'),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 412]);
    const winner = responses.find((response) => response.status === 200)!;
    expect(responses.find((response) => response.status === 412)!.body.current).toEqual(winner.body);
  });

  it('answers 410 RECORD_DELETED with the tombstone for a read and for a change of a deleted record made with If-Match; a change without, 404 as before', async () => {
    const account = await newAccount(api);
    const saved = await saveRecord(api, account);
    const deleted = await remove(account, saved.transcriptionRecordId, '"1"');
    expect(deleted.status).toBe(200);
    const tombstone = { transcriptionRecordId: saved.transcriptionRecordId, clientRecordId: null, revision: 2, deletedAt: '2030-03-10T08:00:00Z' };
    for (const response of [await patch(account, saved.transcriptionRecordId, { text: 'offline edit' }, '"1"'), await remove(account, saved.transcriptionRecordId, '"1"')]) {
      expect(response.status).toBe(410);
      expect(response.body).toMatchObject({ code: 410, error: 'RECORD_DELETED', tombstone: { ...tombstone, deletedAt: expect.any(String) } });
    }
    expect((await patch(account, saved.transcriptionRecordId, { text: 'seed client' })).status).toBe(404);
    expect((await remove(account, saved.transcriptionRecordId)).status).toBe(404);
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: account.token });
    expect(read.status).toBe(410);
    expect(read.body).toMatchObject({ code: 410, error: 'RECORD_DELETED', tombstone: { ...tombstone, deletedAt: expect.any(String) } });
  });

  it('answers a GET, and a PATCH and a DELETE with If-Match, racing another device\'s deletion 200, 412 or 410 with the tombstone, never 404 (40 rounds of real parallel requests)', async () => {
    const account = await newAccount(api);
    const seen = new Map<number, number>();
    for (let round = 0; round < 40; round++) {
      const saved = await saveRecord(api, account, { clientRecordId: randomUUID() });
      const id = saved.transcriptionRecordId as number;
      // The other device deletes; this one edits and removes, all from revision 1, at the same moment.
      const [elsewhere, edit, removal, reading] = await Promise.all([
        remove(account, id, '"1"'),
        patch(account, id, { text: `edit ${round}` }, '"1"'),
        remove(account, id, '"1"'),
        api.request('GET', `/api/transcriptions/${id}`, { token: account.token }),
      ]);
      // A read racing the deletion: the record, or its tombstone; never 404.
      expect([200, 410], JSON.stringify(reading.body)).toContain(reading.status);
      for (const response of [elsewhere, edit, removal, reading]) {
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        expect([200, 410, 412], JSON.stringify(response.body)).toContain(response.status);
        if (response.status === 410) {
          expect(response.body).toMatchObject({ error: 'RECORD_DELETED', tombstone: { transcriptionRecordId: id, clientRecordId: saved.clientRecordId, deletedAt: expect.any(String) } });
        }
      }
      // At most one deletion took the record (none when the edit came first); the record is gone exactly then.
      const deletions = [elsewhere, removal].filter((response) => response.status === 200).length;
      expect(deletions).toBeLessThanOrEqual(1);
      const read = await api.request('GET', `/api/transcriptions/${id}`, { token: account.token });
      expect(read.status === 200).toBe(deletions === 0);
    }
    // The deletions met each other's tombstones, not only each other's revisions.
    expect(seen.get(410)).toBeGreaterThan(0);
  });

  it('without If-Match the last writer wins, as seed clients expect', async () => {
    const account = await newAccount(api);
    const saved = await saveRecord(api, account);
    await patch(account, saved.transcriptionRecordId, { recordTitle: 'One' });
    const last = await patch(account, saved.transcriptionRecordId, { recordTitle: 'Two' });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ recordTitle: 'Two', revision: 3 });
  });

  it.each([['no quotes', '1'], ['a weak tag', 'W/"1"'], ['a star', '*'], ['a list', '"1", "2"'], ['revision 0', '"0"'], ['letters', '"abc"']])(
    'refuses an If-Match with %s with 400 naming the header, and changes nothing',
    async (_label, ifMatch) => {
      const account = await newAccount(api);
      const saved = await saveRecord(api, account);
      for (const response of [await patch(account, saved.transcriptionRecordId, { recordTitle: 'X' }, ifMatch), await remove(account, saved.transcriptionRecordId, ifMatch)]) {
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: 'VALIDATION_FAILED', details: [{ path: 'header.If-Match' }] });
      }
      const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: account.token });
      expect(read.body).toEqual(saved);
    },
  );

  it('keeps another account’s record out of reach: 404 with any If-Match', async () => {
    const [alice, bob] = await Promise.all([newAccount(api), newAccount(api)]);
    const saved = await saveRecord(api, alice);
    expect((await patch(bob, saved.transcriptionRecordId, { recordTitle: 'X' }, '"1"')).status).toBe(404);
    expect((await remove(bob, saved.transcriptionRecordId, '"1"')).status).toBe(404);
  });
});
