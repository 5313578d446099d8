import { list } from '../../shared/devices/device-service';
import { listEndpoint } from '../../shared/http/list-endpoint';
import { deviceListResponse } from '../../shared/http/response-shapes.generated';

export const handler = listEndpoint('GET /api/devices', {
  response: deviceListResponse,
  docs: { summary: 'List your devices', description: 'Newest binding first.' },
  list,
});
