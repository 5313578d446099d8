import { recordEvents } from '../../shared/behavior/behavior-service';
import { eventBatchBody } from '../../shared/behavior/schemas';
import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/middlewares/idempotency';
import { succeededAfter } from '../../shared/http/response';

/** Records general events sent together, all or none; honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/events/batch', {
  body: eventBatchBody,
  response: 'successSchema',
  idempotency: idempotentIn('behavior-events-batch'),
  docs: {
    summary: 'Record behavior events together',
    description:
      'The events of POST /api/behavior/events, up to 50 in one request and one transaction: every event is recorded or none is. ' +
      'An app that queues its interface events and sends them when it opens pays for one request instead of one per event.',
  },
  run: ({ body, caller, remember }, ctx) => {
    const message = body.events.length === 1 ? '1 event recorded.' : `${body.events.length} events recorded.`;
    return succeededAfter(message, remember, (alongside) => recordEvents(ctx, caller, body, alongside));
  },
});
