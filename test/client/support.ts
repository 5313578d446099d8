import { afterAll, afterEach, beforeAll } from 'vitest';
import { createClient, memoryStorage } from '../../client/src/index';
import type { ClientOptions, Storage } from '../../client/src/index';
import { startFaultProxy } from '../support/fault-proxy';
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
