import { recordLogin } from '../../shared/behavior/behavior-service';
import { loginBody } from '../../shared/behavior/schemas';
import { database } from '../../shared/db/client';
import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/idempotency';

/** Records a login event; honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/login', {
  adapters: { database },
  body: loginBody,
  response: 'successSchema',
  idempotency: idempotentIn('behavior-login'),
  docs: { summary: 'Record a login event', description: 'The sign-in operations do not record one themselves.' },
  run: ({ body, caller, remember }, ctx) => recordLogin(ctx, caller, body.location, remember),
});
