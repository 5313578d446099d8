import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';
import { successResponse } from '../../shared/http/response-shapes.generated';

/** Stateless (seed 4.5 and 5.5): the app forgets its token; the service only confirms. */
export const handler = endpoint('POST /api/auth/logout', {
  response: successResponse,
  docs: { summary: 'Log out', description: 'Keeps no state: the app forgets its token, which stays valid until it expires.' },
  run: async () => succeeded('Logged out.'),
});
