import type { Page } from '../db/pagination';
import type { RouteId } from '../routes';
import type { ServiceContext } from '../service-context';
import { endpoint } from './endpoint';
import type { Caller, EndpointDefinition } from './endpoint';
import { pageQuerySchema, pageReply } from './pagination';
import type { PageQuery } from './pagination';
import type { Reply } from './response';
import type { OnlyListedFields, ResponseSchemaName, ResultBody } from './response-contract';

/** The response schemas that are lists, and the item of each. */
type ListSchemaName = { [N in ResponseSchemaName]: ResultBody<N> extends readonly unknown[] ? N : never }[ResponseSchemaName];
type Item<R> = ResultBody<R> extends readonly (infer I)[] ? I : never;

/**
 * The handler of a paginated list: `?limit=` and `?cursor=`, the page as a plain array with its
 * next-page headers (shared/http/pagination.ts). The operation only reads one page of the
 * caller's items, each already its public shape (the response contract types `list` by the schema).
 */
export function listEndpoint<R extends ListSchemaName>(
  id: RouteId,
  options: Pick<EndpointDefinition<undefined, typeof pageQuerySchema, undefined, R>, 'docs'> & {
    response: R;
    list(ctx: ServiceContext, caller: Caller, page: PageQuery): Promise<Page<Item<R>>>;
  },
) {
  const { list, ...definition } = options;
  const listDefinition: EndpointDefinition<undefined, typeof pageQuerySchema, undefined, R> = {
    ...definition,
    query: pageQuerySchema,
    // A page of items typed by the schema's item is a Reply of the schema's list.
    run: async ({ query, caller }, ctx) => pageReply(await list(ctx, caller, query), query) as Reply<ResultBody<R>>,
  };
  return endpoint(id, listDefinition as EndpointDefinition<undefined, typeof pageQuerySchema, undefined, R> & OnlyListedFields<ResultBody<R>, ResultBody<R>>);
}
