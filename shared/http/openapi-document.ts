import { unpackText } from '../packed-text';
import { OPENAPI_DOCUMENT_BROTLI_BASE64 } from './openapi-document.generated';

/**
 * The API's OpenAPI document as GET /api/openapi.json serves it. `npm run generate:openapi` writes
 * it twice: readable (openapi-document.generated.json, for review and the static reference) and
 * compressed (openapi-document.generated.ts, for the function): 50 KB of JSON would be most of the
 * function's own code, its brotli form is 10 KB.
 */
type Document = { openapi: string } & Record<string, unknown>;
let document: Document | undefined;

export function openApiDocument(): Document {
  document ??= JSON.parse(unpackText(OPENAPI_DOCUMENT_BROTLI_BASE64)) as Document;
  return document;
}
