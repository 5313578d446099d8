/**
 * Replaces `node:stream/web` in Lambda bundles (an esbuild alias, see infra/bundling/options.ts).
 * @middy/core imports its `ReadableStream` at the top for response streaming, which this service
 * does not use (it only tests `body instanceof ReadableStream` there). Importing Node's web streams
 * costs ~1.6 ms of every cold import; the AWS SDK needs only part of them, on its first response
 * (~1.1 ms, the global `ReadableStream`), so a whole cold start is ~0.5 ms shorter without the
 * import (README "Benchmarks"). This stand-in answers `instanceof` and `new` with the real class,
 * which Node loads when first used. test/unit/bundles.test.ts checks that nothing but @middy/core
 * imports it.
 */
export class ReadableStream {
  constructor(...args: ConstructorParameters<typeof globalThis.ReadableStream>) {
    // A constructor that returns an object makes `new` give that object: the real stream.
    return new globalThis.ReadableStream(...args);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
}
