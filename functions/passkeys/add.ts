import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { passkeyNameSchema, registrationResponseSchema } from '../../shared/identity/passkey-schemas';
import { addPasskey } from '../../shared/identity/passkey-verification';

const body = z.object({ response: registrationResponseSchema, name: z.optional(passkeyNameSchema) });

export const handler = endpoint('POST /api/auth/passkeys', {
  body,
  response: 'passkeySchema',
  docs: {
    summary: 'Add a passkey',
    description: 'Verifies what the platform created with the options of `POST /api/auth/passkeys/registration-options` and stores the passkey. At most 10 per account.',
    errors: ['PASSKEY_INVALID', 'PASSKEY_LIMIT_REACHED'],
  },
  run: ({ body, caller }, ctx) => addPasskey(ctx, caller, body.response, body.name),
});
