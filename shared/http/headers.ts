/**
 * Headers on every response, success or error, from a handler or from the gateway: JSON that is
 * never cached or framed, and CORS for the configured origins.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

export const CORS_ALLOWED_HEADERS = 'Authorization,Content-Type,Accept-Language,Idempotency-Key,If-Match';
export const CORS_EXPOSED_HEADERS = 'X-Next-Cursor,Link,Retry-After,Idempotent-Replayed,ETag';

/** True when the setting allows every origin (`CORS_ORIGINS=*`). */
export const anyOrigin = (allowedOrigins: readonly string[]) => allowedOrigins[0] === '*';

/** CORS for `CORS_ORIGINS` as shared/config.ts parses it: `*`, or a listed origin echoed back. */
export function corsHeaders(allowedOrigins: readonly string[], requestOrigin: string | undefined): Record<string, string> {
  const base = { 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS };
  if (anyOrigin(allowedOrigins)) return { ...base, 'Access-Control-Allow-Origin': '*' };
  if (requestOrigin && allowedOrigins.includes(requestOrigin)) {
    return { ...base, 'Access-Control-Allow-Origin': requestOrigin, Vary: 'Origin' };
  }
  return { Vary: 'Origin' };
}

/** Reads a header whatever its case: API Gateway passes them as the client sent them. */
export function headerValue(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === lower) return value;
  return undefined;
}
