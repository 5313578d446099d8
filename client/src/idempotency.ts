import { STORAGE_KEYS, readJson, serialized, writeJson } from './storage';
import type { Storage } from './storage';

/** A new Idempotency-Key: a UUID where the platform has one (React Native may not). */
export function newKey(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

/** A random (version 4) UUID in lower case, as the service's ids are; where the platform has no randomUUID, from getRandomValues. */
export function newUuid(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string; getRandomValues?: (bytes: Uint8Array) => Uint8Array } }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID().toLowerCase();
  const bytes = new Uint8Array(16);
  if (crypto?.getRandomValues) crypto.getRandomValues(bytes);
  else for (let index = 0; index < 16; index++) bytes[index] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The service keeps an Idempotency-Key for 24 hours; an older one protects nothing. */
const KEY_LIFETIME_MS = 24 * 3_600_000;

/** cyrb53: a short fingerprint of a request, so the journal does not keep bodies. */
function fingerprint(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ char, 2654435761);
    h2 = Math.imul(h2 ^ char, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

type Journal = Record<string, { key: string; at: number }>;

/**
 * The keys of saves not yet confirmed, in storage: the same POST (same path and body) sent again
 * before the service confirmed it, by a retry, after a restart or by a second tap, goes with the
 * same key, so the service stores it once. A confirmed or refused save leaves the journal.
 */
export function keyJournal(storage: Storage) {
  const step = serialized();
  const update = (change: (journal: Journal) => string | void) =>
    step(async () => {
      const journal = (await readJson<Journal>(storage, STORAGE_KEYS.idempotency)) ?? {};
      const now = Date.now();
      for (const [name, entry] of Object.entries(journal)) if (now - entry.at > KEY_LIFETIME_MS) delete journal[name];
      const result = change(journal);
      await writeJson(storage, STORAGE_KEYS.idempotency, journal);
      return result;
    });
  return {
    /** The key of this request: the one journaled for it, or a new one, journaled before it is sent. */
    keyFor: (request: string) => update((journal) => (journal[fingerprint(request)] ??= { key: newKey(), at: Date.now() }).key) as Promise<string>,
    /** The service answered for good: the next request with this body is a new save. */
    settle: (request: string) =>
      update((journal) => {
        delete journal[fingerprint(request)];
      }),
  };
}

export type KeyJournal = ReturnType<typeof keyJournal>;
