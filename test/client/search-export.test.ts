import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { signedInClient } from './support';

/** client.transcriptions.search() and client.users.export() against the real local server. */
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const record = (recordTitle: string, text: string, language = 'en-US') => ({ recordTitle, text, language, durationSeconds: 1 });

describe('client.transcriptions.search()', () => {
  it('keeps asking until it has limit results when the matches sit beyond the first page', async () => {
    const { client } = await signedInClient(api, api.url);
    for (let index = 0; index < 3; index++) await client.transcriptions.create(record(`会议 ${index}`, `明天的会议改到三点 (${index})`, 'zh-CN'));
    // 12 records of about 100 KB each: more than one page of the service reads (1 MB).
    const filler = 'lorem ipsum '.repeat(8_300);
    for (let index = 0; index < 12; index++) await client.transcriptions.create(record(`Filler ${index}`, filler));
    await client.transcriptions.create(record('Newest', 'The 会议 is on Friday.'));

    // What one page of the service holds: the newest match only, and a cursor.
    const first = await client.api.GET('/transcriptions', { params: { query: { q: '会议', limit: 3 } } });
    expect(first.data!.map((found) => found.recordTitle)).toEqual(['Newest']);
    expect(first.response.headers.get('X-Next-Cursor')).toBeTruthy();

    const found = await client.transcriptions.search({ q: '会议', limit: 3 });
    expect(found.records.map((found) => found.recordTitle)).toEqual(['Newest', '会议 2', '会议 1']);
    expect(found.records[1]!.match).toEqual({ field: 'text', snippet: '明天的会议改到三点 (2)' });
    expect(found.cursor).toBeTruthy();

    const rest = await client.transcriptions.search({ q: '会议', limit: 3, cursor: found.cursor });
    expect(rest.records.map((found) => found.recordTitle)).toEqual(['会议 0']);
    expect(rest.cursor).toBeUndefined();
  }, 60_000);

  it('passes the filters and throws the service’s refusal', async () => {
    const { client } = await signedInClient(api, api.url);
    await client.transcriptions.create(record('Doctor', 'The dose is two tablets.'));
    await client.transcriptions.create(record('医生', 'The dose 是两片.', 'zh-CN'));
    const found = await client.transcriptions.search({ q: 'dose', language: 'zh-CN' });
    expect(found.records.map((found) => found.recordTitle)).toEqual(['医生']);
    await expect(client.transcriptions.search({ q: '"unbalanced' })).rejects.toMatchObject({ status: 400, error: 'VALIDATION_FAILED' });
  });
});

describe('client.users.export()', () => {
  it('walks every page until nextCursor is null', async () => {
    const { client, target } = await signedInClient(api, api.url);
    const filler = 'lorem ipsum '.repeat(8_300);
    for (let index = 0; index < 12; index++) await client.transcriptions.create(record(`Record ${index}`, `${index} ${filler}`));
    const pages = [];
    for await (const page of client.users.export()) pages.push(page);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]!.profile?.email).toBe(target);
    expect(pages.slice(0, -1).every((page) => page.nextCursor)).toBe(true);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    // Every record once, oldest first, with its full text.
    const records = pages.flatMap((page) => page.transcriptions);
    expect(records.map((found) => found.recordTitle)).toEqual(Array.from({ length: 12 }, (_, index) => `Record ${index}`));
    expect(records.every((found, index) => found.text === `${index} ${filler}`)).toBe(true);
  }, 60_000);
});
