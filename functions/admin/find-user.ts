import { findAccount } from '../../shared/admin/admin-service';
import { adminLookupQuery } from '../../shared/admin/lookup';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support looks one account up by an exact, normalised key; the answer is an allowlist of fields. */
export const handler = adminEndpoint('GET /admin/users', {
  query: adminLookupQuery,
  response: 'adminUserSchema',
  docs: {
    summary: 'Find an account',
    description:
      'Exactly one of `email` (trimmed, lower-cased), `phone` (E.164), `userId` or `sn` (the serial as bound), matched exactly through the items that map them. ' +
      'No secret, hash, transcript or event value is ever in the answer. A deleted account whose data is still being removed answers `status: deleting`; then 404.',
    errors: ['NOT_FOUND'],
  },
  run: ({ query }, ctx) => findAccount(ctx, query),
});
