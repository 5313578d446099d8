import { database } from '../../shared/db/client';
import { list } from '../../shared/devices/device-service';
import { endpoint } from '../../shared/http/endpoint';
import { pageQuerySchema, pageReply } from '../../shared/http/pagination';

export const handler = endpoint('GET /api/devices', {
  adapters: { database },
  query: pageQuerySchema,
  response: 'deviceListSchema',
  docs: { summary: 'List your devices', description: 'Newest binding first.' },
  run: async ({ query, caller }, ctx) => pageReply(await list(ctx, caller, query), query),
});
