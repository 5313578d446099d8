import { packedJson } from '../packed-text';
import { OPENAPI_DOCUMENT_BROTLI_BASE64 } from './openapi-document-data';

/**
 * The API's OpenAPI document as GET /api/openapi.json serves it. `npm run generate:openapi` writes
 * it twice: readable (openapi-document.generated.json, for review and the static reference) and
 * packed (openapi-document-data.ts, for the function): 110 KB of JSON would be most of the
 * function, its packed form is 9 KB.
 */
type Document = { openapi: string } & Record<string, unknown>;

export const openApiDocument: () => Document = packedJson<Document>(OPENAPI_DOCUMENT_BROTLI_BASE64);
