import { database } from '../db/client';
import { endpoint } from '../http/endpoint';
import { pageQuerySchema, pageReply } from '../http/pagination';
import type { RouteId } from '../routes';
import { listByType } from './behavior-service';
import type { EventType } from './event-types';

/** The handler of one of the per-type event lists (seed 4.13 and 4.15): same code, another type. */
export const eventListEndpoint = (id: RouteId, eventType: EventType) =>
  endpoint(id, {
    adapters: { database },
    query: pageQuerySchema,
    response: 'behaviorEventListSchema',
    docs: { summary: `List your ${eventType} events`, description: `Events of type \`${eventType}\`, newest first.` },
    run: async ({ query, caller }, ctx) => pageReply(await listByType(ctx, caller, eventType, query), query),
  });
