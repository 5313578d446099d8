import type * as z from 'zod/v4/core';
import type { Reply } from './response';
import type * as responseSchemas from '../api/schemas';

/**
 * The response contract, in types only: what a handler's `run` may answer is exactly the output of
 * its route's response schema. The domain's mappers (`publicUser`, `publicRecord`, `toEvent` ...)
 * build each answer from stored items, copying the fields the schema lists and nothing else; these
 * types make a result with a field more or less fail to compile, and
 * test/integration/response-contract.test.ts holds every route's real answer to the OpenAPI
 * document. Nothing checks or trims an answer at run time.
 */

/**
 * A response schema of shared/api/schemas.ts, by its export name. A function carries the name
 * and the schema's type, never the schema: building it at init would cost a function without a
 * request schema ~10 KB and ~2 ms of cold import for nothing (docs/performance.md).
 */
export type ResponseSchemaName = { [K in keyof typeof responseSchemas]: (typeof responseSchemas)[K] extends z.$ZodType ? K : never }[keyof typeof responseSchemas];
/** The body `run` answers: the output of the response schema. */
export type ResultBody<R> = R extends ResponseSchemaName ? z.output<(typeof responseSchemas)[R]> : unknown;
/**
 * `T` with every field that `Shape` does not list typed `never`, at any depth: a result that
 * carries one (a stored item's password hash, keys or revision) does not compile, even when it
 * arrives through a spread or a variable, where TypeScript's own excess-property check is silent.
 */
type Exact<T, Shape> = T extends readonly (infer Item)[]
  ? Shape extends readonly (infer ShapeItem)[]
    ? readonly Exact<Item, ShapeItem>[]
    : never
  : T extends object
    ? Shape extends object
      ? { [K in keyof T]: K extends keyof Shape ? Exact<T[K], Shape[K]> : never }
      : never
    : T;
/** Nothing when `T` has only fields of `Shape`; otherwise a `run` no function can be, naming the problem. */
export type OnlyListedFields<T, Shape> = unknown extends Shape ? unknown : [T] extends [Exact<T, Shape>] ? unknown : { run: 'answers a field its response schema does not list' };
/** What `run` may return: a body of exactly the response schema's fields, plain or in a Reply. */
export type Result<T> = T | Reply<T>;
