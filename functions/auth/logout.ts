import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';

/** Stateless (seed 4.5 and 5.5): the app forgets its token; the service only confirms. */
export const handler = endpoint('POST /api/auth/logout', {
  run: async () => succeeded('Logged out.'),
});
