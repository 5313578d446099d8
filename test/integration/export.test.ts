import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERAL_EVENT_TYPES } from '../../shared/api/event-types';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, postEvent, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * GET /api/users/me/export against the local server and DynamoDB Local: an account with records
 * in both languages, events of every type, two devices and two sessions exports all of it,
 * nothing of another account, and nothing secret.
 */
let api: LocalApi;
let person: Account;
let other: Account;
const email = uniqueEmail('exporter');
const EVENT_VALUES: Record<string, string> = {
  translation_on: 'true',
  voice_provider: 'azure',
  language_choice: 'fr-FR',
  ambient_sound: 'enabled',
  subtitle_layout: 'bottom',
  volume_detection: 'auto',
};

beforeAll(async () => {
  api = await startLocalApi();
  const first = await signIn(api, email);
  // A password, so that a password hash is stored; then a second session.
  const password = await api.request('PUT', '/api/users/me/password', { token: first.token, body: { newPassword: 'violet-harbor-42' } });
  expect(password.status, JSON.stringify(password.body)).toBe(200);
  api.clock.advance(61); // past the code's resend cooldown
  const second = await signIn(api, email);
  person = { token: second.token, userId: second.userId };
  other = await newAccount(api, 'other');
  for (const [sn, mac] of [
    ['EXP-1', '00:11:22:33:44:01'],
    ['EXP-2', '00:11:22:33:44:02'],
  ]) {
    expect((await api.request('POST', '/api/devices', { token: person.token, body: { sn, mac, productModel: 'Glass' } })).status).toBe(200);
  }
  await saveRecord(api, person, { recordTitle: 'Doctor', text: 'The dose is two tablets.' });
  await saveRecord(api, person, { recordTitle: '会议', text: '明天的会议改到三点。', language: 'zh-CN' });
  await saveRecord(api, person, { recordTitle: 'Long', text: '长'.repeat(100_000), language: 'zh-CN' });
  for (const type of GENERAL_EVENT_TYPES) {
    const response = await api.request('POST', '/api/behavior/events', { token: person.token, body: { eventType: type, eventValue: EVENT_VALUES[type] } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  }
  expect((await api.request('POST', '/api/behavior/login', { token: person.token, body: { location: 'Paris' } })).status).toBe(200);
  await saveRecord(api, other, { recordTitle: 'Not yours', text: 'secret plans of the other account' });
  await postEvent(api, other, 'voice_provider', 'google');
}, 60_000);
afterAll(() => api?.close());

const get = (path: string, account: Account = person) => api.request('GET', path, { token: account.token });

/** Every page of an export, through `nextCursor`. */
async function exportAll(account: Account, prefix = '/api') {
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const response = await get(`${prefix}/users/me/export${cursor ? `?cursor=${cursor}` : ''}`, account);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    pages.push(response.body);
    cursor = response.body.nextCursor;
  } while (cursor);
  return pages;
}

describe('an export', () => {
  it('holds the profile, the devices, the sessions, every record and every event, as the API shows them', async () => {
    const pages = await exportAll(person);
    const [first, ...rest] = pages;
    expect(first.profile).toEqual((await get('/api/users/me')).body);
    expect(first.devices).toEqual((await get('/api/devices')).body);
    expect(first.devices).toHaveLength(2);
    expect(first.sessions).toEqual((await get('/api/auth/sessions')).body);
    expect(first.sessions).toHaveLength(2);
    for (const page of rest) expect(Object.keys(page).sort()).toEqual(['events', 'nextCursor', 'transcriptions']);
    const records = pages.flatMap((page) => page.transcriptions);
    // Oldest first, full text: the list's records in reverse.
    expect(records).toEqual([...(await get('/api/transcriptions')).body].reverse());
    expect(records.map((record) => record.language)).toEqual(['en-US', 'zh-CN', 'zh-CN']);
    const events = pages.flatMap((page) => page.events);
    expect(events).toHaveLength(GENERAL_EVENT_TYPES.length + 1);
    expect(new Set(events.map((event) => event.eventType))).toEqual(new Set([...GENERAL_EVENT_TYPES, 'login']));
    expect(events.find((event) => event.eventType === 'login')).toEqual((await get('/api/behavior/login')).body[0]);
    expect(events.find((event) => event.eventType === 'voice_provider')).toEqual((await get('/api/behavior/voice-provider')).body[0]);
    expect(pages.at(-1).nextCursor).toBeNull();
  });

  let bulky: Account;
  it('keeps each page within 1 MB, however large the records', async () => {
    const owner = (bulky = await newAccount(api, 'bulky'));
    // 12 records of 100 000 three-byte characters: about 3.6 MB of text.
    for (let index = 0; index < 12; index++) await saveRecord(api, owner, { recordTitle: `Bulk ${index}`, text: '字'.repeat(100_000), language: 'zh-CN' });
    await postEvent(api, owner, 'voice_provider', 'azure');
    const pages = await exportAll(owner);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(1024 * 1024);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages.flatMap((page) => page.transcriptions).map((record) => record.recordTitle)).toEqual(Array.from({ length: 12 }, (_, index) => `Bulk ${index}`));
    expect(pages.flatMap((page) => page.events)).toHaveLength(1);
  }, 60_000);

  it('holds nothing of another account, and the other account’s export nothing of this one', async () => {
    const mine = JSON.stringify(await exportAll(person));
    const theirs = JSON.stringify(await exportAll(other));
    expect(mine).not.toContain('Not yours');
    expect(mine).not.toContain('google');
    expect(theirs).not.toContain('EXP-1');
    expect(theirs).not.toContain('明天的会议');
    expect(theirs).not.toContain(email);
  });

  it('refuses a cursor of another account', async () => {
    const cursor = (await get('/api/users/me/export', bulky)).body.nextCursor;
    expect(cursor).toBeTruthy();
    const response = await get(`/api/users/me/export?cursor=${cursor}`, person);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'VALIDATION_FAILED', details: [{ path: 'query.cursor' }] });
  });

  it('holds no hash, no token material and no internal key of what DynamoDB stores', async () => {
    const exported = JSON.stringify(await exportAll(person, '/api/v1'));
    const items = [];
    for (const pk of [`USER#${person.userId}`, `IDENTITY#email#${email}`]) {
      const result = await api.db.client.send(new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }));
      items.push(...(result.Items ?? []));
    }
    // The hashes (password, refresh-token seeds) and the keys and bookkeeping only the table knows.
    const stored = ['passwordHash', 'seed', 'PK', 'SK', 'LSK', 'recordKey', 'createdAtMs', 'lastPosition'];
    const secrets = items.flatMap((item) => stored.map((name) => item[name]).filter((value): value is string => typeof value === 'string'));
    expect(items.filter((item) => typeof item.passwordHash === 'string')).toHaveLength(1);
    expect(items.filter((item) => typeof item.seed === 'string')).toHaveLength(2);
    for (const secret of secrets) expect(exported, secret).not.toContain(secret);
    // A record's `revision` is public (docs/sync.md); the stored items' own count of edits is not what it answers.
    for (const name of ['passwordHash', 'tokenVersion', 'seed', 'generation', 'usageDate', 'changeSeq']) expect(exported).not.toContain(`"${name}"`);
  });
});
