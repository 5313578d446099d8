import { releaseDevice } from '../../shared/admin/admin-service';
import { adminDevicePath, adminReasonBody } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';

/** Support frees a serial from whichever account holds it, so that a new owner can bind it. */
export const handler = adminEndpoint('DELETE /admin/devices/{sn}', {
  params: adminDevicePath,
  body: adminReasonBody,
  response: 'adminReleasedDeviceSchema',
  docs: {
    summary: 'Release a device from its account',
    description: 'The serial leaves its owner\'s devices and can be bound by anyone; the former owner\'s records stay theirs. 404 when no account holds it.',
    errors: ['NOT_FOUND'],
  },
  run: async ({ params }, ctx) => ({ sn: params.sn, userId: await releaseDevice(ctx, params.sn) }),
});
