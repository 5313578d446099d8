import { list } from '../../shared/devices/device-service';
import { endpoint } from '../../shared/http/endpoint';
import { pageQuerySchema, pageReply } from '../../shared/http/pagination';

export const handler = endpoint('GET /api/devices', {
  query: pageQuerySchema,
  run: async ({ query, caller }, ctx) => pageReply(await list(ctx, caller, query), query),
});
