import * as z from 'zod/mini';
import { listAudit } from '../../shared/admin/admin-service';
import { adminAuditTargetChecks, adminAuditTargetFields } from '../../shared/admin/schemas';
import { adminEndpoint } from '../../shared/http/admin-endpoint';
import { pageQuerySchema, pageReply } from '../../shared/http/pagination';

/** The audit trail of an account or a serial, newest first, a page at a time. */
export const handler = adminEndpoint('GET /admin/audit', {
  query: z.extend(pageQuerySchema, adminAuditTargetFields).check(...adminAuditTargetChecks),
  response: 'adminAuditListSchema',
  docs: {
    summary: 'Read the audit trail',
    description:
      'Every /admin request that reached its function about the account (`userId`) or, when no account was known, the serial (`sn`): who, what, why and how it ended. ' +
      'A release is filed under the account it was taken from.',
  },
  run: async ({ query }, ctx) => {
    const { userId, sn } = query;
    const target = userId !== undefined ? { userId } : { sn };
    return pageReply(await listAudit(ctx, target, query), query, { userId: userId === undefined ? undefined : String(userId), sn });
  },
});
