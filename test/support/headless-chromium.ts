import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * Headless Chromium for the browser tests (the /docs reference, the app client, passkeys): Debian's
 * `chromium` package driven by playwright-core. infra/local/ensure-deps.mjs installs it before
 * `npm test` where it can (root with apt-get); elsewhere the browser tests are skipped, saying why.
 */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can; said once per file that skips. */
export function chromiumMissing(label: string): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium; npm test does it when run as root)`;
  console.error(`[${label}] skipped: ${reason}`);
  return reason;
}

export interface HeadlessChromium {
  browser: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser with a profile of its own (a persistent context is how playwright takes a --user-data-dir), removed on close. */
export async function launchChromium(label: string, extraArgs: string[] = []): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), `${label}-profile-`));
  const browser = await chromium.launchPersistentContext(profile, {
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
      ...extraArgs,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface PageServer {
  /** `http://<host>:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** A plain HTTP server for a test's pages on 127.0.0.1; `host` names it in the origin (`localhost` for a secure context). */
export async function servePages(handler: RequestListener, host = '127.0.0.1'): Promise<PageServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    origin: `http://${host}:${typeof address === 'object' && address ? address.port : 0}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A page and the built client beside it, as the client's browser tests load it. */
export function pageWithClient(page: string, clientBundle: Uint8Array): RequestListener {
  return (request, response) => {
    if (request.url === '/client.js') response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(clientBundle);
    else if (request.url === '/') response.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
    else if (request.url === '/favicon.ico') response.writeHead(204).end();
    else response.writeHead(404).end();
  };
}

/** A new tab that collects the page's errors (uncaught and console), which a test expects to stay empty. */
export async function newPageWatchingErrors(browser: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  return { page, problems };
}
