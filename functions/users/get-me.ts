import { endpoint } from '../../shared/http/endpoint';
import { currentUser } from '../../shared/identity/account-service';

export const handler = endpoint('GET /api/users/me', {
  // The stored user carries its password hash and token version: the schema answers seed 2.1's fields only.
  response: 'userSchema',
  docs: { summary: 'The signed-in user' },
  run: ({ caller }, ctx) => currentUser(ctx, caller),
});
