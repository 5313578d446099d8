import { eventListEndpoint } from '../../shared/behavior/list-endpoint';

export const handler = eventListEndpoint('GET /api/behavior/login', 'login');
