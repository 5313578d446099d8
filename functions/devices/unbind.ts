import { unbind } from '../../shared/devices/device-service';
import { devicePathParams } from '../../shared/devices/schemas';
import { endpoint } from '../../shared/http/endpoint';
import { succeeded } from '../../shared/http/response';

/** Unbinds one of the caller's devices; a serial that is not the caller's is 404. */
export const handler = endpoint('DELETE /api/devices/{sn}', {
  params: devicePathParams,
  run: async ({ params, caller }, ctx) => {
    await unbind(ctx, caller, params.sn);
    return succeeded('Device unbound.');
  },
});
