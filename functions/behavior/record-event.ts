import { recordEvent } from '../../shared/behavior/behavior-service';
import { eventBody } from '../../shared/behavior/schemas';
import { endpoint } from '../../shared/http/endpoint';
import { idempotencyKey, idempotently } from '../../shared/http/idempotency';
import { successResponse } from '../../shared/http/response-shapes.generated';

/** Records a general behavior event (not `login`); honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/events', {
  body: eventBody,
  response: successResponse,
  docs: { summary: 'Record a behavior event', headers: ['Idempotency-Key'] },
  run: ({ body, caller, headers }, ctx) =>
    idempotently(ctx, { account: caller, scope: 'behavior-events', key: idempotencyKey(headers), request: body }, (remember) =>
      recordEvent(ctx, caller, body, remember),
    ),
});
