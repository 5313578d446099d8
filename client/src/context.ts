import type { Session } from './session';
import type { Storage } from './storage';
import type { Api } from './transport';

/**
 * What each area of the client (auth, users, transcriptions, events, and those to come) is built
 * from: one module per area, each a function of this context.
 */
export interface ClientContext {
  api: Api;
  session: Session;
  storage: Storage;
  clientName: string | undefined;
  /** Set once the events area exists: logout sends what is queued first (no more of the area is needed here). */
  events?: { flush(): Promise<unknown> };
}
