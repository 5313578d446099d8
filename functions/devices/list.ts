import { list } from '../../shared/devices/device-service';
import { listEndpoint } from '../../shared/http/list-endpoint';

export const handler = listEndpoint('GET /api/devices', {
  response: 'deviceListSchema',
  docs: { summary: 'List your devices', description: 'Newest binding first.' },
  list,
});
