import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, memoryStorage } from '../../client/src/index';
import type { CaptioningClient, Connectivity, RealtimeConnection, WebSocketFactory, WebSocketLike } from '../../client/src/index';
import { adminHelpers } from '../support/admin';
import { latestCode, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { FAST_RETRY, sleep } from './support';
import { localDatabase, onService } from './sync-support';
import type { LocalDatabase } from './sync-support';

/**
 * The client's live channel (issue 45, docs/realtime.md) against the real local server and its
 * WebSocket endpoint: devices of one person kept equal to the feed by pokes, whatever the pokes
 * suffer on the way (a fault-injecting socket drops, doubles and delays them), another person
 * never poked, bursts coalesced, and the channel stopping for good when the session ends.
 */
let api: LocalApi;
const connections: RealtimeConnection[] = [];

beforeAll(async () => {
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1' });
});
afterAll(async () => {
  for (const connection of connections) connection.close();
  await api?.close();
});

const plainSocket: WebSocketFactory = (url) => new WebSocket(url) as unknown as WebSocketLike;

/** A real socket whose incoming messages go through `receive`, which hands each on (or not) with `deliver`. */
const socketsThrough =
  (receive: (data: unknown, deliver: () => void) => void): WebSocketFactory =>
  (url) => {
    const inner = new WebSocket(url);
    const outer: WebSocketLike = {
      get readyState() {
        return inner.readyState;
      },
      onopen: null,
      onmessage: null,
      onclose: null,
      onerror: null,
      send: (data) => inner.send(data),
      close: (code, reason) => inner.close(code, reason),
    };
    inner.onopen = (event) => outer.onopen?.(event);
    inner.onerror = (event) => outer.onerror?.(event);
    inner.onclose = (event) => outer.onclose?.({ code: event.code, reason: String(event.reason) });
    inner.onmessage = (event) => receive(event.data, () => outer.onmessage?.({ data: event.data }));
    return outer;
  };

/** A socket whose incoming messages are dropped, doubled or delayed at the rates given (changeable while it runs). */
function faultySockets(faults: { drop: number; double: number; delay: number }) {
  let seed = 45;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const stats = { delivered: 0, dropped: 0, doubled: 0, delayed: 0 };
  const factory = socketsThrough((_data, handOn) => {
      const deliver = () => {
        stats.delivered++;
        handOn();
      };
      const roll = random();
      if (roll < faults.drop) stats.dropped++;
      else if (roll < faults.drop + faults.double) {
        stats.doubled++;
        deliver();
        deliver();
      } else if (roll < faults.drop + faults.double + faults.delay) {
        stats.delayed++;
        setTimeout(deliver, random() * 400);
      } else deliver();
  });
  return { factory, stats };
}

/**
 * A socket that holds the messages it receives while `held` and hands them all over at once on
 * `release()`: the burst reaches the client as a burst however long the machine took to commit it.
 */
function holdingSockets() {
  const waiting: Array<() => void> = [];
  const state = { held: false, released: 0 };
  const factory = socketsThrough((data, deliver) => {
    if (state.held && String(data).includes('"changes"')) waiting.push(deliver);
    else deliver();
  });
  const release = () => {
    state.held = false;
    state.released = waiting.length;
    for (const deliver of waiting.splice(0)) deliver();
  };
  return { factory, state, release, waiting: () => waiting.length };
}

/** Connectivity the test switches. */
function switchableNetwork(): Connectivity & { set(online: boolean): void } {
  let online = true;
  const listeners = new Set<(online: boolean) => void>();
  return {
    isOnline: () => online,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set: (value) => {
      online = value;
      for (const listener of listeners) listener(value);
    },
  };
}

interface Device {
  client: CaptioningClient;
  database: LocalDatabase;
  target: string;
}

/** A device signed in with an e-mail code: the person's first, or another of the same person (its own session). */
async function device(target = uniqueEmail('live')): Promise<Device> {
  const client = createClient({ baseUrl: api.url, retry: FAST_RETRY, storage: memoryStorage(), clientName: 'live test' });
  api.clock.advance(2);
  await client.auth.sendCode({ type: 'email', target });
  await client.auth.verifyCode({ target, verifyCode: latestCode(api, target) });
  return { client, database: localDatabase(), target };
}

function live(device: Device, options: Parameters<CaptioningClient['realtime']['connect']>[0] = {}) {
  const connection = device.client.realtime.connect({
    pull: async () => {
      await device.client.transcriptions.sync({ apply: (changes) => device.database.apply(changes) });
      device.database.pulled();
    },
    webSocket: plainSocket,
    ...options,
  });
  connections.push(connection);
  return connection;
}

const untilOpen = (connection: RealtimeConnection) => expect.poll(() => connection.state, { timeout: 5000 }).toBe('open');

describe('realtime.connect()', () => {
  it('brings a save on one device to the other within a second; another person is never poked', async () => {
    const phone = await device();
    const tablet = await device(phone.target);
    const stranger = await device();
    const tabletLive = live(tablet);
    const strangerLive = live(stranger);
    await Promise.all([untilOpen(tabletLive), untilOpen(strangerLive)]);
    await expect.poll(() => strangerLive.pulls).toBe(1);

    phone.database.put(await phone.client.transcriptions.save({ recordTitle: 'Standup', text: 'Good morning.', language: 'en-US', durationSeconds: 5 }));
    await phone.client.transcriptions.sync({ apply: (changes) => phone.database.apply(changes) });
    await expect.poll(() => tablet.database.contents(), { timeout: 1000, interval: 20 }).toEqual([{ recordTitle: 'Standup', text: 'Good morning.' }]);
    expect(tablet.database.contents()).toEqual(phone.database.contents());
    // Every fan-out the save started has finished; 100 ms more for a poke to cross a socket.
    await api.settled();
    await sleep(100);
    expect(strangerLive.pulls).toBe(1);
    expect(stranger.database.contents()).toEqual([]);
  });

  it('ends equal to the feed whatever happens to the pokes (dropped, doubled, delayed), and a change made while disconnected arrives on reconnect without a poke', async () => {
    const phone = await device();
    const tablet = await device(phone.target);
    const faults = { drop: 0.3, double: 0.2, delay: 0.3 };
    const sockets = faultySockets(faults);
    const network = switchableNetwork();
    const tabletLive = live(tablet, { webSocket: sockets.factory, connectivity: network, coalesceMs: 20 });
    await untilOpen(tabletLive);

    for (let round = 0; round < 12; round++) {
      const saved = await phone.client.transcriptions.save({ recordTitle: `Note ${round}`, text: `Text ${round}`, language: 'en-US', durationSeconds: 1 });
      phone.database.put(saved);
      if (round % 3 === 1) await phone.client.transcriptions.update(saved, { text: `Edited ${round}` });
      await phone.client.transcriptions.sync({ apply: (changes) => phone.database.apply(changes) });
      const [first] = [...phone.database.records.values()];
      if (round % 4 === 3 && first) {
        await phone.client.transcriptions.remove(first);
        await phone.client.transcriptions.sync({ apply: (changes) => phone.database.apply(changes) });
      }
      await sleep(30);
    }
    expect(sockets.stats.dropped + sockets.stats.doubled + sockets.stats.delayed).toBeGreaterThan(0);
    // The faults stop; the next change's poke arrives, and its pull brings everything the feed holds.
    Object.assign(faults, { drop: 0, double: 0, delay: 0 });
    await phone.client.transcriptions.save({ recordTitle: 'Last', text: 'the end', language: 'en-US', durationSeconds: 1 });
    await phone.client.transcriptions.sync({ apply: (changes) => phone.database.apply(changes) });
    const service = await onService(phone.client);
    await expect.poll(() => tablet.database.contents(), { timeout: 5000 }).toEqual(service);

    // Offline: the connection goes; every poke from now on is dropped. The change made meanwhile comes with the reconnect's pull.
    Object.assign(faults, { drop: 1 });
    network.set(false);
    tabletLive.close();
    const again = live(tablet, { webSocket: sockets.factory, connectivity: network });
    expect(again.state).toBe('offline');
    await phone.client.transcriptions.save({ recordTitle: 'While away', text: 'offline change', language: 'en-US', durationSeconds: 1 });
    await phone.client.transcriptions.sync({ apply: (changes) => phone.database.apply(changes) });
    await sleep(200);
    expect(again.pulls).toBe(0);
    const delivered = sockets.stats.delivered;
    network.set(true);
    await expect.poll(() => tablet.database.contents(), { timeout: 5000 }).toEqual(await onService(phone.client));
    expect(tablet.database.contents()).toContainEqual({ recordTitle: 'While away', text: 'offline change' });
    // No poke reached it: the pull after the reconnect brought the change.
    expect(sockets.stats.delivered).toBe(delivered);
  });

  it('pulls at most twice for a burst of 50 changes, never two at once', async () => {
    const phone = await device();
    const tablet = await device(phone.target);
    let inFlight = 0;
    let most = 0;
    const sockets = holdingSockets();
    // Pokes are gathered until none came for 250 ms (an app's default is a second): the same coalescing, sooner.
    const coalesceMs = 250;
    const tabletLive = live(tablet, {
      webSocket: sockets.factory,
      coalesceMs,
      pull: async () => {
        most = Math.max(most, ++inFlight);
        try {
          await tablet.client.transcriptions.sync({ apply: (changes) => tablet.database.apply(changes) });
        } finally {
          inFlight--;
        }
      },
    });
    await untilOpen(tabletLive);
    await expect.poll(() => tabletLive.pulls).toBe(1);
    // 50 saves at once (an app's batch, another device's import): each commits on its own, each commit pokes.
    // The pokes are held until every save has answered and then arrive together, as a burst does on a
    // quiet network: on a loaded machine the commits alone can take longer than the coalescing window.
    sockets.state.held = true;
    const saves = await Promise.all(
      Array.from({ length: 50 }, (_, index) => phone.client.api.POST('/transcriptions', { body: { recordTitle: `Burst ${index}`, text: 'x', language: 'en-US', durationSeconds: 1 } })),
    );
    expect(saves.every((save) => save.response.status === 200)).toBe(true);
    // The service's pokes for the burst (it gathers an account's commits while a fan-out runs, so one or more).
    await expect.poll(() => sockets.waiting(), { timeout: 5000 }).toBeGreaterThan(0);
    // Every fan-out the saves started has sent its pokes; 100 ms more for them to cross the socket.
    await api.settled();
    await sleep(100);
    expect(tabletLive.pulls).toBe(1);
    sockets.release();
    await expect.poll(() => tablet.database.records.size, { timeout: 10_000 }).toBe(50);
    // The first poke pulls at once; the others, arriving during that pull, are gathered (until none came for
    // coalesceMs) into one more: never a pull per poke, and nothing after (three coalescing windows on).
    const due = Math.min(sockets.state.released, 2);
    await expect.poll(() => tabletLive.pulls - 1, { timeout: 5000 }).toBe(due);
    await sleep(3 * coalesceMs);
    expect(tabletLive.pulls - 1).toBe(due);
    expect(most).toBe(1);
  });

  it('stops and tells the app when another device signs it out (4001), and does not reconnect', async () => {
    const phone = await device();
    const tablet = await device(phone.target);
    const ended: string[] = [];
    const tabletLive = live(tablet, { onSessionEnded: (reason) => ended.push(reason), backoff: { baseDelayMs: 10, maxDelayMs: 50 } });
    await untilOpen(tabletLive);
    const { data: sessions } = await phone.client.api.GET('/auth/sessions');
    const other = sessions!.find((session) => !session.current)!;
    expect((await phone.client.api.DELETE('/auth/sessions/{sessionId}', { params: { path: { sessionId: other.sessionId } } })).response.status).toBe(200);
    await expect.poll(() => tabletLive.state).toBe('stopped');
    expect(ended).toEqual(['SESSION_ENDED']);
    const pulls = tabletLive.pulls;
    // Stopped for good: no reconnect, no ticket, no pull on the next change.
    await phone.client.transcriptions.save({ recordTitle: 'After', text: 'x', language: 'en-US', durationSeconds: 1 });
    await phone.client.transcriptions.sync({ apply: () => undefined });
    await sleep(300);
    expect(tabletLive.state).toBe('stopped');
    expect(tabletLive.pulls).toBe(pulls);
  });

  it('stops when support disables the account', async () => {
    const tablet = await device();
    const ended: string[] = [];
    const tabletLive = live(tablet, { onSessionEnded: (reason) => ended.push(reason) });
    await untilOpen(tabletLive);
    const { data: me } = await tablet.client.api.GET('/users/me');
    expect((await adminHelpers(api).change(me!.userId, 'disable')).status).toBe(200);
    await expect.poll(() => tabletLive.state).toBe('stopped');
    expect(ended).toHaveLength(1);
  });

  it('reconnects with a new ticket after the connection drops, and pulls on reconnect', async () => {
    const limited = await startLocalApi({ REALTIME_MAX_CONNECTION_SECONDS: '1' });
    try {
      const client = createClient({ baseUrl: limited.url, retry: FAST_RETRY, storage: memoryStorage() });
      const target = uniqueEmail('reconnect');
      await client.auth.sendCode({ type: 'email', target });
      await client.auth.verifyCode({ target, verifyCode: latestCode(limited, target) });
      const states: string[] = [];
      const connection = client.realtime.connect({ apply: () => undefined, webSocket: plainSocket, backoff: { baseDelayMs: 10, maxDelayMs: 50 }, onStateChange: (state) => states.push(state) });
      connections.push(connection);
      // The server closes it after a second (1001); the client opens another, and pulls again.
      await expect.poll(() => connection.pulls, { timeout: 8000 }).toBeGreaterThanOrEqual(3);
      expect(states.filter((state) => state === 'open').length).toBeGreaterThanOrEqual(3);
      connection.close();
    } finally {
      await limited.close();
    }
  });
});
