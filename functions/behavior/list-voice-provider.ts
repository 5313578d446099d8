import { listByType } from '../../shared/behavior/behavior-service';
import { listEndpoint } from '../../shared/http/list-endpoint';

export const handler = listEndpoint('GET /api/behavior/voice-provider', {
  response: 'behaviorEventListSchema',
  docs: { summary: 'List your voice_provider events', description: 'Events of type `voice_provider`, newest first.' },
  list: (ctx, caller, page) => listByType(ctx, caller, 'voice_provider', page),
});
