import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { ApiResponse, LocalApi } from '../support/local-api';
import { newAccount, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * Search in a person's own records (GET /api/transcriptions?q=) and the list's filters, against
 * the local server and DynamoDB Local: what the app shows for what a person types.
 */
let api: LocalApi;
let person: Account;
const saved: Record<string, any> = {};

const DAY_MS = 86_400_000;
/** A moment `days` ago at 20:00 UTC: 04:00 the next day in Shanghai. */
const daysAgoAt20 = (days: number) => {
  const at = new Date(Date.now() - days * DAY_MS);
  at.setUTCHours(20, 0, 0, 0);
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
};
const dateOf = (iso: string, addDays = 0) => new Date(Date.parse(iso) + addDays * DAY_MS).toISOString().slice(0, 10);

beforeAll(async () => {
  api = await startLocalApi();
  person = await newAccount(api, 'searcher');
  const patched = await api.request('PATCH', '/api/users/me', { token: person.token, body: { timeZone: 'Asia/Shanghai' } });
  expect(patched.status).toBe(200);
  const records: [string, Record<string, unknown>][] = [
    ['doctor', { recordTitle: 'Visit to Dr. Müller', text: 'The doctor said the Dose is two tablets every morning, after breakfast.', startedAt: daysAgoAt20(10) }],
    ['meeting', { recordTitle: 'Weekly sync', text: 'The meeting moves to three pm on Friday.', startedAt: daysAgoAt20(5) }],
    ['cafe', { recordTitle: 'Coffee', text: 'Let us meet at the Café de Flore.', startedAt: daysAgoAt20(4) }],
    ['chinese', { recordTitle: '项目会议', text: '明天的会议改到三点，请大家准时参加。', language: 'zh-CN', startedAt: daysAgoAt20(3) }],
    ['mixed', { recordTitle: 'Q3 planning', text: '我们讨论了Q3预算和hiring计划。', language: 'zh-CN', startedAt: daysAgoAt20(2) }],
    ['titleOnly', { recordTitle: 'Address of Anna', text: 'Rue des Martyrs 12, third floor.', startedAt: daysAgoAt20(1) }],
    ['pmThree', { recordTitle: 'Reminder', text: 'Bring the pm report, three copies.' }],
  ];
  for (const [name, overrides] of records) saved[name] = await saveRecord(api, person, overrides);
});
afterAll(() => api?.close());

const get = (path: string, account: Account = person) => api.request<any[]>('GET', path, { token: account.token });

/** Every result of a search, following the Link header from page to page. */
async function searchAll(query: string, limit = 50, account: Account = person) {
  const pages: ApiResponse<any[]>[] = [];
  let url = `/api/transcriptions?${query}&limit=${limit}`;
  for (;;) {
    const response = await get(url, account);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.length).toBeLessThanOrEqual(limit);
    pages.push(response);
    const link = response.headers.get('link');
    if (!link) {
      expect(response.headers.get('x-next-cursor')).toBeNull();
      break;
    }
    const next = new URL(link.slice(1, link.indexOf('>')), `${api.url}${url}`);
    expect(next.searchParams.get('cursor')).toBe(response.headers.get('x-next-cursor'));
    url = `${next.pathname}${next.search}`;
  }
  return { pages, results: pages.flatMap((page) => page.body) };
}

const ids = (results: any[]) => results.map((record) => record.transcriptionRecordId);
const idsOf = (...names: string[]) => names.map((name) => saved[name].transcriptionRecordId);
const q = (text: string) => `q=${encodeURIComponent(text)}`;

describe('search: what matches', () => {
  it.each([
    ['a word as a substring', 'meet', ['cafe', 'meeting']],
    ['whatever the case', 'DOSE', ['doctor']],
    ['full-width forms as half-width ones', 'ｍｅｅｔｉｎｇ', ['meeting']],
    ['without the accents', 'cafe de flore', ['cafe']],
    ['with accents the text does not have', 'dóctor', ['doctor']],
    ['accents in the title', 'muller', ['doctor']],
    ['Chinese as a substring, without word splitting', '会议', ['chinese']],
    ['Chinese and Latin mixed, full-width digits folded', 'Ｑ３预算', ['mixed']],
    ['several words, each anywhere, in any order', 'three pm', ['pmThree', 'meeting']],
    ['a quoted phrase only as written', '"three pm"', ['meeting']],
    ['curly quotes as phones type them', '“pm report”', ['pmThree']],
    ['a hit in the title only', 'anna', ['titleOnly']],
    ['a word in the title and another in the text', 'visit breakfast', ['doctor']],
  ])('finds %s', async (_, text, expected) => {
    const { results } = await searchAll(q(text));
    expect(ids(results)).toEqual(idsOf(...expected));
  });

  it('finds nothing when one word is missing', async () => {
    const { results } = await searchAll(q('meeting tuesday'));
    expect(results).toEqual([]);
  });

  it('answers full records newest first, each with where it matched', async () => {
    const { results } = await searchAll(q('three pm'));
    const full = (await get('/api/transcriptions')).body;
    for (const result of results) {
      const { match, ...record } = result;
      expect(record).toEqual(full.find((candidate) => candidate.transcriptionRecordId === record.transcriptionRecordId));
      expect(match).toEqual({ field: 'text', snippet: record.text });
    }
  });

  it('says the hit was in the title when the text holds none', async () => {
    const { results } = await searchAll(q('anna'));
    expect(results[0].match).toEqual({ field: 'recordTitle', snippet: 'Address of Anna' });
  });

  it('lists without match fields when there is no q', async () => {
    const { results } = await searchAll('language=zh-CN');
    expect(ids(results)).toEqual(idsOf('mixed', 'chinese'));
    for (const record of results) expect(record).not.toHaveProperty('match');
  });
});

describe('filters, with and without q', () => {
  it('by language', async () => {
    expect(ids((await searchAll(`${q('会议')}&language=zh-CN`)).results)).toEqual(idsOf('chinese'));
    expect(ids((await searchAll(`${q('会议')}&language=en-US`)).results)).toEqual([]);
    expect(ids((await searchAll('language=en-US')).results)).toEqual(idsOf('pmThree', 'titleOnly', 'cafe', 'meeting', 'doctor'));
  });

  it('by calendar day of startedAt in the account’s time zone, inclusive', async () => {
    // 20:00 UTC is 04:00 the next day in Shanghai.
    const shanghaiDay = (name: string) => dateOf(saved[name].startedAt, 1);
    const between = `from=${shanghaiDay('cafe')}&to=${shanghaiDay('chinese')}`;
    expect(ids((await searchAll(between)).results)).toEqual(idsOf('chinese', 'cafe'));
    expect(ids((await searchAll(`${between}&${q('meet')}`)).results)).toEqual(idsOf('cafe'));
    expect(ids((await searchAll(`to=${shanghaiDay('meeting')}`)).results)).toEqual(idsOf('meeting', 'doctor'));
    expect(ids((await searchAll(`from=${shanghaiDay('titleOnly')}&language=en-US`)).results)).toEqual(idsOf('pmThree', 'titleOnly'));
    // The UTC date of the oldest is the day before in Shanghai: nothing started on it there.
    const utcDay = dateOf(saved.doctor.startedAt);
    expect(ids((await searchAll(`from=${utcDay}&to=${utcDay}`)).results)).toEqual([]);
  });
});

describe('paging', () => {
  it('continues a search on its cursor, bounded per request; a page may hold fewer than limit', async () => {
    const { pages, results } = await searchAll(q('e'), 2);
    expect(ids(results)).toEqual(idsOf('pmThree', 'titleOnly', 'cafe', 'meeting', 'doctor'));
    expect(pages.map((page) => page.body.length)).toEqual([2, 2, 1]);
  });

  it('refuses a cursor of another search, of other filters, or of the plain list, and the plain list refuses a search’s', async () => {
    const searchCursor = (await get(`/api/transcriptions?${q('e')}&limit=1`)).headers.get('x-next-cursor');
    const listCursor = (await get('/api/transcriptions?limit=1')).headers.get('x-next-cursor');
    expect(searchCursor).toBeTruthy();
    expect(listCursor).toBeTruthy();
    for (const path of [
      `/api/transcriptions?${q('a')}&cursor=${searchCursor}`,
      `/api/transcriptions?${q('e')}&language=en-US&cursor=${searchCursor}`,
      `/api/transcriptions?cursor=${searchCursor}`,
      `/api/transcriptions?${q('e')}&cursor=${listCursor}`,
      `/api/transcriptions?language=en-US&cursor=${listCursor}`,
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [{ path: 'query.cursor' }] });
    }
    expect((await get(`/api/transcriptions?${q('e')}&cursor=${searchCursor}`)).status).toBe(200);
  });

  it('finds a record edited after the first page by its new text, and goes on past a record deleted under the cursor', async () => {
    const owner = await newAccount(api, 'editor');
    const first = await saveRecord(api, owner, { text: 'alpha one' });
    const second = await saveRecord(api, owner, { text: 'alpha two' });
    const third = await saveRecord(api, owner, { text: 'alpha three' });
    const page = await get(`/api/transcriptions?${q('alpha')}&limit=1`, owner);
    expect(ids(page.body)).toEqual([third.transcriptionRecordId]);
    const cursor = page.headers.get('x-next-cursor');
    // The record the cursor points after goes, the next one changes its text.
    expect((await api.request('DELETE', `/api/transcriptions/${third.transcriptionRecordId}`, { token: owner.token })).status).toBe(200);
    const edited = await api.request('PATCH', `/api/transcriptions/${second.transcriptionRecordId}`, { token: owner.token, body: { text: 'beta two' } });
    expect(edited.status).toBe(200);
    const rest = await get(`/api/transcriptions?${q('alpha')}&limit=5&cursor=${cursor}`, owner);
    expect(rest.status).toBe(200);
    expect(ids(rest.body)).toEqual([first.transcriptionRecordId]);
    const beta = (await searchAll(q('beta'), 50, owner)).results;
    expect(beta).toEqual([expect.objectContaining({ transcriptionRecordId: second.transcriptionRecordId, text: 'beta two', match: { field: 'text', snippet: 'beta two' } })]);
    expect((await searchAll(q('three'), 50, owner)).results).toEqual([]);
  });

  it('finds a hit beyond the first 1 MB of history on a later page', async () => {
    const owner = await newAccount(api, 'archivist');
    const oldest = await saveRecord(api, owner, { recordTitle: 'Old', text: `The address is 221B Baker Street. ${'x'.repeat(99_000)}` });
    // 12 records of about 100 KB each: more than DynamoDB reads for one page.
    const filler = `${'lorem ipsum '.repeat(8_300)}`;
    for (let index = 0; index < 12; index++) await saveRecord(api, owner, { recordTitle: `Filler ${index}`, text: filler });
    const { pages, results } = await searchAll(q('baker street'), 10, owner);
    expect(ids(results)).toEqual([oldest.transcriptionRecordId]);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]!.body).toEqual([]);
    expect(results[0].match.snippet).toContain('221B Baker Street');
    expect([...results[0].match.snippet].length).toBeLessThanOrEqual(160);
  }, 60_000);
});

describe('snippets', () => {
  it('cut 160 code points around the first hit, never half of a surrogate pair', async () => {
    const owner = await newAccount(api, 'emoji');
    // Astral characters (emoji, a CJK Extension B ideograph) on both sides of the hit.
    const before = '😀🎉𠀀'.repeat(60);
    const after = '𝒜🙂'.repeat(60);
    const text = `${before}会议在三点${after}`;
    await saveRecord(api, owner, { text, language: 'zh-CN' });
    const { results } = await searchAll(q('会议'), 50, owner);
    const snippet: string = results[0].match.snippet;
    expect([...snippet].length).toBe(160);
    expect(snippet).toContain('会议在三点');
    expect(text).toContain(snippet);
    expect(/\p{Cs}/u.test(snippet)).toBe(false);
    // Around the hit: about as much before it as after it.
    const [head, tail] = snippet.split('会议');
    expect(Math.abs([...head!].length - [...tail!].length)).toBeLessThanOrEqual(4);
  });

  it('of a long English text start at the hit’s neighbourhood, in the original case and accents', async () => {
    const owner = await newAccount(api, 'long');
    const text = `${'Nothing to see here. '.repeat(40)}Then the CAFÉ closed at noon. ${'More words follow. '.repeat(40)}`;
    await saveRecord(api, owner, { text });
    const { results } = await searchAll(q('cafe'), 50, owner);
    expect(results[0].match.field).toBe('text');
    expect(results[0].match.snippet).toContain('Then the CAFÉ closed at noon.');
    expect([...results[0].match.snippet].length).toBe(160);
  });
});

describe('bad input', () => {
  it.each([
    ['an empty q', 'q=', 'query.q'],
    ['a q of spaces only', `q=${encodeURIComponent('   ')}`, 'query.q'],
    ['a q of 101 characters', q('a'.repeat(101)), 'query.q'],
    ['unbalanced quotes', q('"three pm'), 'query.q'],
    ['from after to', 'from=2026-03-02&to=2026-03-01', 'query.to'],
    ['a language not of the records’ form', 'language=english', 'query.language'],
    ['a malformed date', 'from=2026-3-1', 'query.from'],
    ['a date not of the calendar', 'to=2026-02-30', 'query.to'],
  ])('%s is a 400 VALIDATION_FAILED with details', async (_, query, path) => {
    const response = await get(`/api/transcriptions?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path })] });
  });

  it('accepts 100 characters as sent, blanks included, as the document states (maxLength 100)', async () => {
    expect((await get(`/api/transcriptions?${q(`  ${'a'.repeat(96)}  `)}`)).status).toBe(200);
    expect((await get(`/api/transcriptions?${q(`  ${'a'.repeat(97)}  `)}`)).status).toBe(400);
  });
});
