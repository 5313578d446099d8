import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportAccount } from '../../infra/tools/export';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { signedInClient } from '../client/support';

/** `npm run export -- --email <address>` against a local server: one document of a whole export. */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

describe('npm run export', () => {
  it('joins every page of a person’s export into one document, and nothing of another account', async () => {
    const { client, target } = await signedInClient(api, api.url);
    const other = await signedInClient(api, api.url);
    await other.client.transcriptions.create({ recordTitle: 'Not mine', text: 'secret plans', language: 'en-US', durationSeconds: 1 });
    // 12 records of about 100 KB each: more than one page of the export (1 MB).
    const filler = 'lorem ipsum '.repeat(8_300);
    for (let index = 0; index < 12; index++) await client.transcriptions.create({ recordTitle: `Record ${index}`, text: `${index} ${filler}`, language: 'en-US', durationSeconds: 1 });
    await client.transcriptions.create({ recordTitle: '会议', text: '明天的会议改到三点', language: 'zh-CN', durationSeconds: 1 });
    const pages = [];
    for await (const page of client.users.export()) pages.push(page);
    expect(pages.length).toBeGreaterThan(1);

    api.clock.advance(61); // past the resend cooldown of the code the person signed in with
    const whole = await exportAccount(api.url, target);
    expect(whole.profile?.email).toBe(target);
    expect(whole.transcriptions.map((record) => record.recordTitle)).toEqual([...Array.from({ length: 12 }, (_, index) => `Record ${index}`), '会议']);
    expect(whole.transcriptions[3]!.text).toBe(`3 ${filler}`);
    expect(whole.events).toEqual(pages.flatMap((page) => page.events));
    expect(whole).not.toHaveProperty('nextCursor');
    expect(JSON.stringify(whole)).not.toContain('Not mine');
  }, 60_000);
});
