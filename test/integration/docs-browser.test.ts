import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../../infra/tools/build-docs';
import { DOCS_TITLE } from '../../infra/tools/docs-site';
import { GENERATED_DOCUMENT } from '../../infra/tools/openapi';
import type { OpenApiDocument } from '../../infra/tools/openapi';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * The API reference in a real browser: headless Chromium from Debian's `chromium` package, driven
 * by playwright-core, opens /docs on the local server, and the static build (npm run build:docs)
 * served by a plain file server, and finds every operation of the document on the page.
 * infra/local/ensure-deps.mjs installs Chromium before `npm test` where it can (root with apt-get);
 * elsewhere this test is skipped, saying why.
 */
const CHROMIUM = '/usr/bin/chromium';
const skipReason = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium; npm test does it when run as root)`;
if (skipReason) console.error(`[docs-browser] skipped: ${skipReason}`);

const openapi = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as OpenApiDocument;
const documented = Object.entries(openapi.paths)
  .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
  .sort();

let api: LocalApi;
let browser: BrowserContext;
let profile: string;
let staticFolder: string;
let staticServer: Server;
let staticUrl: string;

beforeAll(async () => {
  if (skipReason) return;
  api = await startLocalApi();
  profile = mkdtempSync(join(tmpdir(), 'docs-browser-profile-'));
  // A persistent context is how playwright takes a fresh --user-data-dir of our own.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

  staticFolder = mkdtempSync(join(tmpdir(), 'docs-static-'));
  buildDocs(staticFolder, api.url);
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png' };
  staticServer = createServer((request, response) => {
    const name = new URL(request.url ?? '/', 'http://x').pathname.replace(/^\/docs\//, '') || 'index.html';
    const file = join(staticFolder, name);
    if (name.includes('..') || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => staticServer.listen(0, '127.0.0.1', resolve));
  const address = staticServer.address();
  staticUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/docs/`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (staticServer ? staticServer.close(resolve) : resolve(undefined)));
  await api?.close();
  for (const folder of [profile, staticFolder]) if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Opens the reference and reads the operations it shows, as `METHOD /path`. */
async function operationsOnPage(url: string): Promise<{ page: Page; operations: string[]; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
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
