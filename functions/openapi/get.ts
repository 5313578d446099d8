import { endpoint } from '../../shared/http/endpoint';
import { openApiDocument } from '../../shared/http/openapi-document';

/**
 * The OpenAPI 3.1 document of this API. Generated at build time (`npm run generate:openapi`, from
 * the route table and every handler's schemas) rather than here: generating it at run time would
 * bundle every handler into this function.
 */
export const handler = endpoint('GET /api/openapi.json', {
  response: 'openApiDocumentSchema',
  docs: {
    summary: 'This reference',
    description: 'The OpenAPI 3.1 description of every operation, generated from the schemas that validate requests and shape responses.',
  },
  run: async () => openApiDocument(),
});
