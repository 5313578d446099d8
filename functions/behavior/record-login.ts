import { recordLogin } from '../../shared/behavior/behavior-service';
import { loginBody } from '../../shared/behavior/schemas';
import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/middlewares/idempotency';
import { succeededAfter } from '../../shared/http/response';

/** Records a login event; honours Idempotency-Key. */
export const handler = endpoint('POST /api/behavior/login', {
  body: loginBody,
  response: 'successSchema',
  idempotency: idempotentIn('behavior-login'),
  docs: { summary: 'Record a login event', description: 'The sign-in operations do not record one themselves.' },
  run: ({ body, caller, remember }, ctx) => succeededAfter('Login recorded.', remember, (alongside) => recordLogin(ctx, caller, body.location, alongside)),
});
