import { PARTITION_KEY, SORT_KEY } from './table';

/**
 * Key builders: the only place that knows how entities are laid out in the single table.
 *
 * | entity                      | PK                      | SK            |
 * |-----------------------------|-------------------------|---------------|
 * | user profile                | USER#<userId>           | PROFILE       |
 * | e-mail / phone uniqueness   | IDENTITY#<kind>#<value> | IDENTITY      |
 * | current verification code   | CODE#<target>           | CURRENT       |
 * | codes sent to a target/day  | CODE#<target>           | DAY#<date>    |
 * | failed password logins      | LOGIN#<subject>         | FAILURES      |
 * | id block counter            | COUNTER#<kind>          | COUNTER       |
 * | device of a user (1)        | USER#<userId>           | DEVICE#<sn>   |
 * | serial number owner         | DEVICE#<sn>             | OWNER         |
 * | transcription record        | USER#<userId>           | TRX#<createdAt ms>#<id16> |
 * | record id -> record key (4) | USER#<userId>           | RECORD#<id16> |
 * | app's record id -> record   | USER#<userId>           | CLIENTREC#<uuid> |
 * | change feed entry (5)       | USER#<userId>           | CHANGE#<seq16> |
 * | lifetime / daily usage      | USER#<userId>           | USAGE#TOTAL, USAGE#DAY#<date> |
 * | behavior event              | USER#<userId>           | EVENT#<type>#<createdAt ms>#<id16> |
 * | event statistics per type   | USER#<userId>           | STATS#<type>  |
 * | idempotency record          | USER#<userId>           | IDEM#<scope>#<key> |
 * | signed-in session (2)       | USER#<userId>           | SESSION#<sessionId> |
 * | live channel ticket (8)     | USER#<userId>           | RTTICKET#<sha256 of its secret> |
 * | open live connection (8)    | USER#<userId>           | RTCONN#<connectionId> |
 * | passkey of a user (3)       | USER#<userId>           | PASSKEY#<passkeyId> |
 * | number of passkeys of a user| USER#<userId>           | PASSKEYS      |
 * | passkey -> its account      | PASSKEY#<passkeyId>     | OWNER         |
 * | spent passkey challenge     | CHALLENGE#<nonce>       | SPENT         |
 * | (or spent social nonce)     | CHALLENGE#<nonce>       | SPENT         |
 * | linked social identity (6)  | USER#<userId>           | SOCIAL#<provider>#<subject> |
 * | social identity -> account  | SOCIAL#<provider>#<subject> | OWNER     |
 * | account purge in progress   | PURGE                   | USER#<userId> |
 * | Apple token to revoke (7)   | APPLE_REVOKE            | USER#<userId>#<subject> |
 * | SMS sent, one shard of an hour | SMS#<hour>#<shard>   | COUNT         |
 * | health probe (never written)| HEALTH                  | PROBE         |
 * | admin audit entry (4)       | AUDIT#<target>          | AT#<time ms>#<requestId> |
 * | speech session (8)          | USER#<userId>           | SPEECH#SESSION#<sessionId> |
 * | app's speech session id     | USER#<userId>           | SPEECH#CLIENT#<clientSessionId> |
 * | live speech sessions, limits| USER#<userId>           | SPEECH#STATE  |
 * | speech seconds of a day/month | USER#<userId>         | SPEECH#DAY#<date>, SPEECH#MONTH#<yyyy-mm> |
 *
 * (1) also in the ByCreated index with LSK `DEV#<createdAt ms>#<sn>`, for newest-first lists.
 * (2) and a marker attribute `session#<sessionId>` on the user profile while the session lives
 *     (`sessionMarker`): the profile is the item every data operation already checks, so ending a
 *     session ends its access tokens at once without costing any request an extra read.
 * (3) `<passkeyId>` is the SHA-256 of the credential id (base64url): sign-in finds the account of a
 *     credential by the owner item, then the passkey in the account's partition.
 * (4) after the record's deletion, its tombstone (no content) until RECORD_TOMBSTONE_RETENTION_SECONDS.
 * (5) one per record, at the account's change sequence of its latest change (the profile's
 *     `changeSeq`, advanced in the change's own transaction): docs/sync.md.
 *
 * (4) `<target>` is `USER#<userId>`, `DEVICE#<sn>` or `NONE`: outside the user's partition, so an
 *     account's deletion leaves its audit trail (append-only, kept for AUDIT_RETENTION_DAYS by TTL).
 * (6) and a marker attribute `social#<provider>` (the subject) on the profile: one identity per
 *     provider per account, and what the profile knows of its ways in.
 * (7) written with an account's deletion, outside its partition, and deleted once Apple confirmed
 *     the revocation or gave up on (shared/db/apple-revocations-repository.ts).
 * (8) speech sessions (docs/speech.md): the state item holds the live sessions (id -> the moment
 *     each expires unrenewed) and support's own limits; the day and month items the seconds
 *     charged in the person's own day and month, changed in each charge's transaction
 *     (shared/db/speech-repository.ts).
 *
 * (8) the live channel (docs/realtime.md): a ticket lives 60 s and is spent by the connection it
 *     opens; a connection item lives while its WebSocket is open (TTL past API Gateway's 2 hours).
 *
 * Everything a user owns lives in its partition, so deleting an account is one Query of it plus
 * the markers outside it (identities, serial owners, passkey owners). `<createdAt ms>` is ISO 8601 with
 * milliseconds and `<id16>` the id zero-padded to 16 digits, so sort keys order by time, then id.
 * Transcription records sort by time in the table itself, not through the ByCreated index: an
 * index with ALL projection counts against the item's 400 KB limit, which a 100 000-character
 * text in a 3- or 4-byte script would exceed. Only small items (devices) use that index.
 */
export type ItemKey = { [PARTITION_KEY]: string; [SORT_KEY]: string };

const key = (pk: string, sk: string): ItemKey => ({ [PARTITION_KEY]: pk, [SORT_KEY]: sk });

export type IdentityKind = 'email' | 'phone';

/**
 * The profile's key on its own as well as in `keys`: the authorizer reads only this item, and a
 * function it imports alone lets the bundler leave the other builders out of its bundle.
 */
export const userKey = (userId: number) => key(`USER#${userId}`, 'PROFILE');

function auditPartition(target: AuditTarget): string {
  return `AUDIT#${target.userId !== undefined ? `USER#${target.userId}` : target.sn !== undefined ? `DEVICE#${target.sn}` : 'NONE'}`;
}

export const keys = {
  user: userKey,
  identity: (kind: IdentityKind, value: string) => key(`IDENTITY#${kind}#${value}`, 'IDENTITY'),
  currentCode: (target: string) => key(`CODE#${target}`, 'CURRENT'),
  codeDay: (target: string, utcDate: string) => key(`CODE#${target}`, `DAY#${utcDate}`),
  loginFailures: (subject: string) => key(`LOGIN#${subject}`, 'FAILURES'),
  idCounter: (kind: string) => key(`COUNTER#${kind}`, 'COUNTER'),
  userPartition: (userId: number) => `USER#${userId}`,
  device: (userId: number, sn: string) => key(`USER#${userId}`, `DEVICE#${sn}`),
  deviceListKey: (createdAtMs: string, sn: string) => `DEV#${createdAtMs}#${sn}`,
  deviceOwner: (sn: string) => key(`DEVICE#${sn}`, 'OWNER'),
  transcription: (userId: number, createdAtMs: string, id: number) => key(`USER#${userId}`, `TRX#${createdAtMs}#${padId(id)}`),
  transcriptionPointer: (userId: number, id: number) => key(`USER#${userId}`, `RECORD#${padId(id)}`),
  clientRecord: (userId: number, clientRecordId: string) => key(`USER#${userId}`, `CLIENTREC#${clientRecordId}`),
  recordChange: (userId: number, sequence: number) => key(`USER#${userId}`, `CHANGE#${padId(sequence)}`),
  usageTotal: (userId: number) => key(`USER#${userId}`, 'USAGE#TOTAL'),
  usageDay: (userId: number, utcDate: string) => key(`USER#${userId}`, `USAGE#DAY#${utcDate}`),
  event: (userId: number, eventType: string, createdAtMs: string, id: number) =>
    key(`USER#${userId}`, `EVENT#${eventType}#${createdAtMs}#${padId(id)}`),
  eventStats: (userId: number, eventType: string) => key(`USER#${userId}`, `STATS#${eventType}`),
  idempotency: (userId: number, scope: string, idempotencyKey: string) => key(`USER#${userId}`, `IDEM#${scope}#${idempotencyKey}`),
  pendingPurge: (userId: number) => key('PURGE', `USER#${userId}`),
  appleRevocation: (userId: number, subject: string) => key('APPLE_REVOKE', `USER#${userId}#${subject}`),
  session: (userId: number, sessionId: string) => key(`USER#${userId}`, `SESSION#${sessionId}`),
  realtimeTicket: (userId: number, secretHash: string) => key(`USER#${userId}`, `RTTICKET#${secretHash}`),
  realtimeConnection: (userId: number, connectionId: string) => key(`USER#${userId}`, `RTCONN#${connectionId}`),
  passkey: (userId: number, passkeyId: string) => key(`USER#${userId}`, `PASSKEY#${passkeyId}`),
  passkeyCount: (userId: number) => key(`USER#${userId}`, 'PASSKEYS'),
  passkeyOwner: (passkeyId: string) => key(`PASSKEY#${passkeyId}`, 'OWNER'),
  spentChallenge: (nonce: string) => key(`CHALLENGE#${nonce}`, 'SPENT'),
  socialIdentity: (userId: number, provider: string, subject: string) => key(`USER#${userId}`, `SOCIAL#${provider}#${subject}`),
  socialIdentityOwner: (provider: string, subject: string) => key(`SOCIAL#${provider}#${subject}`, 'OWNER'),
  /** `<hour>` is `2026-01-29T10` (UTC); shards spread the deployment-wide count over partitions. */
  smsHourShard: (utcHour: string, shard: number) => key(`SMS#${utcHour}#${shard}`, 'COUNT'),
  healthProbe: () => key('HEALTH', 'PROBE'),
  auditPartition,
  auditEntry: (target: AuditTarget, atMs: string, requestId: string) => key(auditPartition(target), `AT#${atMs}#${requestId}`),
};

/**
 * The speech items' builders (see (8) above), apart from `keys` so that only the functions that
 * read speech items bundle them (every function bundles `keys` whole).
 */
export const speechKeys = {
  speechSession: (userId: number, sessionId: string) => key(`USER#${userId}`, `SPEECH#SESSION#${sessionId}`),
  speechClientSession: (userId: number, clientSessionId: string) => key(`USER#${userId}`, `SPEECH#CLIENT#${clientSessionId}`),
  speechState: (userId: number) => key(`USER#${userId}`, 'SPEECH#STATE'),
  /** `<date>` is the person's local YYYY-MM-DD, `<month>` YYYY-MM (as usage statistics count days). */
  speechDay: (userId: number, date: string) => key(`USER#${userId}`, `SPEECH#DAY#${date}`),
  speechMonth: (userId: number, month: string) => key(`USER#${userId}`, `SPEECH#MONTH#${month}`),
};

/** What an admin request acted on: an account, a serial, or (a lookup that found nothing) neither. */
export interface AuditTarget {
  userId?: number | undefined;
  sn?: string | undefined;
}

const SESSION_MARKER_PREFIX = 'session#';

/** The profile attribute that marks a session as live (see (2) above). */
export const sessionMarker = (sessionId: string) => `${SESSION_MARKER_PREFIX}${sessionId}`;

/** The session ids of the markers on a profile item. */
export const sessionMarkersOf = (profile: Record<string, unknown>): string[] =>
  Object.keys(profile)
    .filter((name) => name.startsWith(SESSION_MARKER_PREFIX))
    .map((name) => name.slice(SESSION_MARKER_PREFIX.length));

/** Sort key prefixes of the listings inside a user's partition. */
export const sortKeyPrefix = {
  device: 'DEVICE#',
  deviceList: 'DEV#',
  transcription: 'TRX#',
  recordChange: 'CHANGE#',
  usageDay: 'USAGE#DAY#',
  event: (eventType: string) => `EVENT#${eventType}#`,
  stats: 'STATS#',
  session: 'SESSION#',
  realtimeConnection: 'RTCONN#',
  passkey: 'PASSKEY#',
  auditEntry: 'AT#',
  social: 'SOCIAL#',
  speechSession: 'SPEECH#SESSION#',
};

/** The profile attribute naming the account's identity of a provider (see (6) above). */
export const socialMarker = (provider: string) => `social#${provider}`;

/** The subjects a profile's social markers name, by provider. */
export const socialMarkersOf = (profile: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(profile)
      .filter(([name, value]) => name.startsWith(socialMarker('')) && typeof value === 'string')
      .map(([name, value]) => [name.slice(socialMarker('').length), value as string]),
  );

/** Ids padded to the digits of Number.MAX_SAFE_INTEGER, so that they sort as strings. */
export const ID_DIGITS = 16;
export function padId(id: number): string {
  return String(id).padStart(ID_DIGITS, '0');
}
