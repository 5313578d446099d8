import type { Page } from '../db/pagination';
import type { RouteId } from '../routes';
import type { ServiceContext } from '../service-context';
import { endpoint } from './endpoint';
import type { Caller, EndpointDefinition, ResultBody } from './endpoint';
import { pageQuerySchema, pageReply } from './pagination';
import type { PageQuery } from './pagination';
import type { ResponseSpec } from './response-shape';

type Item<R> = ResultBody<R> extends readonly (infer I)[] ? I : never;

/**
 * The handler of a paginated list: `?limit=` and `?cursor=`, the page as a plain array with its
 * next-page headers (shared/http/pagination.ts). The operation only reads one page of the caller's items.
 */
export function listEndpoint<R extends ResponseSpec>(
  id: RouteId,
  options: Pick<EndpointDefinition<undefined, typeof pageQuerySchema, undefined, R>, 'response' | 'docs'> & {
    list(ctx: ServiceContext, caller: Caller, page: PageQuery): Promise<Page<Item<R>>>;
  },
) {
  const { list, ...definition } = options;
  return endpoint(id, {
    ...definition,
    query: pageQuerySchema,
    run: async ({ query, caller }, ctx) => pageReply(await list(ctx, caller, query), query) as never,
  });
}
