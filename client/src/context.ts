import type { Session } from './session';
import type { Storage } from './storage';
import type { Api, ApiRequest } from './transport';

/**
 * What each area of the client (auth, users, transcriptions, events, and those to come) is built
 * from: one module per area, each a function of this context.
 */
export interface ClientContext {
  api: Api;
  /** One request under /api through the same fetch as `api` (for operations its types do not name). */
  request: ApiRequest;
  session: Session;
  storage: Storage;
  clientName: string | undefined;
  /** Set once the events area exists: logout sends what is queued first (no more of the area is needed here). */
  events?: { flush(): Promise<unknown> };
  /** Set once the transcriptions area exists: logout sends the records outbox first too. */
  records?: { push(): Promise<unknown> };
}
