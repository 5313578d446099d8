import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, postEvent, saveRecord, walkList } from '../support/resources';
import type { Account } from '../support/resources';

let api: LocalApi;
let owner: Account;
let other: Account;
const TOTAL = 120;
let ids: number[] = [];

beforeAll(async () => {
  api = await startLocalApi();
  [owner, other] = await Promise.all([newAccount(api, 'owner'), newAccount(api, 'other')]);
  for (let index = 0; index < TOTAL; index++) ids.push((await saveRecord(api, owner, { recordTitle: `R${index}` })).transcriptionRecordId);
  ids = ids.reverse();
  await saveRecord(api, other);
  await saveRecord(api, other);
  await postEvent(api, owner, 'voice_provider', 'a');
  await postEvent(api, owner, 'voice_provider', 'b');
});
afterAll(() => api?.close());

const idsOf = (pages: { body: any[] }[]) => pages.flatMap((page) => page.body.map((record) => record.transcriptionRecordId));

const firstCursor = async (account: Account, path: string) => {
  const response = await api.request('GET', `${path}?limit=1`, { token: account.token });
  const cursor = response.headers.get('x-next-cursor');
  expect(cursor).toBeTruthy();
  return cursor!;
};

describe('list pagination', () => {
  it.each([1, 7, 50, 100])('walks every record exactly once, newest first, at page size %i', async (limit) => {
    const pages = await walkList(api, '/api/transcriptions', owner, limit);
    expect(idsOf(pages)).toEqual(ids);
    expect(pages).toHaveLength(Math.ceil(TOTAL / limit));
  });

  it('serves 50 items by default and says where to continue', async () => {
    const response = await api.request('GET', '/api/transcriptions', { token: owner.token });
    expect(response.body).toHaveLength(50);
    const cursor = response.headers.get('x-next-cursor');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(response.headers.get('link')).toBe(`<?limit=50&cursor=${cursor}>; rel="next"`);
    expect(response.headers.get('access-control-expose-headers')).toContain('X-Next-Cursor');
  });

  it('gives no cursor when a page ends exactly at the end of the list', async () => {
    const response = await api.request('GET', '/api/transcriptions?limit=2', { token: other.token });
    expect(response.body).toHaveLength(2);
    expect(response.headers.get('x-next-cursor')).toBeNull();
    expect(response.headers.get('link')).toBeNull();
  });

  it('walks every existing record exactly once while new ones are being added', async () => {
    const account = await newAccount(api, 'busy');
    const before: number[] = [];
    for (let index = 0; index < 30; index++) before.unshift((await saveRecord(api, account)).transcriptionRecordId);
    const added: number[] = [];
    const pages = await walkList(api, '/api/transcriptions', account, 4, async () => {
      api.clock.advance(1);
      for (let index = 0; index < 3; index++) added.push((await saveRecord(api, account)).transcriptionRecordId);
    });
    const seen = idsOf(pages);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => before.includes(id))).toEqual(before);
    expect(added.length).toBeGreaterThan(0);
    // Records added after the walk passed their place are not in it; nothing else is either.
    expect(seen.every((id) => before.includes(id) || added.includes(id))).toBe(true);
  });

  it('continues after a cursor whose item was deleted meanwhile', async () => {
    const account = await newAccount(api, 'deleter');
    const saved: number[] = [];
    for (let index = 0; index < 5; index++) saved.unshift((await saveRecord(api, account)).transcriptionRecordId);
    const first = await api.request('GET', '/api/transcriptions?limit=2', { token: account.token });
    const cursor = first.headers.get('x-next-cursor')!;
    expect((await api.request('DELETE', `/api/transcriptions/${saved[1]}`, { token: account.token })).status).toBe(200);
    const rest = await api.request('GET', `/api/transcriptions?limit=10&cursor=${cursor}`, { token: account.token });
    expect(rest.body.map((record: any) => record.transcriptionRecordId)).toEqual(saved.slice(2));
  });

  it('serves fewer items than the limit when DynamoDB stops at 1 MB, and the cursor carries on', async () => {
    const account = await newAccount(api, 'bulky');
    const saved: number[] = [];
    // About 300 KB each: no more than three fit in one 1 MB query page.
    for (let index = 0; index < 5; index++) saved.unshift((await saveRecord(api, account, { text: '字'.repeat(100_000) })).transcriptionRecordId);
    const pages = await walkList(api, '/api/transcriptions', account, 5);
    expect(pages[0]!.body.length).toBeLessThan(5);
    expect(pages[0]!.headers.get('x-next-cursor')).toBeTruthy();
    expect(idsOf(pages)).toEqual(saved);
  });

  it.each(['0', '101', '-1', 'abc', '1.5', ''])('refuses ?limit=%s with 400', async (limit) => {
    const response = await api.request('GET', `/api/transcriptions?limit=${limit}`, { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
  });

  it('refuses a cursor of another account with 400', async () => {
    const foreign = await firstCursor(other, '/api/transcriptions');
    const ownCursor = await firstCursor(owner, '/api/transcriptions');
    expect(foreign).not.toBe(ownCursor);
    const response = await api.request('GET', `/api/transcriptions?cursor=${foreign}`, { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
  });

  it('refuses a cursor of another list with 400', async () => {
    const recordsCursor = await firstCursor(owner, '/api/transcriptions');
    const providerCursor = await firstCursor(owner, '/api/behavior/voice-provider');
    for (const [path, cursor] of [
      ['/api/behavior/voice-provider', recordsCursor],
      ['/api/devices', recordsCursor],
      ['/api/behavior/translation', providerCursor],
      ['/api/transcriptions', providerCursor],
    ] as const) {
      const response = await api.request('GET', `${path}?cursor=${cursor}`, { token: owner.token });
      expect(response.status, path).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    }
  });

  it('refuses forged cursors with 400', async () => {
    const genuine = await firstCursor(owner, '/api/transcriptions');
    const key = JSON.parse(Buffer.from(genuine, 'base64url').toString('utf8'));
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forged = [
      'not a cursor!',
      Buffer.from('not json').toString('base64url'),
      encode([key.PK, key.SK]),
      encode('string'),
      encode(null),
      encode({ PK: key.PK }),
      encode({ ...key, extra: 'x' }),
      encode({ ...key, SK: 42 }),
      encode({ ...key, SK: 'PROFILE' }),
      encode({ ...key, SK: 'TRX#yesterday#1' }),
      encode({ ...key, PK: `USER#${other.userId}` }),
      encode({ ...key, PK: 'IDENTITY#email#someone@example.com' }),
      `${genuine}=`,
      'A'.repeat(3000),
    ];
    for (const cursor of forged) {
      const response = await api.request('GET', `/api/transcriptions?cursor=${encodeURIComponent(cursor)}`, { token: owner.token });
      expect(response.status, cursor).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    }
  });
});
