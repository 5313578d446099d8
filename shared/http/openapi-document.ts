import { brotliDecompressSync } from 'node:zlib';
import { OPENAPI_DOCUMENT_BROTLI_BASE64 } from './openapi-document-data';

/**
 * The API's OpenAPI document as GET /api/openapi.json serves it. `npm run generate:openapi` writes
 * it twice: readable (openapi-document.generated.json, for review and the static reference) and
 * as brotli in base64 (openapi-document-data.ts, for the function), unpacked and parsed at the
 * first request. Packed, the function is 47 % smaller (docs/performance.md, "Library data and stand-ins").
 */
type Document = { openapi: string } & Record<string, unknown>;

let document: Document | undefined;

export const openApiDocument = (): Document =>
  (document ??= JSON.parse(brotliDecompressSync(Buffer.from(OPENAPI_DOCUMENT_BROTLI_BASE64, 'base64')).toString('utf8')) as Document);
