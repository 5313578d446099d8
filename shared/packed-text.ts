import { brotliDecompressSync } from 'node:zlib';

/**
 * Text that a generator packed into a module as brotli in base64 (infra/tools/packed-text.ts):
 * the OpenAPI document, the common-password list and the phone-number metadata. Packed, each is a
 * fraction of its size in the bundle, and none is parsed at cold start: it is unpacked the first
 * time a request needs it.
 */
export const unpackText = (packed: string): string => brotliDecompressSync(Buffer.from(packed, 'base64')).toString('utf8');

/** Packed JSON, unpacked and parsed on the first call and kept for the container's lifetime. */
export function packedJson<T>(packed: string): () => T {
  let value: T | undefined;
  return () => (value ??= JSON.parse(unpackText(packed)) as T);
}
