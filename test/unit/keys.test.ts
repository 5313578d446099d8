import { describe, expect, it } from 'vitest';
import { ID_DIGITS, keys, padId, sessionMarker, sessionMarkersOf, sortKeyPrefix } from '../../shared/db/keys';
import { PARTITION_KEY, SORT_KEY } from '../../shared/db/table';

const TIME = '2026-01-29T10:30:00.123Z';

/** One key of every builder, for one user and the same ids and strings wherever a builder takes them. */
const everyKey = (userId: number) => ({
  user: keys.user(userId),
  identityEmail: keys.identity('email', 'x'),
  identityPhone: keys.identity('phone', 'x'),
  currentCode: keys.currentCode('x'),
  codeDay: keys.codeDay('x', '2026-01-29'),
  loginFailures: keys.loginFailures('x'),
  idCounter: keys.idCounter('x'),
  device: keys.device(userId, 'x'),
  deviceOwner: keys.deviceOwner('x'),
  transcription: keys.transcription(userId, TIME, 7),
  transcriptionPointer: keys.transcriptionPointer(userId, 7),
  usageTotal: keys.usageTotal(userId),
  usageDay: keys.usageDay(userId, '2026-01-29'),
  event: keys.event(userId, 'x', TIME, 7),
  eventStats: keys.eventStats(userId, 'x'),
  idempotency: keys.idempotency(userId, 'x', 'x'),
  pendingPurge: keys.pendingPurge(userId),
  session: keys.session(userId, 'x'),
});

describe('key builders', () => {
  it('never give two entities the same key, even from the same inputs', () => {
    const render = (key: { [PARTITION_KEY]: string; [SORT_KEY]: string }) => `${key[PARTITION_KEY]}|${key[SORT_KEY]}`;
    const first = Object.values(everyKey(1)).map(render);
    expect(new Set(first).size).toBe(first.length);
    // Another user: every key that names the user differs (user 1 must not prefix user 11's keys), the others are the same items.
    const other = Object.values(everyKey(11)).map(render);
    const shared = other.filter((key) => first.includes(key));
    expect(shared.map((key) => key.split('|')[0]!.split('#')[0])).toEqual(['IDENTITY', 'IDENTITY', 'CODE', 'CODE', 'LOGIN', 'COUNTER', 'DEVICE']);
  });

  it('keep everything a user owns in the user’s partition, so account deletion finds it with one query', () => {
    const owned = everyKey(42);
    for (const name of ['user', 'device', 'transcription', 'transcriptionPointer', 'usageTotal', 'usageDay', 'event', 'eventStats', 'idempotency', 'session'] as const) {
      expect(owned[name][PARTITION_KEY], name).toBe(keys.userPartition(42));
    }
    // What lives outside it is what other accounts look up: identities, serials, codes, counters.
    for (const name of ['identityEmail', 'deviceOwner', 'currentCode', 'idCounter', 'pendingPurge'] as const) {
      expect(owned[name][PARTITION_KEY], name).not.toBe(keys.userPartition(42));
    }
  });

  it('start each listed entity with its listing prefix, and no other entity with it', () => {
    const owned = everyKey(42);
    const listings: [keyof typeof owned, string][] = [
      ['device', sortKeyPrefix.device],
      ['transcription', sortKeyPrefix.transcription],
      ['usageDay', sortKeyPrefix.usageDay],
      ['event', sortKeyPrefix.event('x')],
      ['eventStats', sortKeyPrefix.stats],
      ['session', sortKeyPrefix.session],
    ];
    for (const [name, prefix] of listings) {
      const starting = Object.entries(owned).filter(([, key]) => key[PARTITION_KEY] === keys.userPartition(42) && key[SORT_KEY].startsWith(prefix));
      expect(starting.map(([entity]) => entity), prefix).toEqual([name]);
    }
  });

  it('sort records and events by time, then id, as strings', () => {
    const earlier = keys.transcription(1, '2026-01-29T10:30:00.123Z', 99);
    const later = keys.transcription(1, '2026-01-29T10:30:00.124Z', 1);
    const sameTimeHigherId = keys.transcription(1, '2026-01-29T10:30:00.123Z', 100);
    expect([later[SORT_KEY], sameTimeHigherId[SORT_KEY], earlier[SORT_KEY]].sort()).toEqual([earlier[SORT_KEY], sameTimeHigherId[SORT_KEY], later[SORT_KEY]]);
    expect(padId(Number.MAX_SAFE_INTEGER)).toHaveLength(ID_DIGITS);
  });

  it('read back the sessions a profile marks live, and nothing else of it', () => {
    const profile = { ...keys.user(1), tokenVersion: 2, email: 'a@example.com', [sessionMarker('abc')]: 2, [sessionMarker('def')]: 2, sessionsRev: 3 };
    expect(sessionMarkersOf(profile).sort()).toEqual(['abc', 'def']);
    expect(sessionMarkersOf({ ...keys.user(1), tokenVersion: 0 })).toEqual([]);
  });
});
