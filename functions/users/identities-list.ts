import { endpoint } from '../../shared/http/endpoint';
import { listLinkedIdentities } from '../../shared/identity/linked-identities';

/** The caller's linked Apple, Google and WeChat identities (at most one each), by provider. */
export const handler = endpoint('GET /api/users/me/identities', {
  response: 'linkedIdentityListSchema',
  docs: {
    summary: 'Your linked sign-in providers',
    description: 'Each Apple, Google or WeChat identity linked to the account (at most one per provider): when it was linked, its e-mail if any and, for Apple, the name given. See docs/social-sign-in.md.',
  },
  run: ({ caller }, ctx) => listLinkedIdentities(ctx, caller),
});
