import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_DOCUMENT } from '../../infra/tools/openapi';
import { PROJECT_ROOT } from '../../infra/project-root';

/**
 * What a client generator sees in the committed OpenAPI document: openapi-typescript turns it into
 * types, and a small app flow written with openapi-fetch against them must type-check (sign in,
 * refresh, bind, save, usage with `days: 7` as a number, a list with `limit`, events of each type
 * alone and in a batch, the settings). The same flow with `days: '7'` must not, so a document that
 * types parameters as strings again fails here; nor may an event carry another type's value
 * (`subtitle_layout: "left"`), which the document states per type (issue 28).
 */
let folder: string;
beforeAll(async () => {
  // Inside the project, so that `openapi-fetch` resolves from its node_modules.
  mkdirSync(join(PROJECT_ROOT, 'node_modules', '.cache'), { recursive: true });
  folder = mkdtempSync(join(PROJECT_ROOT, 'node_modules', '.cache', 'openapi-client-'));
  const document = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as Parameters<typeof openapiTS>[0];
  writeFileSync(join(folder, 'api.d.ts'), astToString(await openapiTS(document)));
}, 60_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const flow = (days: string, layout = "'bottom'") => `
import createClient from 'openapi-fetch';
import type { paths } from './api';

export async function appFlow(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  await client.POST('/verify-code/send', { body: { type: 'email', target: 'alice@example.com' } });
  const { data: signedIn } = await client.POST('/verify-code/verify', {
    body: { target: 'alice@example.com', verifyCode: '123456', clientName: 'Pixel 8' },
  });
  if (!signedIn) return;
  const token: string = signedIn.token;
  const expiresIn: number = signedIn.expiresIn;
  const { data: refreshed } = await client.POST('/auth/token/refresh', { body: { refreshToken: signedIn.refreshToken } });
  const headers = { Authorization: \`Bearer \${refreshed?.token ?? token}\` };
  await client.POST('/devices', { headers, body: { sn: 'CG2-1', mac: '3C:71:BF:4A:92:1E', productModel: 'Caption Glasses 2' } });
  const { data: record } = await client.POST('/transcriptions', {
    headers,
    body: { recordTitle: 'Standup', text: 'Hello', language: 'en-US', durationSeconds: 60, startedAt: '2026-01-29T10:30:00Z' },
  });
  const id: number | undefined = record?.transcriptionRecordId;
  if (id !== undefined) await client.GET('/transcriptions/{id}', { headers, params: { path: { id } } });
  const { data: usage } = await client.GET('/transcriptions/usage', { headers, params: { query: { days: ${days} } } });
  const total: number | undefined = usage?.totalUsage;
  const { data: page } = await client.GET('/transcriptions', { headers, params: { query: { limit: 20 } } });
  const { data: sessions } = await client.GET('/auth/sessions', { headers });
  const current: boolean | undefined = sessions?.[0]?.current;
  await client.POST('/behavior/events', { headers, body: { eventType: 'subtitle_layout', eventValue: ${layout} } });
  await client.POST('/behavior/events/batch', {
    headers,
    body: { events: [{ eventType: 'voice_provider', eventValue: 'Azure Speech' }, { eventType: 'translation_on', eventValue: 'true' }] },
  });
  await client.PATCH('/users/me', { headers, body: { timeZone: 'Asia/Shanghai' } });
  await client.PATCH('/transcriptions/{id}', { headers, params: { path: { id: 1 } }, body: { recordTitle: 'Standup notes' } });
  return { expiresIn, total, count: page?.length, current };
}
`;

function typeErrors(source: string): string[] {
  const file = join(folder, 'flow.ts');
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('a client generated from the OpenAPI document', () => {
  it('type-checks an app flow with numbers for days, limit and record ids', () => {
    expect(typeErrors(flow('7'))).toEqual([]);
  }, 60_000);

  it('refuses days given as a string', () => {
    const errors = typeErrors(flow("'7'"));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/string.*number/s);
  }, 60_000);

  it('refuses an event value of another type: subtitle_layout "left"', () => {
    const errors = typeErrors(flow('7', "'left'"));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/"left"/);
  }, 60_000);
});
