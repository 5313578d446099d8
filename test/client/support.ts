import { createClient, memoryStorage } from '../../client/src/index';
import type { ClientOptions, Storage } from '../../client/src/index';
import { latestCode, uniqueEmail } from '../support/local-api';
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
