import { eventListEndpoint } from '../../shared/http/event-list-endpoint';

export const handler = eventListEndpoint('GET /api/behavior/voice-provider', 'voice_provider');
