import type { ClientContext } from './context';
import type { Change } from './outbox';
import { ApiError, SignedOutError } from './errors';
import { dataOf } from './transport';

/**
 * The live channel (docs/realtime.md): a WebSocket that tells the app to pull. A poke carries no
 * data; the change feed decides, so a poke lost, doubled or late never loses or reorders anything.
 *
 * `connect()` opens the channel with a single-use ticket, pulls right after every connect and
 * reconnect (whatever changed while it was closed arrives through the feed), pulls on every poke
 * (coalesced: never two pulls at once, and pokes arriving during a pull, or in a burst right
 * after it, make one more pull, not one each), pings every 5 minutes, reconnects before API
 * Gateway's 2-hour limit with jitter and after a failure with exponential backoff and full
 * jitter, waits while offline, and stops for good when the session ended (close code 4001 or a
 * ticket refused as signed out), telling the app.
 */

/** The WebSocket the platform has (browsers, React Native, Node 22+), or the `ws` package's. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketFactory = (url: string) => WebSocketLike;

/** Whether the device is online, and news when it changes (`navigator.onLine` and its events by default). */
export interface Connectivity {
  isOnline(): boolean;
  /** Calls back on every change; returns how to stop. */
  subscribe(listener: (online: boolean) => void): () => void;
}

export type RealtimeState = 'connecting' | 'open' | 'waiting' | 'offline' | 'stopped';

export interface RealtimeOptions {
  /**
   * Where each page of changes goes, as `transcriptions.sync({ apply })` takes it: every pull is
   * that sync (the outbox sent, then the feed walked). Required unless `pull` is given.
   */
  apply?: (changes: Change[]) => unknown;
  /** A pull of your own instead (the app's own sync, with its `dropUnconfirmed` after a reset walk...). */
  pull?: () => Promise<unknown>;
  /** How to open a WebSocket: the platform's `WebSocket` by default (on Node 20, pass the `ws` package's). */
  webSocket?: WebSocketFactory;
  connectivity?: Connectivity;
  /** Milliseconds between pings (5 minutes: API Gateway closes a connection idle for 10). */
  pingIntervalMs?: number;
  /** The connection's age limit (API Gateway's 2 hours); it is renewed before, 0-10 % earlier at random. */
  maxConnectionMs?: number;
  /** Backoff after a failure: a random delay up to min(max, base * 2^attempt) ("full jitter"). */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** After a pull, pokes are gathered until none came for this long (or `coalesceMaxMs` passed), then one pull. */
  coalesceMs?: number;
  coalesceMaxMs?: number;
  /** The session ended (signed out, disabled, another device ended it): sign in again. The channel has stopped. */
  onSessionEnded?: (reason: string) => void;
  onStateChange?: (state: RealtimeState) => void;
  /** A pull failed (it is tried again on the next poke or reconnect). */
  onPullError?: (error: unknown) => void;
  /** Math.random unless given (tests). */
  random?: () => number;
}

export interface RealtimeConnection {
  readonly state: RealtimeState;
  /** How many pulls the channel made (connects and pokes). */
  readonly pulls: number;
  /** Stops the channel: closes the connection, no reconnect. */
  close(): void;
}

/** The close code of an ended session; a `{"type":"session-ended"}` message says the same before AWS deletes the connection. */
export const CLOSE_SESSION_ENDED = 4001;
const OPEN = 1;

const defaultConnectivity = (): Connectivity => {
  const scope = globalThis as { navigator?: { onLine?: boolean }; addEventListener?: (type: string, listener: () => void) => void; removeEventListener?: (type: string, listener: () => void) => void };
  return {
    isOnline: () => scope.navigator?.onLine !== false,
    subscribe: (listener) => {
      if (!scope.addEventListener || !scope.removeEventListener) return () => undefined;
      const online = () => listener(true);
      const offline = () => listener(false);
      scope.addEventListener('online', online);
      scope.addEventListener('offline', offline);
      return () => {
        scope.removeEventListener!('online', online);
        scope.removeEventListener!('offline', offline);
      };
    },
  };
};

const defaultWebSocket: WebSocketFactory = (url) => {
  const Platform = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (!Platform) throw new Error('This platform has no WebSocket: pass `webSocket` (on Node 20, the ws package: (url) => new WebSocket(url)).');
  return new Platform(url);
};

const isSessionEnded = (error: unknown) => error instanceof SignedOutError || (error instanceof ApiError && error.status === 401);

export function realtimeArea(context: ClientContext, records: { sync(options: { apply: (changes: Change[]) => unknown }): Promise<unknown> }) {
  return {
    /** Opens the live channel and keeps it open until `close()` or the session ends (see RealtimeOptions). */
    connect(options: RealtimeOptions = {}): RealtimeConnection {
      const { apply } = options;
      if (!options.pull && !apply) throw new TypeError('realtime.connect() needs `apply` (or `pull`): where the changes it pulls go.');
      const pull = options.pull ?? (() => records.sync({ apply: apply! }));
      const openSocket = options.webSocket ?? defaultWebSocket;
      const connectivity = options.connectivity ?? defaultConnectivity();
      const random = options.random ?? Math.random;
      const pingIntervalMs = options.pingIntervalMs ?? 5 * 60_000;
      const maxConnectionMs = options.maxConnectionMs ?? 2 * 3600_000 - 60_000;
      const baseDelayMs = options.backoff?.baseDelayMs ?? 1000;
      const maxDelayMs = options.backoff?.maxDelayMs ?? 60_000;
      const coalesceMs = options.coalesceMs ?? 1000;
      const coalesceMaxMs = options.coalesceMaxMs ?? 5000;

      let state: RealtimeState = 'connecting';
      let socket: WebSocketLike | undefined;
      let attempt = 0;
      let pulls = 0;
      let timers: ReturnType<typeof setTimeout>[] = [];
      let retryTimer: ReturnType<typeof setTimeout> | undefined;
      // A function, not a comparison: the state changes across the awaits below.
      const stopped = () => state === 'stopped';
      const setState = (next: RealtimeState) => {
        if (state === next) return;
        state = next;
        options.onStateChange?.(next);
      };
      const clearConnectionTimers = () => {
        for (const timer of timers) clearTimeout(timer);
        timers = [];
      };

      // Pulls: one at a time. A poke when all is quiet pulls at once; pokes during a pull, or
      // right after one (a burst), are gathered until none came for coalesceMs (at most
      // coalesceMaxMs after the first), then make one pull together.
      let pulling: Promise<void> | undefined;
      let dirtySince: number | undefined;
      let lastPoke = -Infinity;
      const gather = async () => {
        while (!stopped() && dirtySince !== undefined) {
          const wait = Math.min(lastPoke + coalesceMs, dirtySince + coalesceMaxMs) - Date.now();
          if (wait <= 0) break;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        dirtySince = undefined;
      };
      const runPulls = async (gatherFirst: boolean) => {
        if (gatherFirst) await gather();
        while (!stopped()) {
          pulls++;
          try {
            await pull();
          } catch (error) {
            if (isSessionEnded(error)) return stop('SESSION_ENDED', true);
            options.onPullError?.(error);
          }
          if (dirtySince === undefined) return;
          await gather();
        }
      };
      const requestPull = (poke: boolean) => {
        if (stopped()) return;
        const now = Date.now();
        if (poke) {
          // In a burst: this poke follows the last one closely.
          const inBurst = now - lastPoke < coalesceMs;
          lastPoke = now;
          if (pulling) {
            dirtySince ??= now;
            return;
          }
          if (inBurst) dirtySince ??= now;
          pulling = runPulls(inBurst).finally(() => (pulling = undefined));
          return;
        }
        if (pulling) {
          dirtySince ??= now;
          return;
        }
        pulling = runPulls(false).finally(() => (pulling = undefined));
      };

      const stop = (reason: string | undefined, sessionEnded: boolean) => {
        if (state === 'stopped') return;
        setState('stopped');
        clearConnectionTimers();
        if (retryTimer) clearTimeout(retryTimer);
        unsubscribe();
        const open = socket;
        socket = undefined;
        if (open) {
          open.onclose = null;
          open.close(1000, 'closed by the app');
        }
        if (sessionEnded) options.onSessionEnded?.(reason ?? 'SESSION_ENDED');
      };

      const scheduleReconnect = () => {
        if (state === 'stopped') return;
        clearConnectionTimers();
        socket = undefined;
        if (!connectivity.isOnline()) return setState('offline');
        setState('waiting');
        const delay = random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
        attempt++;
        retryTimer = setTimeout(() => void open(), delay);
      };

      const open = async () => {
        retryTimer = undefined;
        if (state === 'stopped') return;
        if (!connectivity.isOnline()) return setState('offline');
        setState('connecting');
        let url: string;
        try {
          ({ url } = await dataOf(context.api.POST('/realtime/ticket')));
        } catch (error) {
          // The ticket request itself says whether the session still lives (a refused opening cannot, in a browser).
          if (isSessionEnded(error)) return stop(error instanceof SignedOutError ? error.reason : 'SESSION_ENDED', true);
          return scheduleReconnect();
        }
        if (stopped()) return;
        let ws: WebSocketLike;
        try {
          ws = openSocket(url);
        } catch {
          return scheduleReconnect();
        }
        socket = ws;
        ws.onopen = () => {
          if (socket !== ws) return;
          attempt = 0;
          setState('open');
          timers.push(setInterval(() => ws.readyState === OPEN && ws.send(JSON.stringify({ type: 'ping' })), pingIntervalMs) as unknown as ReturnType<typeof setTimeout>);
          // Renewed before the gateway's limit, at a random moment in its last tenth, so that a fleet does not reconnect at once.
          timers.push(
            setTimeout(() => {
              if (socket !== ws) return;
              ws.onclose = null;
              ws.close(1000, 'renewing');
              socket = undefined;
              clearConnectionTimers();
              void open();
            }, maxConnectionMs * (1 - 0.1 * random())),
          );
          // Whatever changed while there was no connection arrives through the feed.
          requestPull(false);
        };
        ws.onmessage = (event) => {
          if (socket !== ws) return;
          let message: { type?: unknown } | undefined;
          try {
            message = JSON.parse(String(event.data)) as { type?: unknown };
          } catch {
            return;
          }
          if (message?.type === 'changes') requestPull(true);
          else if (message?.type === 'session-ended') stop('SESSION_ENDED', true);
        };
        ws.onerror = () => undefined;
        ws.onclose = (event) => {
          if (socket !== ws) return;
          if (event.code === CLOSE_SESSION_ENDED) return stop('SESSION_ENDED', true);
          scheduleReconnect();
        };
      };

      const unsubscribe = connectivity.subscribe((online) => {
        if (state === 'stopped') return;
        if (!online) {
          if (retryTimer) clearTimeout(retryTimer);
          retryTimer = undefined;
          if (!socket) setState('offline');
          return;
        }
        // Back online: at once, with a fresh backoff.
        if (!socket && state !== 'connecting') {
          attempt = 0;
          if (retryTimer) clearTimeout(retryTimer);
          void open();
        }
      });
      void open();

      return {
        get state() {
          return state;
        },
        get pulls() {
          return pulls;
        },
        close: () => stop(undefined, false),
      };
    },
  };
}

export type Realtime = ReturnType<typeof realtimeArea>;
