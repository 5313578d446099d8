import { listEndpoint } from './list-endpoint';
import type { RouteId } from '../routes';
import { listByType } from '../behavior/behavior-service';
import type { EventType } from '../api/event-types';

/** The handler of one of the per-type event lists (seed 4.13 and 4.15): same code, another type. */
export const eventListEndpoint = (id: RouteId, eventType: EventType) =>
  listEndpoint(id, {
    response: 'behaviorEventListSchema',
    docs: { summary: `List your ${eventType} events`, description: `Events of type \`${eventType}\`, newest first.` },
    list: (ctx, caller, page) => listByType(ctx, caller, eventType, page),
  });
