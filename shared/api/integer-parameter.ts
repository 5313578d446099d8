import * as z from 'zod/mini';

/**
 * A query parameter that is a whole number in a range, with a default (`?days=`, `?limit=`). In a
 * module of its own, so that a function taking `?days=` does not build the list query's schema.
 */
export const boundedIntegerParameter = (field: string, min: number, max: number, fallback: number) =>
  z
    .pipe(
      z.optional(
        z.pipe(
          z.pipe(z.string().check(z.regex(/^\d{1,6}$/, `${field} must be a whole number`)), z.transform(Number)),
          z.number().check(z.int(), z.gte(min, `${field} must be at least ${min}`), z.lte(max, `${field} must be at most ${max}`)),
        ),
      ),
      z.transform((value: number | undefined) => value ?? fallback),
    )
    // `integer`: what the OpenAPI document says of it (infra/tools/openapi.ts): a query string holds
    // digits, but a client generator should type the parameter as the number it means.
    .check(z.meta({ description: `A whole number from ${min} to ${max}; ${fallback} when absent`, integer: { minimum: min, maximum: max, default: fallback } }));
