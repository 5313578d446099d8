import { listByType } from '../../shared/behavior/behavior-service';
import { listEndpoint } from '../../shared/http/list-endpoint';

export const handler = listEndpoint('GET /api/behavior/translation', {
  response: 'behaviorEventListSchema',
  docs: { summary: 'List your translation_on events', description: 'Events of type `translation_on`, newest first.' },
  list: (ctx, caller, page) => listByType(ctx, caller, 'translation_on', page),
});
