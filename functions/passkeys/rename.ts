import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { passkeyNameSchema, passkeyPathParams } from '../../shared/identity/passkey-schemas';
import { renameAccountPasskey } from '../../shared/identity/passkey-service';

export const handler = endpoint('PATCH /api/auth/passkeys/{passkeyId}', {
  params: passkeyPathParams,
  body: z.object({ name: passkeyNameSchema }),
  response: 'passkeySchema',
  docs: { summary: 'Rename a passkey', errors: ['NOT_FOUND'] },
  run: ({ params, body, caller }, ctx) => renameAccountPasskey(ctx, caller, params.passkeyId, body.name),
});
