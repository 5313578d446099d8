import { bind } from '../../shared/devices/device-service';
import { bindDeviceBody } from '../../shared/devices/schemas';
import { endpoint } from '../../shared/http/endpoint';

/** Binds a device to the caller; a serial bound to another account is refused (400, code 1). */
export const handler = endpoint('POST /api/devices', {
  body: bindDeviceBody,
  run: ({ body, caller }, ctx) => bind(ctx, caller, body),
});
