import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, sampleRecord, saveRecord, walkList } from '../support/resources';
import type { Account } from '../support/resources';

let api: LocalApi;
let alice: Account;
let bob: Account;

// Long-lived tokens, so the clock can move across days without signing in again.
beforeAll(async () => {
  api = await startLocalApi({ TOKEN_TTL_MS: String(400 * 86_400_000) });
  api.clock.set(new Date('2030-03-10T08:00:00Z'));
  [alice, bob] = await Promise.all([newAccount(api, 'alice'), newAccount(api, 'bob')]);
});
afterAll(() => api?.close());

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('POST /api/transcriptions', () => {
  it('saves a record and returns it with its id, text length and updatedAt null', async () => {
    const response = await api.request('POST', '/api/transcriptions', { token: alice.token, body: sampleRecord() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      transcriptionRecordId: expect.any(Number),
      userId: alice.userId,
      ...sampleRecord(),
      textLength: 'Good morning, everyone.'.length,
      startedAt: response.body.createdAt,
      createdAt: expect.stringMatching(ISO_SECONDS),
      updatedAt: null,
      clientRecordId: null,
      revision: 1,
    });
    expect(response.headers.get('etag')).toBe('"1"');
    expect(Number.isSafeInteger(response.body.transcriptionRecordId) && response.body.transcriptionRecordId > 0).toBe(true);
  });

  it('counts textLength in Unicode code points', async () => {
    for (const [text, length] of [
      ['你好，世界', 5],
      ['👋🏽 hi', 5],
      ['e\u0301', 2],
      ['', 0],
    ] as const) {
      expect((await saveRecord(api, alice, { text })).textLength).toBe(length);
    }
  });

  it('gives every record its own id', async () => {
    const records = await Promise.all(Array.from({ length: 20 }, () => saveRecord(api, alice)));
    expect(new Set(records.map((record) => record.transcriptionRecordId)).size).toBe(20);
  });

  it.each([
    ['a 100 000-character Chinese text', '字'],
    ['a 100 000-character emoji text', '😀'],
  ])('stores %s and reads it back unchanged', async (_label, character) => {
    const text = character.repeat(100_000);
    const saved = await saveRecord(api, alice, { text, recordTitle: '标'.repeat(200) });
    expect(saved.textLength).toBe(100_000);
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(read.status).toBe(200);
    expect(read.body.text === text).toBe(true);
    const listed = await api.request('GET', '/api/transcriptions?limit=1', { token: alice.token });
    expect(listed.body[0].transcriptionRecordId).toBe(saved.transcriptionRecordId);
  });

  it.each([
    ['no recordTitle', { recordTitle: undefined }, 'body.recordTitle'],
    ['an empty recordTitle', { recordTitle: '' }, 'body.recordTitle'],
    ['a recordTitle of 201 characters', { recordTitle: 't'.repeat(201) }, 'body.recordTitle'],
    ['no text', { text: undefined }, 'body.text'],
    ['a text of 100 001 characters', { text: 'a'.repeat(100_001) }, 'body.text'],
    ['a text with a lone surrogate', { text: 'broken \ud800 text' }, 'body.text'],
    ['no language', { language: undefined }, 'body.language'],
    ['a language without region', { language: 'en' }, 'body.language'],
    ['a language with an underscore', { language: 'en_US' }, 'body.language'],
    ['a language in the wrong case', { language: 'EN-us' }, 'body.language'],
    ['no durationSeconds', { durationSeconds: undefined }, 'body.durationSeconds'],
    ['a negative duration', { durationSeconds: -1 }, 'body.durationSeconds'],
    ['a duration above a day', { durationSeconds: 86_401 }, 'body.durationSeconds'],
    ['a fractional duration', { durationSeconds: 1.5 }, 'body.durationSeconds'],
    ['a duration as a string', { durationSeconds: '60' }, 'body.durationSeconds'],
  ])('refuses %s with 400 VALIDATION_FAILED and saves nothing', async (_label, overrides, path) => {
    const carol = await newAccount(api, 'carol');
    const response = await api.request('POST', '/api/transcriptions', { token: carol.token, body: sampleRecord(overrides) });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(response.body.details.map((detail: any) => detail.path)).toContain(path);
    expect((await api.request('GET', '/api/transcriptions', { token: carol.token })).body).toEqual([]);
    expect((await api.request('GET', '/api/transcriptions/usage', { token: carol.token })).body.totalUsage).toBe(0);
  });

  it('accepts the boundary values', async () => {
    for (const overrides of [
      { recordTitle: 't'.repeat(200), durationSeconds: 0, language: 'zh-CN' },
      { durationSeconds: 86_400, language: 'es-419' },
    ]) {
      await saveRecord(api, alice, overrides);
    }
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON', async () => {
    const response = await api.request('POST', '/api/transcriptions', {
      token: alice.token,
      rawBody: '{"recordTitle":',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'INVALID_JSON' });
  });

  it('answers 401 without a token', async () => {
    expect((await api.request('POST', '/api/transcriptions', { body: sampleRecord() })).status).toBe(401);
  });
});

describe('GET /api/transcriptions', () => {
  it('lists full records, newest first', async () => {
    const dave = await newAccount(api, 'dave');
    const saved = [];
    for (let index = 0; index < 3; index++) {
      saved.unshift(await saveRecord(api, dave, { recordTitle: `Record ${index}` }));
      api.clock.advance(1);
    }
    const response = await api.request('GET', '/api/transcriptions', { token: dave.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(saved);
  });

  it('orders records created within the same second newest first too', async () => {
    const erin = await newAccount(api, 'erin');
    const first = await saveRecord(api, erin, { recordTitle: 'first' });
    const second = await saveRecord(api, erin, { recordTitle: 'second' });
    const listed = (await api.request('GET', '/api/transcriptions', { token: erin.token })).body;
    expect(listed.map((record: any) => record.recordTitle)).toEqual(['second', 'first']);
    expect(listed.map((record: any) => record.transcriptionRecordId)).toEqual([second.transcriptionRecordId, first.transcriptionRecordId]);
  });

  it('pages with limit and cursor', async () => {
    const frank = await newAccount(api, 'frank');
    for (let index = 0; index < 5; index++) await saveRecord(api, frank, { recordTitle: `R${index}` });
    const pages = await walkList(api, '/api/transcriptions', frank, 2);
    expect(pages.map((page) => page.body.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.body.map((record: any) => record.recordTitle))).toEqual(['R4', 'R3', 'R2', 'R1', 'R0']);
  });
});

describe('GET /api/transcriptions/{id}', () => {
  it('reads one of the caller’s records', async () => {
    const saved = await saveRecord(api, alice, { recordTitle: 'Read me' });
    const response = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(saved);
  });

  it('answers 404 for another user’s record and for an id that does not exist', async () => {
    const saved = await saveRecord(api, alice);
    for (const [account, id] of [
      [bob, saved.transcriptionRecordId],
      [alice, 9_000_000_000_000],
    ] as const) {
      const response = await api.request('GET', `/api/transcriptions/${id}`, { token: account.token });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    }
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999999999'])('answers 400 for the id %s', async (id) => {
    const response = await api.request('GET', `/api/transcriptions/${id}`, { token: alice.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
  });
});

describe('PATCH /api/transcriptions/{id}', () => {
  it('edits the given fields, sets updatedAt and keeps the rest', async () => {
    const saved = await saveRecord(api, alice);
    api.clock.advance(90);
    const response = await api.request('PATCH', `/api/transcriptions/${saved.transcriptionRecordId}`, {
      token: alice.token,
      body: { text: '你好', recordTitle: 'Renamed' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...saved, text: '你好', recordTitle: 'Renamed', textLength: 2, updatedAt: expect.stringMatching(ISO_SECONDS), revision: 2 });
    expect(response.headers.get('etag')).toBe('"2"');
    expect(response.body.updatedAt > saved.createdAt).toBe(true);
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(read.body).toEqual(response.body);
  });

  it('refuses an empty patch and invalid fields with 400', async () => {
    const saved = await saveRecord(api, alice);
    for (const body of [{}, { durationSeconds: -5 }, { language: 'english' }, { recordTitle: '' }]) {
      const response = await api.request('PATCH', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token, body });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    }
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(read.body).toEqual(saved);
  });

  it('answers 404 for another user’s record and leaves it unchanged', async () => {
    const saved = await saveRecord(api, alice);
    const response = await api.request('PATCH', `/api/transcriptions/${saved.transcriptionRecordId}`, {
      token: bob.token,
      body: { recordTitle: 'Mine now' },
    });
    expect(response.status).toBe(404);
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(read.body).toEqual(saved);
  });
});

describe('DELETE /api/transcriptions/{id}', () => {
  it('deletes one of the caller’s records', async () => {
    const saved = await saveRecord(api, alice);
    const response = await api.request('DELETE', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String) });
    // Gone, not unknown: its tombstone answers a read (docs/sync.md); a seed client's second DELETE stays 404.
    const read = await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token });
    expect(read.status).toBe(410);
    expect(read.body).toMatchObject({ code: 410, error: 'RECORD_DELETED', tombstone: { transcriptionRecordId: saved.transcriptionRecordId } });
    expect((await api.request('DELETE', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token })).status).toBe(404);
  });

  it('answers 404 for another user’s record, which stays', async () => {
    const saved = await saveRecord(api, alice);
    expect((await api.request('DELETE', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: bob.token })).status).toBe(404);
    expect((await api.request('GET', `/api/transcriptions/${saved.transcriptionRecordId}`, { token: alice.token })).status).toBe(200);
  });
});
