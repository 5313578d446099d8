import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpeechError } from '../../client/src/index';
import type { ApiError, SignedOutError, SpeechClock, SpeechCredential, SpeechEndReason, SpeechQuota, SpeechSession, SpeechStartOptions } from '../../client/src/index';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { route, startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { startSpeechApi } from '../support/speech';
import { signedInClient } from './support';

/**
 * The client's speech sessions (issue 44, docs/client.md#speech-sessions) against the real local
 * server and its Azure and Deepgram stand-ins, through the fault proxy. The client's monotonic
 * clock and timers are a fake the test moves; the server's clock is frozen and moved with it, so
 * the clock alone decides when a renewal goes and what `elapsedSeconds` it reports. The settings:
 * a heartbeat of 20 s and a day of 110 s (Deepgram's grant lives max(60, two heartbeats) = 60 s,
 * its renewAfter a heartbeat before it expires).
 */
let api: LocalApi;
let standIns: ProviderStandIns;
let proxy: FaultProxy;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const servers = await startSpeechApi({ SPEECH_PROVIDERS: 'azure,deepgram,tencent', SPEECH_HEARTBEAT_SECONDS: '20', SPEECH_DAILY_SECONDS: '110' });
  ({ api, standIns } = servers);
  close = servers.close;
  proxy = await startFaultProxy(api.url);
});
afterEach(() => {
  proxy.heal();
  proxy.seen.length = 0;
  standIns.speech.mode = 'ok';
  api.clock.reset();
});
afterAll(async () => {
  await proxy?.close();
  await close?.();
});

const startRoute = route('POST', '/api/speech/sessions');
const renewRoute = (request: { method: string; path: string }) => request.method === 'POST' && request.path.endsWith('/renew');
const renewals = () => proxy.seen.filter(renewRoute).map((request) => (JSON.parse(request.body) as { elapsedSeconds: number }).elapsedSeconds);

/** A monotonic clock and timers that move only when the test says. */
class FakeClock implements SpeechClock {
  private at = 5_000;
  private next = 1;
  private readonly timers = new Map<number, { due: number; callback: () => void }>();
  now() {
    return this.at;
  }
  setTimeout(callback: () => void, ms: number) {
    const id = this.next++;
    this.timers.set(id, { due: this.at + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown) {
    this.timers.delete(handle as number);
  }
  get pending() {
    return this.timers.size;
  }
  /** Moves without firing anything (the time streamed since the last renewal). */
  advance(ms: number) {
    this.at += ms;
  }
  /** Moves to the earliest timer's moment and fires it; answers how far it moved (ms). */
  fireNext(): number {
    const [id, timer] = [...this.timers.entries()].sort((a, b) => a[1].due - b[1].due)[0] ?? [];
    if (id === undefined || !timer) throw new Error('no timer is set');
    const moved = timer.due - this.at;
    this.at = timer.due;
    this.timers.delete(id);
    timer.callback();
    return moved;
  }
}

async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A person with a client whose speech sessions run on a fake clock, the server's clock frozen at a whole second and moved with it. */
async function streaming(overrides: Partial<SpeechStartOptions> = {}, server: { api: LocalApi; baseUrl: string } = { api, baseUrl: proxy.url }) {
  const { api } = server;
  const { client } = await signedInClient(api, server.baseUrl);
  api.clock.freeze(new Date(Math.floor(Date.now() / 1000) * 1000));
  const clock = new FakeClock();
  const seen = { credentials: [] as { credential: SpeechCredential; authorization: string | undefined; serverNow: number }[], quota: [] as SpeechQuota[], ends: [] as { reason: SpeechEndReason; error: ApiError | SignedOutError | undefined }[], renewErrors: [] as unknown[] };
  const session = await client.speech.start({
    provider: 'deepgram',
    language: 'en-US',
    clock,
    onCredential: (credential, connect) => seen.credentials.push({ credential, authorization: connect.headers?.Authorization, serverNow: api.clock.now().getTime() }),
    onQuota: (quota) => seen.quota.push(quota),
    onEnd: (reason, error) => seen.ends.push({ reason, error }),
    onRenewError: (error) => seen.renewErrors.push(error),
    ...overrides,
  });
  /** The next timer: both clocks move to it (the server's `lagSeconds` less: a request arriving that much sooner than its timer says), it fires, and the renewal it sent is answered (a next timer set, or the session ended). */
  const tick = async (lagSeconds = 0) => {
    api.clock.advance(clock.fireNext() / 1000 - lagSeconds);
    await until(() => clock.pending > 0 || session.state === 'ended', 'the renewal to be answered');
  };
  return { client, session, clock, seen, tick };
}

const usedToday = async (session: { quota(): Promise<SpeechQuota> }) => (await session.quota()).day.usedSeconds;

describe('client.speech: a session that renews itself', () => {
  it('renews every heartbeat with the elapsed time of its clock, hands a new credential just after renewAfter, well before the held one expires, and end answers the charge', async () => {
    const { client, session, clock, seen, tick } = await streaming();
    const initial = session.credential;
    expect(session.state).toBe('live');
    expect(session.credential.value).toBe(standIns.speech.issued.deepgram.at(-1)!.token);
    expect(session.connect.headers).toEqual({ Authorization: `Bearer ${session.credential.value}` });
    // Nothing goes until the clock says so.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(renewals()).toEqual([]);
    for (let beat = 1; beat <= 4; beat++) await tick();
    // Deepgram's 60 s grant: renewAfter 40 s after it was issued. The renewal for it goes a second
    // after (at 41 s and 82 s) and gets a new grant the stand-in issued, 19 s before the held one expires.
    expect(renewals()).toEqual([20, 41, 61, 82]);
    expect(clock.now() - 5_000).toBe(82_000);
    const grants = standIns.speech.issued.deepgram.slice(-3).map((grant) => grant.token);
    expect(seen.credentials.map((handed) => handed.credential.value)).toEqual(grants.slice(1));
    expect(grants[0]).toBe(initial.value);
    let held = initial;
    for (const handed of seen.credentials) {
      expect(handed.credential.value).not.toBe(held.value);
      expect(handed.authorization).toBe(`Bearer ${handed.credential.value}`);
      // Handed a second after the held one's renewAfter, 19 s before it expires.
      expect(handed.serverNow).toBe(Date.parse(held.renewAfter) + 1_000);
      expect(Date.parse(held.expiresAt) - handed.serverNow).toBe(19_000);
      held = handed.credential;
    }
    expect(await usedToday(client.speech)).toBe(82);
    expect(seen.quota).toEqual([]);
    // The app ends it 7.5 s after the last renewal: charged 90 s (rounded up), the timers stopped.
    api.clock.advance(7.5);
    clock.advance(7_500);
    const ended = await session.end();
    expect(ended).toMatchObject({ sessionId: session.sessionId, chargedSeconds: 90, quota: { day: { usedSeconds: 90, remainingSeconds: 20 }, liveSessions: 0 } });
    expect(session.state).toBe('ended');
    expect(seen.ends).toEqual([{ reason: 'app', error: undefined }]);
    expect(clock.pending).toBe(0);
    // Repeated: the same answer, charged once.
    expect(await session.end()).toEqual(ended);
    expect(await usedToday(client.speech)).toBe(90);
  });

  it('warns once when less than a fifth of the day is left; the refused renewal at the limit ends the session with reason quota, never a throw', async () => {
    const { client, session, seen, tick } = await streaming();
    expect(session.limits.maxSeconds).toBe(110);
    for (let beat = 1; beat <= 4; beat++) await tick();
    expect(seen.quota).toEqual([]);
    await tick();
    // 102 s used of 110: 8 s left, less than 22 (after 82 s, 28 s left, it was not).
    expect(seen.quota).toHaveLength(1);
    expect(seen.quota[0]!.day).toMatchObject({ usedSeconds: 102, remainingSeconds: 8, limitSeconds: 110 });
    // The next renewal goes when the session reaches maxSeconds, not a heartbeat later: refused, and the session ends.
    await tick();
    expect(renewals()).toEqual([20, 41, 61, 82, 102, 110]);
    expect(session.state).toBe('ended');
    expect(session.endReason).toBe('quota');
    expect(seen.ends).toHaveLength(1);
    expect(seen.ends[0]!.reason).toBe('quota');
    expect(seen.ends[0]!.error).toBeInstanceOf(SpeechError);
    expect((seen.ends[0]!.error as SpeechError).resetsAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(seen.quota).toHaveLength(1);
    // The service settled it: end answers the charge, and the next start is refused with when minutes come back.
    expect(await session.end()).toMatchObject({ chargedSeconds: 110, quota: { day: { usedSeconds: 110, remainingSeconds: 0 } } });
    expect(seen.ends).toHaveLength(1);
    const refused = await client.speech.start({ provider: 'azure', language: 'en-US' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SpeechError);
    expect(refused).toMatchObject({ status: 403, error: 'SPEECH_QUOTA_EXHAUSTED', resetsAt: (seen.ends[0]!.error as SpeechError).resetsAt });
  });

  it('a renewal whose answer was lost, or that met no network, is retried with the same elapsed time and charged once; the session goes on', async () => {
    const { client, session, seen, tick } = await streaming();
    proxy.loseAnswer(renewRoute, 1);
    await tick();
    // The service charged the first; the client's retry (same body) charged nothing more.
    expect(renewals()).toEqual([20, 20]);
    expect(session.quota.day.usedSeconds).toBe(20);
    expect(seen.renewErrors).toEqual([]);
    // No network at all (the renewal at 41 s): the retries run out, the app hears of it, and the renewal goes again a quarter heartbeat later.
    proxy.offline();
    await tick();
    expect(seen.renewErrors).toHaveLength(1);
    expect(session.state).toBe('live');
    proxy.online();
    await tick();
    expect(renewals().at(-1)).toBe(46);
    expect(session.quota.day.usedSeconds).toBe(46);
    expect(await usedToday(client.speech)).toBe(46);
    await session.end();
  });

  it('a renewal arriving a moment sooner than the app’s clock says still gets the new credential well before the held one expires', async () => {
    const { session, seen, tick } = await streaming();
    const first = session.credential;
    const started = api.clock.now().getTime();
    await tick();
    // From here the service's clock is 0.6 s behind the app's: each request arrives that much "early", as a faster network makes it.
    await tick(0.6);
    expect(api.clock.now().getTime() - started).toBe(40_400);
    expect(seen.credentials).toHaveLength(1);
    expect(seen.credentials[0]!.credential.value).not.toBe(first.value);
    expect(Date.parse(first.expiresAt) - seen.credentials[0]!.serverNow).toBe(19_600);
    await session.end();
  });

  it('a session the service expired (no renewal for two heartbeats) ends with reason ended', async () => {
    const { session, seen, tick } = await streaming();
    // The phone slept: the server's time passed, the app's timers did not run.
    api.clock.advance(41);
    await tick();
    expect(session.state).toBe('ended');
    expect(seen.ends.map((end) => [end.reason, (end.error as ApiError | undefined)?.error])).toEqual([['ended', 'SPEECH_SESSION_ENDED']]);
  });
});

describe('client.speech.start', () => {
  it('makes a lower-case UUID clientSessionId; a start whose answer was lost is sent again with it and answers the one session', async () => {
    const { client } = await signedInClient(api, proxy.url);
    proxy.loseAnswer(startRoute, 1);
    const session: SpeechSession = await client.speech.start({ provider: 'azure', language: 'en-US', clock: new FakeClock() });
    const bodies = proxy.seen.filter(startRoute).map((request) => JSON.parse(request.body) as { clientSessionId: string });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]!.clientSessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(bodies[1]!.clientSessionId).toBe(bodies[0]!.clientSessionId);
    expect(session.clientSessionId).toBe(bodies[0]!.clientSessionId);
    expect(session.credential.value).toBe(standIns.speech.issued.azure.at(-1));
    expect((await client.speech.quota()).liveSessions).toBe(1);
    // Every answer lost: no session object, but the next start of the same body sends the same id and gets that session.
    proxy.loseAnswer(startRoute, Infinity);
    const lost = await client.speech.start({ provider: 'tencent', language: 'zh-CN', clock: new FakeClock() }).catch((error: unknown) => error);
    expect((lost as Error).name).toBe('NetworkError');
    proxy.heal();
    const again = await client.speech.start({ provider: 'tencent', language: 'zh-CN', clock: new FakeClock() });
    const tencentIds = new Set(proxy.seen.filter(startRoute).slice(2).map((request) => (JSON.parse(request.body) as { clientSessionId: string }).clientSessionId));
    expect(tencentIds).toEqual(new Set([again.clientSessionId]));
    expect((await client.speech.quota()).liveSessions).toBe(2);
    await Promise.all([session.end(), again.end()]);
  });

  it('refusals are SpeechErrors with their fields: PROVIDER_NOT_CONFIGURED, LANGUAGE_NOT_SUPPORTED with supportedProviders, PROVIDER_UNAVAILABLE with fallbackProviders and Retry-After (answered at once), SPEECH_SESSIONS_LIMIT', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const refusal = (options: Omit<SpeechStartOptions, 'clock'>) => client.speech.start({ ...options, clock: new FakeClock() }).catch((error: unknown) => error as SpeechError);

    expect(await refusal({ provider: 'aws', language: 'en-US' })).toMatchObject({ name: 'SpeechError', status: 404, error: 'PROVIDER_NOT_CONFIGURED' });
    const language = await refusal({ provider: 'tencent', language: 'ja-JP' });
    expect(language).toBeInstanceOf(SpeechError);
    expect(language).toMatchObject({ status: 400, error: 'LANGUAGE_NOT_SUPPORTED', supportedProviders: ['azure', 'deepgram'] });

    standIns.speech.mode = 'fail';
    const before = proxy.count(startRoute);
    const unavailable = await refusal({ provider: 'deepgram', language: 'en-US' });
    expect(unavailable).toMatchObject({ status: 503, error: 'PROVIDER_UNAVAILABLE', fallbackProviders: ['azure', 'tencent'], retryAfterSeconds: 5 });
    // The app may switch to a fallback at once: the client did not wait out the provider's Retry-After.
    expect(proxy.count(startRoute) - before).toBe(1);
    standIns.speech.mode = 'ok';

    const first = await client.speech.start({ provider: 'tencent', language: 'en-US', clock: new FakeClock() });
    const second = await client.speech.start({ provider: 'azure', language: 'en-US', clock: new FakeClock() });
    expect(await refusal({ provider: 'deepgram', language: 'en-US' })).toMatchObject({ status: 409, error: 'SPEECH_SESSIONS_LIMIT' });
    await first.end();
    const third = await client.speech.start({ provider: 'deepgram', language: 'en-US', clock: new FakeClock() });
    await Promise.all([second.end(), third.end()]);
  });
});

describe('client.speech with a heartbeat shorter than a tenth of the credential’s life', () => {
  it('renews just after the credential’s renewAfter when it comes before the next heartbeat, and a heartbeat after that renewal next', async () => {
    // A heartbeat of 4 s: Deepgram's grant lives 60 s, its renewAfter at nine tenths (54 s), between the heartbeats of 52 and 56 s.
    const short = await startSpeechApi({ SPEECH_PROVIDERS: 'deepgram', SPEECH_HEARTBEAT_SECONDS: '4' });
    try {
      const { session, seen, tick } = await streaming({}, { api: short.api, baseUrl: short.api.url });
      const first = session.credential;
      const renewedAt: number[] = [];
      const started = short.api.clock.now().getTime();
      while (seen.credentials.length === 0) {
        await tick();
        renewedAt.push((short.api.clock.now().getTime() - started) / 1000);
        expect(renewedAt.length).toBeLessThan(20);
      }
      expect(Date.parse(first.renewAfter) - started).toBe(54_000);
      expect(renewedAt).toEqual([4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 55]);
      // The new grant, handed a second after renewAfter, 5 s before the first expires (the heartbeat alone would have brought it at 56 s).
      expect(seen.credentials[0]!.credential.value).toBe(short.standIns.speech.issued.deepgram.at(-1)!.token);
      expect(seen.credentials[0]!.serverNow).toBe(Date.parse(first.renewAfter) + 1_000);
      expect(Date.parse(first.expiresAt) - seen.credentials[0]!.serverNow).toBe(5_000);
      await tick();
      expect((short.api.clock.now().getTime() - started) / 1000).toBe(59);
      expect(session.quota.day.usedSeconds).toBe(59);
      await session.end();
    } finally {
      await short.close();
    }
  });
});
