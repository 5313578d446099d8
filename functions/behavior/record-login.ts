import { recordLogin } from '../../shared/behavior/behavior-service';
import { loginBody } from '../../shared/behavior/schemas';
import { endpoint } from '../../shared/http/endpoint';
import { idempotencyKey, idempotently } from '../../shared/http/idempotency';
import { successResponse } from '../../shared/http/response-shapes.generated';

/** Records a login event; honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/login', {
  body: loginBody,
  response: successResponse,
  docs: { summary: 'Record a login event', description: 'The sign-in operations do not record one themselves.', headers: ['Idempotency-Key'] },
  run: ({ body, caller, headers }, ctx) =>
    idempotently(ctx, { account: caller, scope: 'behavior-login', key: idempotencyKey(headers), request: body }, (remember) =>
      recordLogin(ctx, caller, body.location, remember),
    ),
});
