import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { standaloneBundle } from '../../client/scripts/build';
import { createClient, memoryStorage } from '../../client/src/index';
import type { ClientOptions, Storage } from '../../client/src/index';
import { startFaultProxy } from '../support/fault-proxy';
import { launchChromium, pageWithClient, servePages } from '../support/headless-chromium';
import type { HeadlessChromium, PageServer } from '../support/headless-chromium';
import type { FaultProxy } from '../support/fault-proxy';
import { latestCode, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/** Retries quick enough for tests; the policy is the same as in an app. */
export const FAST_RETRY = { baseDelayMs: 20, maxDelayMs: 200, timeoutMs: 5000 };

export function testClient(baseUrl: string, options: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl, retry: FAST_RETRY, clientName: 'client test', ...options });
}

/** A new person signed in with an e-mail code through the client, as an app does it. */
export async function signedInClient(api: LocalApi, baseUrl: string, options: Partial<ClientOptions> & { storage?: Storage } = {}) {
  const storage = options.storage ?? memoryStorage();
  const client = testClient(baseUrl, { ...options, storage });
  const target = uniqueEmail('client');
  await client.auth.sendCode({ type: 'email', target });
  const session = await client.auth.verifyCode({ target, verifyCode: latestCode(api, target) });
  return { client, storage, target, session };
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The real local server (DynamoDB Local) behind a fault-injecting proxy, for one test file:
 * started before its tests, the proxy healed and its log cleared after each, both closed at the
 * end. `started` hands them to the file: `useServersBehindFaultProxy((servers) => ({ api, proxy } = servers))`.
 */
export function useServersBehindFaultProxy(started: (servers: { api: LocalApi; proxy: FaultProxy }) => void, settings?: Record<string, string>): void {
  let servers: { api: LocalApi; proxy: FaultProxy } | undefined;
  beforeAll(async () => {
    const api = await startLocalApi(settings);
    servers = { api, proxy: await startFaultProxy(api.url) };
    started(servers);
  });
  afterEach(() => {
    servers?.proxy.heal();
    if (servers) servers.proxy.seen.length = 0;
  });
  afterAll(async () => {
    await servers?.proxy.close();
    await servers?.api.close();
  });
}

/**
 * For a browser test file: the built client (one minified ES module) beside `page`, served on its
 * own origin, the real local server, and headless Chromium, all closed at the end. On `localhost`
 * (`secureContext`) the page is a secure context, as WebAuthn needs, and its origin is the
 * server's WEBAUTHN_ORIGINS. `started` hands them to the file; nothing starts when `skip` is set.
 */
export function useClientPageInChromium(
  label: string,
  page: string,
  started: (setup: { api: LocalApi; browser: BrowserContext; pageUrl: string }) => void,
  options: { skip?: string | undefined; secureContext?: boolean } = {},
): void {
  let chromium: HeadlessChromium | undefined;
  let pages: PageServer | undefined;
  let api: LocalApi | undefined;
  beforeAll(async () => {
    if (options.skip) return;
    const bundle = (await build(standaloneBundle)).outputFiles![0]!.contents;
    pages = await servePages(pageWithClient(page, bundle), options.secureContext ? 'localhost' : '127.0.0.1');
    // The page's origin is the one its ceremonies report in clientDataJSON.
    api = await startLocalApi(options.secureContext ? { WEBAUTHN_ORIGINS: pages.origin } : {});
    // The page server listens on 127.0.0.1 only.
    chromium = await launchChromium(label, options.secureContext ? ['--host-resolver-rules=MAP localhost 127.0.0.1'] : []);
    started({ api, browser: chromium.browser, pageUrl: `${pages.origin}/` });
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
    await pages?.close();
    await api?.close();
  });
}
