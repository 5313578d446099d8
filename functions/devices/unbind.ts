import { unbind } from '../../shared/devices/device-service';
import { devicePathParams } from '../../shared/devices/parameters';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';

/** Unbinds one of the caller's devices; a serial that is not the caller's is 404. */
export const handler = endpoint('DELETE /api/devices/{sn}', {
  params: devicePathParams,
  response: 'successSchema',
  docs: { summary: 'Unbind a device', description: 'A serial that is not bound to you answers 404.', errors: ['NOT_FOUND'] },
  run: async ({ params, caller }, ctx) => {
    await unbind(ctx, caller, params.sn);
    return succeeded('Device unbound.');
  },
});
