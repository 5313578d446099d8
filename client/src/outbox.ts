import type { ClientContext } from './context';
import { ApiError, apiErrorOf } from './errors';
import { newKey } from './idempotency';
import { STORAGE_KEYS, readJson, serialized, writeJson } from './storage';

/** The fields of a record the app writes. */
export interface RecordFields {
  recordTitle: string;
  text: string;
  language: string;
  durationSeconds: number;
  /** When the recording began (ISO 8601 UTC, seconds); the service's default is when it is stored. */
  startedAt?: string;
}

const FIELDS = ['recordTitle', 'text', 'language', 'durationSeconds', 'startedAt'] as const;
type Field = (typeof FIELDS)[number];

/**
 * A record as the app holds it: one the change feed brought (with `transcriptionRecordId` and
 * `revision`), or one saved here that the service has not answered yet (`transcriptionRecordId`
 * null, `revision` 0). `clientRecordId` is its identity on every device from the moment it is saved.
 */
export interface LocalRecord extends RecordFields {
  clientRecordId: string | null;
  transcriptionRecordId?: number | null;
  revision?: number;
  updatedAt?: string | null;
  createdAt?: string;
}

/** A record as the service answers it (create, get, patch, the change feed). */
export interface SyncedRecord extends LocalRecord {
  transcriptionRecordId: number;
  revision: number;
  startedAt: string;
  createdAt: string;
  updatedAt: string | null;
}

/** What the service had when this device's first pending change was made. */
type Base = RecordFields & { revision: number };

/** One record's pending changes, coalesced: what the service had (base) and what it should have (local). */
export interface OutboxEntry {
  /** `clientRecordId`, or `#<transcriptionRecordId>` for a record made without one. */
  key: string;
  clientRecordId: string | null;
  id?: number;
  /** Absent while the service has not stored the record. */
  base?: Base;
  local: RecordFields;
  removed?: true;
  /**
   * Creates sent whose answer never came (the last few): the service may have stored one of them.
   * A later create with other fields is refused (409 CLIENT_RECORD_ID_REUSED); these are sent again
   * then, and the one the service stored answers the record.
   */
  tried?: NewRecord[];
  /** When this device last changed it (ms): for a field both sides changed, the later edit wins. */
  editedAt: number;
  /** Whose record it is: sent only while that person is signed in. */
  userId?: number;
  /** Refused for good (a 4xx other than 401, 408, 412, 429): parked, the rest goes on. */
  problem?: Problem;
}

/** A change the service refused: it waits here, with the service's error, until the app edits or discards it. */
export interface Problem {
  status: number;
  error: string;
  message: string;
  details?: { path: string; message: string }[];
}

export interface PendingProblem extends Problem {
  record: LocalRecord;
}

/** A resolved conflict, reported through `onConflict`. */
export type Conflict =
  | {
      type: 'merged';
      /** The record as it now is on the service (and is being sent). */
      record: LocalRecord;
      /** The fields both sides changed, and which side won each. */
      fields: { field: Field; mine: unknown; theirs: unknown; kept: 'mine' | 'theirs' }[];
      /** Both texts changed: this device's text, saved as a new record. */
      copy?: LocalRecord;
    }
  | {
      /** The record was deleted on the service (by another device): this device's change, text included, was not applied. */
      type: 'deleted';
      record: LocalRecord;
    };

export interface OutboxOptions {
  /** Records with pending changes at most (default 500). */
  maxRecords?: number;
  /** The outbox's size in storage at most, in bytes of JSON (default 2 000 000). */
  maxBytes?: number;
}

/** `save` (or an edit) refused: the outbox is at its bound. Nothing was queued; keep the record and sync. */
export class OutboxFullError extends Error {
  override name = 'OutboxFullError';
}

/** A change of the feed, as `apply` receives it. */
export type Change =
  | {
      type: 'upsert';
      record: SyncedRecord;
      /** This device has changes of the record not yet sent: `record` carries them, over the service's state. */
      pending?: true;
    }
  | { type: 'delete'; transcriptionRecordId: number; clientRecordId: string | null; revision: number; deletedAt: string }
  | {
      /**
       * The walk starts over from the beginning (the cursor expired): once it reaches the end,
       * remove the local records it did not bring, except those in `keep` (saved here, not sent yet).
       */
      type: 'reset';
      keep: string[];
    };

/** What the service holds of a record the app's database shows otherwise: handed to `apply` by the next pull. */
type Delivery = { userId?: number } & ({ record: SyncedRecord } | { tombstone: Tombstone });
type Tombstone = { transcriptionRecordId: number; clientRecordId: string | null; revision: number; deletedAt: string };

interface OutboxState {
  entries: OutboxEntry[];
  /**
   * Records whose state on the service differs from what the app was shown, by key: an answer
   * resolved a conflict (a 412 merged, a 410 deleted elsewhere, a create answered by a record
   * changed since). The next pull hands each to `apply` before the feed's first page (the feed
   * may never bring them: their change can be behind the cursor), and until then the record's
   * own changes wait, so nothing of it is sent on a view the person never saw.
   */
  deliver?: Record<string, Delivery>;
  /**
   * The service's id and revision of the records this device sent last (the most recent 1 000),
   * by clientRecordId: an edit of a record the app holds as save() answered it, after it was sent
   * and before a pull brought it back, goes against the revision the service answered.
   */
  acks?: Record<string, [id: number, revision: number]>;
}

interface FeedState {
  userId: number;
  cursor: string;
}

type NewRecord = RecordFields & { clientRecordId: string };

const CONFLICT_SUFFIX = ' (conflict copy)';
/** Changes are sent this long after the last one (a burst of edits goes as one request). */
const SEND_DELAY_MS = 1000;
const TRIED_KEPT = 5;
const TITLE_MAX = 200;

const keyOf = (record: LocalRecord) => record.clientRecordId ?? `#${record.transcriptionRecordId}`;
const fieldsOf = (record: Partial<RecordFields>): RecordFields => {
  const fields: Partial<Record<Field, unknown>> = {};
  for (const field of FIELDS) if (record[field] !== undefined) fields[field] = record[field];
  return fields as RecordFields;
};
const baseOf = (record: RecordFields, revision: number): Base => ({ ...fieldsOf(record), revision });

/** The fields to PATCH: those the app changed from the base (a field the app never set is not a change). */
export function changedFields(entry: Pick<OutboxEntry, 'local' | 'base'>): Partial<RecordFields> {
  const changed: Partial<Record<Field, unknown>> = {};
  for (const field of FIELDS) if (entry.local[field] !== undefined && entry.local[field] !== entry.base?.[field]) changed[field] = entry.local[field];
  return changed as Partial<RecordFields>;
}

/**
 * The three-way merge after a 412: `current` is the service's record, `entry.base` what this device
 * started from, `entry.local` what it wants. A field only one side changed takes that side; for one
 * both changed, the later edit wins (this device's `editedAt` against the service's `updatedAt`),
 * except `text`: the service's text stays, and this device's becomes a conflict copy.
 */
export function mergeRecord(entry: Pick<OutboxEntry, 'local' | 'base' | 'editedAt'>, current: SyncedRecord) {
  const local: Partial<Record<Field, unknown>> = {};
  const fields: Extract<Conflict, { type: 'merged' }>['fields'] = [];
  let copyText: string | undefined;
  const theirsAt = Date.parse(current.updatedAt ?? current.createdAt);
  for (const field of FIELDS) {
    const mine = entry.local[field];
    const base = entry.base?.[field];
    const theirs = current[field];
    if (mine === undefined || mine === base || mine === theirs || theirs === base) local[field] = mine === undefined || mine === base ? theirs : mine;
    else if (field === 'text') {
      local[field] = theirs;
      copyText = mine as string;
      fields.push({ field, mine, theirs, kept: 'theirs' });
    } else {
      const kept = entry.editedAt > theirsAt ? 'mine' : 'theirs';
      local[field] = kept === 'mine' ? mine : theirs;
      fields.push({ field, mine, theirs, kept });
    }
  }
  const merged = local as unknown as RecordFields;
  const copy = copyText === undefined ? undefined : copyOf({ ...merged, language: (entry.local.language ?? merged.language) as string }, copyText, current.startedAt);
  return { local: merged, fields, copy };
}

/** The text `mine` as a new record of its own, beside `local`'s record: the conflict copy. */
function copyOf(local: RecordFields, mine: string, startedAt: string | undefined): RecordFields {
  return {
    recordTitle: local.recordTitle.slice(0, TITLE_MAX - CONFLICT_SUFFIX.length) + CONFLICT_SUFFIX,
    text: mine,
    language: local.language,
    // Its usage is the original's, counted once.
    durationSeconds: 0,
    ...(startedAt ? { startedAt } : {}),
  };
}

const sizeOf = (value: unknown) => {
  const json = JSON.stringify(value);
  return typeof TextEncoder === 'undefined' ? json.length * 3 : new TextEncoder().encode(json).length;
};

/** A canonical lower-case UUID (the service refuses any other form of clientRecordId). */
export const newRecordId = () => newKey().toLowerCase();

/**
 * The records outbox: saves, edits and removals are written to storage first (a restart keeps
 * them) and sent by `push` one record at a time, coalesced per record. `pull` walks the change feed.
 */
export function outboxArea(context: ClientContext, options: OutboxOptions & { onConflict?: (conflict: Conflict) => void } = {}) {
  const { storage, session, request } = context;
  const maxRecords = options.maxRecords ?? 500;
  const maxBytes = options.maxBytes ?? 2_000_000;
  const step = serialized();
  const read = async (): Promise<OutboxState> => (await readJson<OutboxState>(storage, STORAGE_KEYS.outbox)) ?? { entries: [] };
  const change = <T>(edit: (state: OutboxState) => T, bounded = false) =>
    step(async () => {
      const state = await read();
      const before = bounded ? sizeOf(state) : 0;
      const result = edit(state);
      const size = bounded ? sizeOf(state) : 0;
      if (size > maxBytes && size > before) throw new OutboxFullError(`The outbox is full (${size} of ${maxBytes} bytes): nothing was queued. Keep the record and sync first.`);
      await writeJson(storage, STORAGE_KEYS.outbox, state);
      return result;
    });
  const signedIn = async () => (await session.stored())?.userId;

  /** Adds a new entry, or refuses when the outbox holds its most records. */
  function add(state: OutboxState, entry: OutboxEntry, bounded = true): OutboxEntry {
    if (bounded && state.entries.length >= maxRecords) throw new OutboxFullError(`The outbox is full (${maxRecords} records wait): nothing was queued. Keep the record and sync first.`);
    state.entries.push(entry);
    return entry;
  }

  /**
   * Adds the conflict copy of `local`'s record holding `text` (never refused for the bound: the
   * text would be lost), and answers it as the app should show it.
   */
  function addCopy(state: OutboxState, owner: OutboxEntry, copy: RecordFields): LocalRecord {
    const clientRecordId = newRecordId();
    add(state, { key: clientRecordId, clientRecordId, local: copy, editedAt: Date.now(), ...(owner.userId ? { userId: owner.userId } : {}) }, false);
    return { ...copy, clientRecordId, transcriptionRecordId: null, revision: 0 };
  }

  /** Runs `edit` on the record's entry (made from `record` when it has none); answers what `edit` answers. */
  async function edit<T>(record: LocalRecord, editEntry: (entry: OutboxEntry, state: OutboxState) => T): Promise<T> {
    const userId = await signedIn();
    const result = await change((state) => {
      let entry = state.entries.find((candidate) => candidate.key === keyOf(record) || (record.transcriptionRecordId && candidate.id === record.transcriptionRecordId));
      if (!entry) {
        const ack = state.acks?.[keyOf(record)];
        const id = record.transcriptionRecordId ?? ack?.[0];
        const revision = Math.max(record.revision ?? 0, ack?.[1] ?? 0);
        if (!id || !revision) throw new TypeError('Not a record of the service nor of the outbox: pass a record save() or the change feed answered');
        entry = add(state, { key: keyOf(record), clientRecordId: record.clientRecordId, id, base: baseOf(record, revision), local: fieldsOf(record), editedAt: Date.now(), ...(userId ? { userId } : {}) });
      }
      delete entry.problem;
      entry.editedAt = Date.now();
      const result = editEntry(entry, state);
      // Saved here and never sent: nothing to tell the service.
      if (entry.removed && !entry.base && !entry.tried?.length) state.entries.splice(state.entries.indexOf(entry), 1);
      return result;
    }, true);
    soon();
    return result;
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  /** After a push that failed (offline), changes wait for the app's next push or sync. */
  let paused = false;
  /** Sends by itself shortly after the last change. */
  function soon() {
    if (paused) return;
    clearTimeout(timer);
    timer = setTimeout(() => void push(), SEND_DELAY_MS);
    (timer as { unref?: () => void }).unref?.();
  }

  let pushing: Promise<PushResult> | undefined;
  let again: Promise<PushResult> | undefined;
  /** One push at a time; asked during one, a second runs after it (once, however often asked). */
  const push = (): Promise<PushResult> =>
    pushing
      ? (again ??= pushing.then(() => {
          again = undefined;
          return push();
        }))
      : (pushing = pushAll().finally(() => (pushing = undefined)));

  async function pushAll(): Promise<PushResult> {
    let sent = 0;
    const userId = await signedIn();
    // A record whose exchanges never settle (another device writing all the while) waits for the next push.
    const tries = new Map<string, number>();
    for (;;) {
      const state = await read();
      // A record whose resolved conflict the app has not been shown yet waits for the pull that shows it.
      const entry = state.entries.find((candidate) => !candidate.problem && !(state.deliver?.[candidate.key] && !candidate.removed) && (candidate.userId ?? userId) === userId && (tries.get(candidate.key) ?? 0) < 5);
      if (!entry || userId === undefined) return { sent, ...(await pending()) };
      tries.set(entry.key, (tries.get(entry.key) ?? 0) + 1);
      try {
        sent += await sendOne(entry);
      } catch (error) {
        // Offline, timeouts, 408, 429, 5xx, signed out: everything waits for the next push.
        paused = true;
        return { sent, ...(await pending()), error: error as Error };
      }
    }
  }

  /** Sends the one request the entry needs now and stores what its answer means; 1 if a request went. */
  async function sendOne(snapshot: OutboxEntry): Promise<number> {
    const update = (apply: (entry: OutboxEntry, state: OutboxState) => void) =>
      change((state) => {
        const entry = state.entries.find((candidate) => candidate.key === snapshot.key);
        if (entry) apply(entry, state);
      });
    const drop = (entry: OutboxEntry, state: OutboxState) => void state.entries.splice(state.entries.indexOf(entry), 1);
    const ifMatch = { 'If-Match': `"${snapshot.base?.revision}"` };
    let sent: Partial<RecordFields> | undefined;
    let response: Response;
    const same = (a: NewRecord) => (b: NewRecord) => JSON.stringify(a) === JSON.stringify(b);
    const create = async (body: NewRecord) => {
      sent = body;
      // Noted before it goes: whatever happens next (no answer, a crash before the answer is
      // stored), the outbox knows the service may hold this create.
      await update((entry) => void (entry.tried = [...(entry.tried ?? []).filter((tried) => !same(body)(tried)), body].slice(-TRIED_KEPT)));
      const answer = await request('POST', '/transcriptions', body);
      // Refused as it is (invalid): the service stored nothing of it.
      if (answer.status >= 400 && answer.status < 500 && ![401, 408, 409, 410, 429].includes(answer.status)) await update((entry) => void (entry.tried = entry.tried?.filter((tried) => !same(body)(tried))));
      if (answer.status < 500) return answer;
      throw new ApiError(500, { message: 'The service failed to store the record' });
    };
    if (!snapshot.base) {
      // Removed here, but an earlier create may have been stored: that one is sent again to learn its id, then deleted.
      const body = snapshot.removed ? snapshot.tried?.[0] : { ...snapshot.local, clientRecordId: snapshot.clientRecordId! };
      if (!body) return update(drop).then(() => 0);
      response = await create(body);
    } else if (snapshot.removed) response = await request('DELETE', `/transcriptions/${snapshot.id}`, undefined, ifMatch);
    else {
      sent = changedFields(snapshot);
      if (Object.keys(sent).length === 0) return update(drop).then(() => 0);
      response = await request('PATCH', `/transcriptions/${snapshot.id}`, sent, ifMatch);
    }
    let answer = await parsed(response);
    // The service stored an earlier create (its answer was lost) with other fields: that one
    // answers the record, and the fields changed since go as a PATCH.
    for (const tried of response.status === 409 ? (snapshot.tried ?? []).filter((tried) => sent === undefined || !same(tried)(sent as NewRecord)) : []) {
      const replay = await create(tried);
      if (replay.ok) {
        response = replay;
        answer = await parsed(replay);
        break;
      }
    }
    // A removal answered 410 or 404 is done: the record is gone either way.
    if (response.ok || (snapshot.removed && (response.status === 410 || response.status === 404))) {
      const record = answer;
      await update((entry, state) => {
        const acks = (state.acks ??= {});
        delete acks[entry.key];
        if (!record?.revision || (entry.removed && entry.base)) return drop(entry, state);
        delete entry.tried;
        entry.id = record.transcriptionRecordId;
        // A create answered by the record it stored earlier, changed since (its answer was lost,
        // then another device edited it): what the app shows is the create as sent, revision 1;
        // the record as it is now goes to the app, and what changed here since is sent against
        // revision 1 (a 412 merges it).
        const changedSince = !snapshot.base && !entry.removed && (record.revision !== 1 || FIELDS.some((field) => sent?.[field] !== undefined && sent[field] !== record[field]));
        if (changedSince) {
          for (const field of FIELDS) if (entry.local[field] === undefined) (entry.local as Partial<Record<Field, unknown>>)[field] = record[field];
          entry.base = { ...baseOf(record, 1), ...fieldsOf(sent ?? {}), revision: 1 };
          (state.deliver ??= {})[entry.key] = { record, ...(entry.userId ? { userId: entry.userId } : {}) };
        } else {
          acks[entry.key] = [record.transcriptionRecordId, record.revision];
          for (const key of Object.keys(acks).slice(0, -1000)) delete acks[key];
          // What was sent and not changed since takes the service's form of it.
          for (const field of FIELDS) if (entry.local[field] === undefined || (sent && field in sent && entry.local[field] === sent[field])) (entry.local as Partial<Record<Field, unknown>>)[field] = record[field];
          entry.base = baseOf(record, record.revision);
        }
        if (!entry.removed && Object.keys(changedFields(entry)).length === 0) drop(entry, state);
      });
      return 1;
    }
    const refusal = await apiErrorOf(response, answer ?? null);
    const current = answer?.current;
    if (response.status === 412 && current) {
      let conflict: Conflict | undefined;
      await update((entry, state) => {
        const before = entry.base;
        entry.base = baseOf(current, current.revision);
        // A removal wins over edits made elsewhere: sent again against the current revision.
        if (entry.removed) return;
        const merged = mergeRecord({ ...entry, base: before }, current);
        entry.local = merged.local;
        // The app shows this device's view of the record: the service's goes to it by the next
        // pull, and the merged changes wait for that (the person edits what they were shown).
        (state.deliver ??= {})[entry.key] = { record: current, ...(entry.userId ? { userId: entry.userId } : {}) };
        delete state.acks?.[entry.key];
        const record = { ...current, ...merged.local };
        const copy = merged.copy && addCopy(state, entry, merged.copy);
        if (merged.fields.length > 0) conflict = { type: 'merged', record, fields: merged.fields, ...(copy ? { copy } : {}) };
        if (Object.keys(changedFields(entry)).length === 0) drop(entry, state);
      });
      if (conflict) options.onConflict?.(conflict);
      return 1;
    }
    if ([401, 408, 412, 429].includes(response.status) || response.status >= 500) throw refusal;
    // Refused for good (410: deleted elsewhere; 4xx: invalid as it is): parked with the service's
    // error until the app edits or discards it, and the rest of the outbox goes on.
    const problem: Problem = { status: refusal.status, error: refusal.error, message: refusal.message, ...(refusal.details ? { details: refusal.details } : {}) };
    let record: LocalRecord | undefined;
    const tombstone = response.status === 410 ? (answer as { tombstone?: Tombstone } | undefined)?.tombstone : undefined;
    await update((entry, state) => {
      entry.problem = problem;
      record = recordOf(entry);
      // Deleted elsewhere: the app's database lets the record go too (its text stays here, reported).
      if (tombstone) (state.deliver ??= {})[entry.key] = { tombstone, ...(entry.userId ? { userId: entry.userId } : {}) };
    });
    if (response.status === 410 && record) options.onConflict?.({ type: 'deleted', record });
    return 1;
  }

  async function parsed(response: Response): Promise<(SyncedRecord & { current?: SyncedRecord }) | undefined> {
    const text = await response.text().catch(() => '');
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }

  const recordOf = (entry: OutboxEntry): LocalRecord => ({ ...entry.local, clientRecordId: entry.clientRecordId, transcriptionRecordId: entry.id ?? null, revision: entry.base?.revision ?? 0 });

  async function pending() {
    const { entries } = await read();
    return { count: entries.length, problems: entries.filter((entry) => entry.problem).length };
  }

  /** What the app holds of a record the outbox has changes of: the service's record with those changes over it, at their base. */
  const overlay = (record: SyncedRecord, entry: OutboxEntry): Change =>
    entry.removed
      ? { type: 'delete', transcriptionRecordId: record.transcriptionRecordId, clientRecordId: record.clientRecordId, revision: record.revision, deletedAt: new Date().toISOString() }
      : // The revision is the one the local changes were made on, not the service's newer one: an
        // edit of what the app shows goes against what the person saw. (A create whose answer was
        // lost has none: its changes go with the create, whose answer says what they were made on.)
        { type: 'upsert', record: { ...record, ...entry.local, revision: entry.base?.revision ?? record.revision }, pending: true };

  /** The resolved conflicts the app was not shown yet, as changes for `apply`. */
  function deliveries(state: OutboxState, userId: number | undefined): [string, Delivery, Change][] {
    return Object.entries(state.deliver ?? {})
      .filter(([, delivery]) => (delivery.userId ?? userId) === userId)
      .map(([key, delivery]): [string, Delivery, Change] => {
        if ('tombstone' in delivery) return [key, delivery, { type: 'delete', ...delivery.tombstone }];
        const entry = state.entries.find((candidate) => candidate.key === key && !candidate.problem);
        return [key, delivery, entry ? overlay(delivery.record, entry) : { type: 'upsert', record: delivery.record }];
      });
  }

  let pulling: Promise<PullResult & { delivered: number }> | undefined;
  /**
   * Walks the change feed from the stored cursor; each page goes to `apply` before its cursor is
   * stored. The first page starts with the resolved conflicts the app was not shown yet.
   */
  async function pullAll(apply: (changes: Change[]) => unknown, limit?: number): Promise<PullResult & { delivered: number }> {
    const userId = await signedIn();
    const stored = await readJson<FeedState>(storage, STORAGE_KEYS.feed);
    // Another person's cursor (a shared phone): their records are not this person's; start over.
    let reset = stored !== undefined && stored.userId !== userId;
    let cursor = reset ? undefined : stored?.cursor;
    let count = 0;
    let delivered = 0;
    for (;;) {
      const query = new URLSearchParams({ ...(cursor ? { cursor } : {}), ...(limit ? { limit: String(limit) } : {}) }).toString();
      const response = await request('GET', `/transcriptions/changes${query ? `?${query}` : ''}`);
      if (!response.ok) {
        const refusal = await apiErrorOf(response);
        if (response.status === 410 && refusal.error === 'CURSOR_EXPIRED' && cursor) {
          cursor = undefined;
          reset = true;
          continue;
        }
        throw refusal;
      }
      const page = (await response.json()) as { changes: Change[]; cursor: string; hasMore: boolean };
      const state = await read();
      const { entries } = state;
      const changes = page.changes.map((change): Change => {
        if (change.type !== 'upsert') return change;
        const entry = entries.find((candidate) => candidate.id === change.record.transcriptionRecordId || (candidate.clientRecordId && candidate.clientRecordId === change.record.clientRecordId));
        // A newer change of this device, not sent yet: the app keeps it (the push brings it to the service).
        return !entry || entry.problem ? change : overlay(change.record, entry);
      });
      // Before the page (whose changes are newer), after a reset (which they confirm).
      const delivering = delivered === 0 ? deliveries(state, userId) : [];
      changes.unshift(...delivering.map(([, , change]) => change));
      if (reset) changes.unshift({ type: 'reset', keep: entries.filter((entry) => !entry.base).map((entry) => entry.key) });
      await apply(changes);
      await writeJson(storage, STORAGE_KEYS.feed, { userId, cursor: page.cursor });
      if (delivering.length > 0) {
        delivered = delivering.length;
        // Shown now; one resolved again meanwhile (by a push beside this pull) waits for the next pull.
        await change((current) => {
          for (const [key, delivery] of delivering) if (JSON.stringify(current.deliver?.[key]) === JSON.stringify(delivery)) delete current.deliver![key];
        });
        // The changes they held may go.
        soon();
      }
      reset = false;
      count += page.changes.length;
      cursor = page.cursor;
      if (!page.hasMore) return { changes: count, delivered };
    }
  }
  const pullWith = ({ apply, limit }: PullOptions) => (pulling ??= pullAll(apply, limit).finally(() => (pulling = undefined)));
  const pull = async (options: PullOptions): Promise<PullResult> => ({ changes: (await pullWith(options)).changes });

  return {
    /**
     * Saves a new record: queued in storage at once with a new `clientRecordId` (its identity on
     * every device, from now; or the UUID the app gave it, lower case), then sent. Resolves to the record as the app should show it;
     * rejects with OutboxFullError (nothing queued) when the outbox is at its bound.
     */
    async save(body: RecordFields & { clientRecordId?: string }): Promise<LocalRecord> {
      const clientRecordId = body.clientRecordId ?? newRecordId();
      const userId = await signedIn();
      const local = fieldsOf(body);
      await change((state) => add(state, { key: clientRecordId, clientRecordId, local, editedAt: Date.now(), ...(userId ? { userId } : {}) }), true);
      soon();
      return { ...local, clientRecordId, transcriptionRecordId: null, revision: 0 };
    },
    /** Edits a record (one the feed brought, or one saved here): queued, coalesced with its other pending changes, then sent. */
    async update(record: LocalRecord, changes: Partial<RecordFields>): Promise<LocalRecord> {
      let conflict: Conflict | undefined;
      const shown = await edit(record, (entry, state): LocalRecord => {
        if (entry.removed) throw new TypeError('The record was removed');
        const { text, ...others } = fieldsOf(changes);
        // The person changed the text they were shown; where the outbox holds another (the
        // service's, from a merge the app was not shown yet), that one stays and the new text
        // becomes a conflict copy, as after a 412. Other fields: the later edit, this one, wins.
        const theirs = entry.local.text;
        Object.assign(entry.local, others);
        if (text !== undefined && record.text !== undefined && theirs !== undefined && theirs !== record.text && theirs !== text) {
          const copy = addCopy(state, entry, copyOf(entry.local, text, entry.local.startedAt));
          conflict = { type: 'merged', record: recordOf(entry), fields: [{ field: 'text', mine: text, theirs, kept: 'theirs' }], copy };
        } else if (text !== undefined) entry.local.text = text;
        return { ...record, ...entry.local, revision: entry.base?.revision ?? record.revision ?? 0 };
      });
      if (conflict) options.onConflict?.(conflict);
      return shown;
    },
    /** Removes a record: queued and sent; a record saved here and not sent yet is simply forgotten. */
    remove: (record: LocalRecord): Promise<void> => edit(record, (entry) => void (entry.removed = true)),
    /** The changes the service refused for good, each with its error; edit the record (`update`) to send it again, or `discard` it. */
    async pendingProblems(): Promise<PendingProblem[]> {
      return (await read()).entries.filter((entry) => entry.problem).map((entry) => ({ ...entry.problem!, record: recordOf(entry) }));
    },
    /** Forgets a record's pending changes (a parked problem the app gave up on). */
    discard: (record: LocalRecord) => change((state) => void (state.entries = state.entries.filter((entry) => entry.key !== keyOf(record)))),
    /** How many records have pending changes, and how many of them are parked problems. */
    pending,
    /** Sends the outbox now, one record at a time. Never throws: the answer says what stopped it (`error`); what was not sent waits. */
    push: (): Promise<PushResult> => {
      paused = false;
      return push();
    },
    /** Walks the change feed from where the last pull ended and hands each page to `apply` (see Change). */
    pull,
    /** Sends the outbox, then pulls with `apply`. */
    async sync(options: PullOptions): Promise<PushResult & PullResult> {
      paused = false;
      let pushed = await push();
      let pulled = await pullWith(options);
      let changes = pulled.changes;
      // The pull showed the app a resolved conflict: the changes of that record it held go now, and come back through the feed.
      for (let round = 0; round < 2 && pulled.delivered > 0 && !pushed.error; round++) {
        const again = await push();
        pushed = { ...again, sent: pushed.sent + again.sent };
        if (again.sent === 0) break;
        pulled = await pullWith(options);
        changes += pulled.changes;
      }
      return { ...pushed, changes };
    },
  };
}

export interface PullOptions {
  /** Writes a page of changes to the app's own database; the cursor is stored only once it resolved. */
  apply: (changes: Change[]) => unknown;
  /** Changes per page (1-100; the service's default 50). */
  limit?: number;
}

export interface PullResult {
  /** Changes the walk brought. */
  changes: number;
}

export interface PushResult {
  /** Requests that went out and were answered. */
  sent: number;
  /** Records with pending changes, after this push. */
  count: number;
  /** Of them, parked problems (see pendingProblems). */
  problems: number;
  /** Why the push stopped early (offline, the service unavailable, signed out); the changes wait. */
  error?: Error;
}
