import { recordEvent } from '../../shared/behavior/behavior-service';
import { eventBody } from '../../shared/behavior/schemas';
import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/middlewares/idempotency';
import { succeededAfter } from '../../shared/http/response';

/** Records a general behavior event (not `login`); honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/events', {
  body: eventBody,
  response: 'successSchema',
  idempotency: idempotentIn('behavior-events'),
  docs: { summary: 'Record a behavior event' },
  run: ({ body, caller, remember }, ctx) => succeededAfter('Event recorded.', remember, (alongside) => recordEvent(ctx, caller, body, alongside)),
});
