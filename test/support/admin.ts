import { DEFAULT_LOCAL_ADMIN_CREDENTIALS } from '../../infra/local/sigv4-check';
import type { LocalAdminCredentials } from '../../infra/local/sigv4-check';
import { sendAdminRequest, signAdminRequest } from '../../infra/tools/admin-client';
import type { AdminRequest, AdminResponse } from '../../infra/tools/admin-client';
import type { LocalApi } from './local-api';

/** The admin API of a local server, signed as the support CLI signs (infra/tools/admin-client.ts). */
export function adminHelpers(api: LocalApi, credentials: LocalAdminCredentials = DEFAULT_LOCAL_ADMIN_CREDENTIALS) {
  const options = { baseUrl: api.url, region: api.config.AWS_REGION, credentials, now: () => api.clock.now() };
  const call = (request: AdminRequest): Promise<AdminResponse> => sendAdminRequest(options, request);
  const reason = 'Ticket 4711: test';
  return {
    options,
    call,
    sign: (request: AdminRequest) => signAdminRequest(options, request),
    find: (query: Record<string, string>) => call({ method: 'GET', path: '/admin/users', query }),
    change: (userId: number, action: 'sign-out' | 'unlock' | 'disable' | 'enable', body: unknown = { reason }) =>
      call({ method: 'POST', path: `/admin/users/${userId}/${action}`, body }),
    remove: (userId: number, body: unknown = { reason }) => call({ method: 'DELETE', path: `/admin/users/${userId}`, body }),
    release: (sn: string, body: unknown = { reason }) => call({ method: 'DELETE', path: `/admin/devices/${sn}`, body }),
    audit: (query: Record<string, string>) => call({ method: 'GET', path: '/admin/audit', query }),
  };
}
