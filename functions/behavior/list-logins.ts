import { listByType } from '../../shared/behavior/behavior-service';
import { listEndpoint } from '../../shared/http/list-endpoint';

export const handler = listEndpoint('GET /api/behavior/login', {
  response: 'behaviorEventListSchema',
  docs: { summary: 'List your login events', description: 'Events of type `login`, newest first.' },
  list: (ctx, caller, page) => listByType(ctx, caller, 'login', page),
});
