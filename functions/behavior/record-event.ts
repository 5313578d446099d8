import { recordEvent } from '../../shared/behavior/behavior-service';
import { eventBody } from '../../shared/behavior/schemas';
import { database } from '../../shared/db/client';
import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/idempotency';

/** Records a general behavior event (not `login`); honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/events', {
  adapters: { database },
  body: eventBody,
  response: 'successSchema',
  idempotency: idempotentIn('behavior-events'),
  docs: { summary: 'Record a behavior event' },
  run: ({ body, caller, remember }, ctx) => recordEvent(ctx, caller, body, remember),
});
