import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../../infra/tools/build-docs';
import { DOCS_TITLE } from '../../infra/tools/docs-site';
import { GENERATED_DOCUMENT } from '../../infra/tools/openapi';
import type { OpenApiDocument } from '../../infra/tools/openapi';
import { chromiumMissing, launchChromium, newPageWatchingErrors, servePages } from '../support/headless-chromium';
import type { HeadlessChromium, PageServer } from '../support/headless-chromium';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * The API reference in a real browser: headless Chromium from Debian's `chromium` package, driven
 * by playwright-core, opens /docs on the local server, and the static build (npm run build:docs)
 * served by a plain file server, and finds every operation of the document on the page.
 * Without Chromium it is skipped, saying why (test/support/headless-chromium.ts).
 */
const skipReason = chromiumMissing('docs-browser');

const openapi = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as OpenApiDocument;
const documented = Object.entries(openapi.paths)
  .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
  .sort();

let api: LocalApi;
let chromium: HeadlessChromium;
let browser: BrowserContext;
let staticFolder: string;
let staticServer: PageServer;
let staticUrl: string;

beforeAll(async () => {
  if (skipReason) return;
  api = await startLocalApi();
  chromium = await launchChromium('docs-browser');
  browser = chromium.browser;

  staticFolder = mkdtempSync(join(tmpdir(), 'docs-static-'));
  buildDocs(staticFolder, api.url);
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png' };
  staticServer = await servePages((request, response) => {
    const name = new URL(request.url ?? '/', 'http://x').pathname.replace(/^\/docs\//, '') || 'index.html';
    const file = join(staticFolder, name);
    if (name.includes('..') || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  staticUrl = `${staticServer.origin}/docs/`;
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await staticServer?.close();
  await api?.close();
  if (staticFolder) rmSync(staticFolder, { recursive: true, force: true });
});

/** Opens the reference and reads the operations it shows, as `METHOD /path`. */
async function operationsOnPage(url: string): Promise<{ page: Page; operations: string[]; problems: string[] }> {
  const { page, problems } = await newPageWatchingErrors(browser);
  await page.goto(url);
  await page.waitForSelector('.opblock', { timeout: 30_000 });
  await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${documented.length}`, undefined, { timeout: 30_000 });
  const operations = await page.$$eval('.opblock', (blocks) =>
    blocks.map((block) => {
      const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '?';
      const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '?';
      return `${method} ${path}`;
    }),
  );
  return { page, operations: operations.sort(), problems };
}

describe('the API reference page', () => {
  it.skipIf(skipReason)('at /docs on the local server shows every operation of the document, from the API’s own /api/openapi.json', async () => {
    const { page, operations, problems } = await operationsOnPage(`${api.url}/docs`);
    try {
      expect(operations).toEqual(documented);
      expect(await page.title()).toBe(DOCS_TITLE);
      await expect(page.locator('.info .title').textContent()).resolves.toContain(openapi.info.title as string);
      // Both servers, /api and /api/v1, resolved against where the page loaded the document.
      const servers = await page.$$eval('.servers select option', (options) => options.map((option) => option.value));
      expect(servers).toEqual(['.', './v1']);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it.skipIf(skipReason)('at /docs calls the API it is served by ("Try it out" on GET /health)', async () => {
    const { page } = await operationsOnPage(`${api.url}/docs`);
    try {
      const health = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/health"]') });
      await health.locator('.opblock-summary').click();
      await health.locator('.try-out__btn').click();
      await health.locator('.execute').click();
      await expect(health.locator('.request-url pre').textContent()).resolves.toBe(`${api.url}/api/health`);
      await expect(health.locator('.live-responses-table tr.response .response-col_status').textContent()).resolves.toContain('200');
    } finally {
      await page.close();
    }
  });

  it.skipIf(skipReason)('built as a static folder (npm run build:docs) shows every operation and calls the API it was built for', async () => {
    const { page, operations, problems } = await operationsOnPage(staticUrl);
    try {
      expect(operations).toEqual(documented);
      const servers = await page.$$eval('.servers select option', (options) => options.map((option) => option.value));
      expect(servers).toEqual([`${api.url}/api`, `${api.url}/api/v1`]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
