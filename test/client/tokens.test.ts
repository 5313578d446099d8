import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError, SignedOutError, memoryStorage } from '../../client/src/index';
import type { Storage } from '../../client/src/index';
import { STORAGE_KEYS } from '../../client/src/storage';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient, testClient, useServersBehindFaultProxy } from './support';

/**
 * The client's token rules against the real local server (DynamoDB Local), with tokens that live
 * 3 seconds, and a proxy between them that counts requests and injects the faults of a phone's
 * network.
 *
 * Time is a clock the test moves, not a wait: each case fakes `Date` (vitest's fake timers, `Date`
 * alone), which the client reads for its tokens' expiry and the server's clock (`api.clock`, a
 * MovableClock on `Date.now()`) reads too, so both move together by exactly what a case says and
 * stand still otherwise. Requests go over real sockets with the real timers (the client's retries
 * and their backoff too); the auto-refresh case alone fakes setTimeout as well, for the client's
 * timer. Real timers are back after each case: the files of this project share one process.
 */
const TOKEN_SECONDS = 3;
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers), { TOKEN_TTL_MS: String(TOKEN_SECONDS * 1000), REFRESH_GRACE_SECONDS: '5' });
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  api.clock.reset();
});

const refresh = route('POST', '/api/auth/token/refresh');
const me = route('GET', '/api/users/me');
/** The client's and the server's clock move `ms` on (no timer is faked here, so none fires). */
const later = (ms: number) => void vi.advanceTimersByTime(ms);
const expire = () => later(TOKEN_SECONDS * 1000 + 100);

/** One turn of the real event loop (setImmediate is never faked here): the promise callbacks queued before it have run. */
const turn = () => new Promise<void>((done) => setImmediate(done));

/**
 * With setTimeout faked too: the clock moves `ms` on in steps of 50 ms, firing the timers that come
 * due; before each next step, every refresh sent so far has been answered and its session stored
 * (`answered`), so a timer set after an answer is set before the clock moves past it.
 */
async function elapse(ms: number, answered: () => boolean) {
  for (let moved = 0; moved < ms; moved += 50) {
    await vi.advanceTimersByTimeAsync(Math.min(50, ms - moved));
    const deadline = performance.now() + 15_000;
    while (!answered()) {
      if (performance.now() > deadline) throw new Error('a refresh was not answered within 15 s');
      await turn();
    }
    await turn();
  }
}

describe('the client keeps a person signed in', () => {
  it('answers 20 parallel calls with an expired token after exactly one refresh', async () => {
    const { client, session } = await signedInClient(api, proxy.url);
    expire();
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.users.me()));
    expect(answers.map((user) => user.userId)).toEqual(Array(20).fill(session.userId));
    expect(proxy.count(refresh)).toBe(1);
    expect(proxy.count(me)).toBe(20);
  });

  it('after a 401 refreshes once and retries once with the same body, and never loops', async () => {
    const { storage } = await signedInClient(api, proxy.url);
    // The stored token is refused by the service though it looks valid here (a key rotation, say).
    const stored = JSON.parse((await storage.get(STORAGE_KEYS.session))!);
    await storage.set(STORAGE_KEYS.session, JSON.stringify({ ...stored, token: `${stored.token.slice(0, -4)}AAAA` }));
    const fresh = testClient(proxy.url, { storage });
    const record = await fresh.transcriptions.create({ recordTitle: 'After a 401', text: 'Hello', language: 'en-US', durationSeconds: 12 });
    expect(record.recordTitle).toBe('After a 401');
    const posts = proxy.seen.filter(route('POST', '/api/transcriptions'));
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body).toBe(posts[0]!.body);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(proxy.count(refresh)).toBe(1);

    // A service that refuses even the refreshed token: one refresh, one retry, then the 401.
    proxy.seen.length = 0;
    proxy.answer(me, 401);
    await expect(fresh.users.me()).rejects.toMatchObject({ status: 401 });
    expect(proxy.count(me)).toBe(2);
    expect(proxy.count(refresh)).toBe(1);
  });

  it('refreshes before each call when less than half the lifetime is left, and on startAutoRefresh', async () => {
    const { client } = await signedInClient(api, proxy.url);
    await client.users.me();
    expect(proxy.count(refresh)).toBe(0);
    later((TOKEN_SECONDS * 1000) / 2 + 100);
    await client.users.me();
    expect(proxy.count(refresh)).toBe(1);
    later((TOKEN_SECONDS * 1000) / 2 + 100);
    // The app comes back to the front: the check runs at once, not when a timer would have fired.
    await client.auth.startAutoRefresh();
    client.auth.stopAutoRefresh();
    expect(proxy.count(refresh)).toBe(2);
    expect(proxy.count(me)).toBe(1 + 1);
  });

  it('keeps refreshing by itself while auto refresh runs, and no timer runs before', async () => {
    // The client's timer fires when the clock reaches it: setTimeout is faked from before the sign-in.
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const memory = memoryStorage();
    let stored = 0;
    const storage: Storage = {
      ...memory,
      set(key, value) {
        if (key === STORAGE_KEYS.session) stored++;
        return memory.set(key, value);
      },
    };
    const { client } = await signedInClient(api, proxy.url, { storage });
    // The sign-in stored the first session; each refresh stores the next.
    const answered = () => proxy.count(refresh) === stored - 1;
    await elapse(TOKEN_SECONDS * 1000 + 200, answered);
    expect(proxy.count(refresh)).toBe(0);
    await client.auth.startAutoRefresh();
    await elapse(TOKEN_SECONDS * 1000 * 2, answered);
    client.auth.stopAutoRefresh();
    expect(proxy.count(refresh)).toBeGreaterThanOrEqual(3);
    const settled = proxy.count(refresh);
    await elapse(TOKEN_SECONDS * 1000, answered);
    expect(proxy.count(refresh)).toBe(settled);
    await client.users.me();
  });

  it('two instances on one storage refreshing at the same moment both work, and the session lives on', async () => {
    const { client: app, storage, session } = await signedInClient(api, proxy.url);
    const widget = testClient(proxy.url, { storage });
    expire();
    const [a, b] = await Promise.all([app.users.me(), widget.users.me()]);
    expect([a.userId, b.userId]).toEqual([session.userId, session.userId]);
    expect(proxy.count(refresh)).toBeGreaterThanOrEqual(1);
    expect(proxy.count(refresh)).toBeLessThanOrEqual(2);
    // Later refreshes, from either, still work: the session was not taken for stolen.
    for (let round = 0; round < 2; round++) {
      expire();
      await (round === 0 ? widget : app).users.me();
      await (round === 0 ? app : widget).users.me();
    }
    const sessions = await app.api.GET('/auth/sessions');
    expect(sessions.response.status).toBe(200);
  });

  it('a second instance that finds rotated tokens in storage uses them instead of refreshing', async () => {
    const { client: app, storage } = await signedInClient(api, proxy.url);
    const widget = testClient(proxy.url, { storage });
    await widget.users.me();
    expire();
    await app.users.me();
    expect(proxy.count(refresh)).toBe(1);
    // The widget's token in memory is the old one, but storage holds the new: no second refresh.
    await widget.users.me();
    expect(proxy.count(refresh)).toBe(1);
  });

  it('signs out once, and sends nothing more, when a stolen copy of an old refresh token ends the session', async () => {
    const signedOut: string[] = [];
    const { client, storage } = await signedInClient(api, proxy.url, { onSignedOut: (reason) => signedOut.push(reason) });
    const stolen = JSON.parse((await storage.get(STORAGE_KEYS.session))!).refreshToken as string;
    expire();
    await client.users.me();
    expect(proxy.count(refresh)).toBe(1);
    // The thief uses the spent token after the grace window: the service ends the session.
    api.clock.advance(10);
    const theft = await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: stolen } });
    expect(theft.body.error).toBe('SESSION_ENDED');

    const calls = await Promise.allSettled(Array.from({ length: 5 }, () => client.users.me()));
    expect(calls.every((call) => call.status === 'rejected' && call.reason instanceof SignedOutError)).toBe(true);
    expect(signedOut).toEqual(['SESSION_ENDED']);
    expect(await storage.get(STORAGE_KEYS.session)).toBeFalsy();
    const sent = proxy.seen.length;
    await expect(client.users.me()).rejects.toBeInstanceOf(SignedOutError);
    await expect(client.transcriptions.create({ recordTitle: 'x', text: '', language: 'en-US', durationSeconds: 1 })).rejects.toBeInstanceOf(SignedOutError);
    expect(proxy.seen.length).toBe(sent);
    expect(signedOut).toEqual(['SESSION_ENDED']);
  });

  it('stays signed in when the service answers 503 during a refresh, and works once it recovers', async () => {
    const signedOut: string[] = [];
    const { client, storage } = await signedInClient(api, proxy.url, { onSignedOut: (reason) => signedOut.push(reason) });
    expire();
    proxy.answer(refresh, 503);
    await expect(client.users.me()).rejects.toBeInstanceOf(ApiError);
    expect(proxy.count(refresh)).toBeGreaterThan(1); // retried, with backoff
    proxy.heal();
    proxy.answer(refresh, 429, Infinity, { 'Retry-After': '0' });
    await expect(client.users.me()).rejects.toMatchObject({ status: 429 });
    proxy.heal();
    expect(await storage.get(STORAGE_KEYS.session)).toBeTruthy();
    expect((await client.users.me()).userId).toBeGreaterThan(0);
    expect(signedOut).toEqual([]);
  });

  it('stays signed in when the service is unreachable during a refresh, and works once it is back', async () => {
    const signedOut: string[] = [];
    const { client, storage } = await signedInClient(api, proxy.url, { onSignedOut: (reason) => signedOut.push(reason) });
    expire();
    proxy.offline();
    await expect(client.users.me()).rejects.toBeInstanceOf(NetworkError);
    proxy.online();
    expect(await storage.get(STORAGE_KEYS.session)).toBeTruthy();
    expect((await client.users.me()).userId).toBeGreaterThan(0);
    expect(signedOut).toEqual([]);
  });

  it('uses a not-yet-expired token when the early refresh fails for a passing reason', async () => {
    const { client } = await signedInClient(api, proxy.url);
    later((TOKEN_SECONDS * 1000) / 2 + 100);
    proxy.answer(refresh, 503);
    expect((await client.users.me()).userId).toBeGreaterThan(0);
  });

  it('throws a signed-out error without a request before any sign-in', async () => {
    const client = testClient(proxy.url, { storage: memoryStorage() });
    await expect(client.users.me()).rejects.toBeInstanceOf(SignedOutError);
    expect(proxy.seen).toHaveLength(0);
  });

  it('logout ends the session on the service, and clears local state even when the service cannot be reached', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    const refreshToken = JSON.parse((await storage.get(STORAGE_KEYS.session))!).refreshToken as string;
    await client.auth.logout();
    expect(await storage.get(STORAGE_KEYS.session)).toBeFalsy();
    const after = await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken } });
    expect(after.body.error).toBe('SESSION_ENDED');

    const offline = await signedInClient(api, proxy.url);
    proxy.offline();
    await offline.client.auth.logout();
    expect(await offline.storage.get(STORAGE_KEYS.session)).toBeFalsy();
    await expect(offline.client.users.me()).rejects.toBeInstanceOf(SignedOutError);
  });
});
