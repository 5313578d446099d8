/**
 * Where the client keeps what must outlive the process: the session, the event queue and the
 * keys of unconfirmed saves. Each method may return a promise (Keychain, AsyncStorage) or not
 * (localStorage, memory). Values are strings.
 */
export interface Storage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

/** The Web Storage shape: `localStorage`, `sessionStorage`. */
export interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** `localStorage` (or any Web Storage) as the client's storage; createClient takes it as it is too. */
export const webStorage = (web: WebStorage): Storage => ({
  get: (key) => web.getItem(key),
  set: (key, value) => web.setItem(key, value),
  remove: (key) => web.removeItem(key),
});

export const asStorage = (storage: Storage | WebStorage | undefined): Storage =>
  !storage ? memoryStorage() : 'getItem' in storage && !('get' in storage) ? webStorage(storage) : (storage as Storage);

/** Storage for one process only: tests, scripts, and apps that sign in every time. */
export function memoryStorage(): Storage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    remove: (key) => void values.delete(key),
  };
}

/**
 * The storage keys the client uses. Sign-out removes the first three; the records outbox and the
 * change feed's cursor stay (records are never dropped), each tied to the person who made it.
 */
export const STORAGE_KEYS = {
  session: 'captioning.session',
  events: 'captioning.events',
  idempotency: 'captioning.idempotency',
  outbox: 'captioning.outbox',
  feed: 'captioning.feed',
} as const;

export async function readJson<T>(storage: Storage, key: string): Promise<T | undefined> {
  const text = await storage.get(key);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    // Unreadable (written by something else): as if absent.
    return undefined;
  }
}

export const writeJson = (storage: Storage, key: string, value: unknown) => storage.set(key, JSON.stringify(value));

/**
 * Runs read-modify-write steps on storage one after another within this instance, so two calls
 * never overwrite each other's change. Never hangs: a failed step does not block the next one.
 */
export function serialized() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(step: () => Promise<T>): Promise<T> => {
    const result = tail.then(step, step);
    tail = result.catch(() => undefined);
    return result;
  };
}
