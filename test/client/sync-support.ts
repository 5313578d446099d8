import { memoryStorage } from '../../client/src/index';
import type { CaptioningClient, Change, ClientOptions, LocalRecord, Storage } from '../../client/src/index';
import { testClient } from './support';

const SESSION_KEY = 'captioning.session';

/**
 * An app's own database of records, as docs/sync.md wires one: `apply` writes each page of the
 * change feed; after a reset every record is unconfirmed until the walk brings it, and what is
 * still unconfirmed when `pull()` resolved goes.
 */
export function localDatabase() {
  const records = new Map<string, LocalRecord>();
  const unconfirmed = new Set<string>();
  const keyOf = (record: { clientRecordId: string | null; transcriptionRecordId?: number | null }) => record.clientRecordId ?? `#${record.transcriptionRecordId}`;
  return {
    records,
    /** Records saved or edited here go in at once, as the app shows them. */
    put(record: LocalRecord) {
      records.set(keyOf(record), record);
      return record;
    },
    apply(changes: Change[]) {
      for (const change of changes) {
        if (change.type === 'reset') {
          for (const key of records.keys()) if (!change.keep.includes(key)) unconfirmed.add(key);
        } else if (change.type === 'upsert') {
          records.set(keyOf(change.record), change.record);
          unconfirmed.delete(keyOf(change.record));
        } else {
          // By id, or by clientRecordId for a record saved here that the feed has not brought back yet.
          for (const [key, record] of records) if (record.transcriptionRecordId === change.transcriptionRecordId || (change.clientRecordId !== null && key === change.clientRecordId)) records.delete(key);
        }
      }
    },
    /** After `pull()` resolved: what a reset walk did not bring is gone. */
    pulled() {
      for (const key of unconfirmed) records.delete(key);
      unconfirmed.clear();
    },
    /** Title and text of each record, by title, to compare devices with each other and with the service. */
    contents() {
      return [...records.values()].map((record) => ({ recordTitle: record.recordTitle, text: record.text })).sort((a, b) => a.recordTitle.localeCompare(b.recordTitle) || a.text.localeCompare(b.text));
    },
  };
}

export type LocalDatabase = ReturnType<typeof localDatabase>;

/** sync() into the device's database, then the database's end of the walk. */
export async function synced(client: CaptioningClient, database: LocalDatabase) {
  const result = await client.transcriptions.sync({ apply: (changes) => database.apply(changes), limit: 3 });
  database.pulled();
  return result;
}

/**
 * A second device of the same person: its own client and storage (its own outbox and cursor),
 * holding the first device's session. Signing in again with a code would need the server's clock
 * moved past the resend cooldown, and a server clock ahead of the devices' would decide every
 * "later edit wins" in the server's favour.
 */
export async function secondDevice(baseUrl: string, firstStorage: Storage, options: Partial<ClientOptions> = {}) {
  const storage = memoryStorage();
  await storage.set(SESSION_KEY, (await firstStorage.get(SESSION_KEY))!);
  return testClient(baseUrl, { storage, clientName: 'second device', ...options });
}

/** The person's records on the service, as title and text, sorted like contents(). */
export async function onService(client: CaptioningClient) {
  const { data } = await client.api.GET('/transcriptions', { params: { query: { limit: 100 } } });
  return data!.map((record) => ({ recordTitle: record.recordTitle, text: record.text })).sort((a, b) => a.recordTitle.localeCompare(b.recordTitle) || a.text.localeCompare(b.text));
}
