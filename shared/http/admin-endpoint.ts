import type { RouteId } from '../routes';
import { endpoint } from './endpoint';
import type { EndpointDefinition } from './endpoint';
import { adminAudit } from './middlewares/admin-audit';
import type { OnlyListedFields, ResponseSchemaName, ResultBody } from './response-contract';
import type * as z from 'zod/v4/core';

/**
 * The wrapper of the admin API's routes (`auth: 'iam'`, issue 37): `endpoint` with the audit
 * trail (shared/http/middlewares/admin-audit.ts), which writes one entry for every request that
 * reaches the function, whatever its answer.
 */
export function adminEndpoint<
  B extends z.$ZodType | undefined = undefined,
  Q extends z.$ZodType | undefined = undefined,
  P extends z.$ZodType | undefined = undefined,
  R extends ResponseSchemaName | undefined = undefined,
  T extends ResultBody<R> = ResultBody<R>,
>(id: RouteId, definition: Omit<EndpointDefinition<B, Q, P, R, T>, 'audit'> & OnlyListedFields<T, ResultBody<R>>) {
  return endpoint<B, Q, P, R, T>(id, { ...definition, audit: adminAudit } as EndpointDefinition<B, Q, P, R, T> & OnlyListedFields<T, ResultBody<R>>);
}
