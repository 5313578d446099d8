import { get } from '../../shared/devices/device-service';
import { devicePathParams } from '../../shared/devices/parameters';
import { endpoint } from '../../shared/http/endpoint';

/** One of the caller's devices; a serial that is not bound to the caller is 404. */
export const handler = endpoint('GET /api/devices/{sn}', {
  params: devicePathParams,
  response: 'deviceSchema',
  docs: { summary: 'Read one of your devices', description: 'A serial that is not bound to you answers 404.', errors: ['NOT_FOUND'] },
  run: ({ params, caller }, ctx) => get(ctx, caller, params.sn),
});
