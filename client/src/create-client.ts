import { authArea } from './auth';
import type { ClientContext } from './context';
import { eventsArea } from './events';
import type { EventOptions } from './events';
import { keyJournal } from './idempotency';
import type { Conflict, OutboxOptions } from './outbox';
import { realtimeArea } from './realtime';
import { retryPolicy } from './retry';
import type { Fetch, RetryOptions } from './retry';
import { Session } from './session';
import { speechArea } from './speech';
import { STORAGE_KEYS, asStorage } from './storage';
import type { Storage, WebStorage } from './storage';
import { createTransport } from './transport';
import { transcriptionsArea } from './transcriptions';
import { usersArea } from './users';

export interface ClientOptions {
  /** The service root: `http://localhost:8080`, or the stack's `ApiUrl` output. The client adds `/api`. */
  baseUrl: string;
  /**
   * Where the session, the event queue and unconfirmed saves' keys live (default: memory only):
   * `{get, set, remove}`, or a Web Storage such as `localStorage` as it is.
   */
  storage?: Storage | WebStorage;
  /** The platform's fetch unless given (a test's, one with a certificate pin ...). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Names the session in the person's list of sessions (`Pixel 8 · Captions 2.3`). */
  clientName?: string;
  /**
   * Called once when the service ended the session (`SESSION_ENDED`, `REFRESH_TOKEN_EXPIRED`,
   * `REFRESH_TOKEN_INVALID`): storage is cleared and later calls throw SignedOutError. Show the
   * sign-in screen.
   */
  onSignedOut?: (reason: string) => void;
  retry?: RetryOptions;
  events?: EventOptions;
  /** The records outbox's bounds: `{ maxRecords, maxBytes }` (default 500 records, 2 000 000 bytes). */
  outbox?: OutboxOptions;
  /**
   * Called for each conflict the outbox resolved while sending (see Conflict): a merge with another
   * device's edit (and the conflict copy of this device's text), or a change of a record deleted elsewhere.
   */
  onConflict?: (conflict: Conflict) => void;
}

/** The app's client of the service. */
export function createClient(options: ClientOptions) {
  const storage = asStorage(options.storage);
  const fetch: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const policy = retryPolicy(options.retry);
  const journal = keyJournal(storage);
  const clearOthers = async () => {
    await storage.remove(STORAGE_KEYS.events);
    await storage.remove(STORAGE_KEYS.idempotency);
  };
  // The refresh goes through the same retries, never through the token logic it serves.
  const session: Session = new Session(
    storage,
    (refreshToken) => transport.api.POST('/auth/token/refresh', { body: { refreshToken } }),
    options.onSignedOut,
    clearOthers,
  );
  const transport = createTransport(options.baseUrl, fetch, session, journal, policy);
  const context: ClientContext = { api: transport.api, request: transport.request, session, storage, clientName: options.clientName };
  const events = eventsArea(context, options.events);
  context.events = events;
  const transcriptions = transcriptionsArea(context, { ...options.outbox, ...(options.onConflict ? { onConflict: options.onConflict } : {}) });
  context.records = transcriptions;
  return {
    /** Every operation of the API, typed from its OpenAPI document (openapi-fetch), with the client's tokens and retries. */
    api: transport.api,
    auth: authArea(context),
    users: usersArea(context),
    transcriptions,
    events,
    /** The live channel (docs/realtime.md): `realtime.connect({ apply })` keeps `transcriptions.sync` running on every change. */
    realtime: realtimeArea(context, transcriptions),
    /** Speech sessions (docs/client.md#speech-sessions): `speech.start({ provider, language })` answers a session that renews itself; `speech.quota()`. */
    speech: speechArea(context),
  };
}

export type CaptioningClient = ReturnType<typeof createClient>;
