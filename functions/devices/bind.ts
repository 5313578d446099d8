import { bind } from '../../shared/devices/device-service';
import { bindDeviceBody } from '../../shared/devices/schemas';
import { endpoint } from '../../shared/http/endpoint';

/** Binds a device to the caller; a serial bound to another account is refused (400, code 1). */
export const handler = endpoint('POST /api/devices', {
  body: bindDeviceBody,
  response: 'deviceSchema',
  docs: {
    summary: 'Bind a device',
    description: 'Binding a device you already own again answers 200 with its original `createdAt` and takes the new `mac` and `productModel`.',
    errors: ['DEVICE_BOUND_ELSEWHERE'],
  },
  run: ({ body, caller }, ctx) => bind(ctx, caller, body),
});
