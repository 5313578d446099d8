import { listByType } from '../../shared/behavior/behavior-service';
import { listEndpoint } from '../../shared/http/list-endpoint';

export const handler = listEndpoint('GET /api/behavior/language-choice', {
  response: 'behaviorEventListSchema',
  docs: { summary: 'List your language_choice events', description: 'Events of type `language_choice`, newest first.' },
  list: (ctx, caller, page) => listByType(ctx, caller, 'language_choice', page),
});
