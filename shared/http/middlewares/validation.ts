import type * as z from 'zod/v4/core';
import { validatePart } from '../request';
import type { EndpointMiddleware } from './invocation';

export interface RequestSchemas {
  body?: z.$ZodType;
  query?: z.$ZodType;
  params?: z.$ZodType;
}

/**
 * Validates the parsed body, the query string and the path parameters against the endpoint's
 * zod schemas, in that order, and keeps what the schemas output. A problem is a 400
 * `VALIDATION_FAILED` listing every problem of the first part that has one. A body left out
 * (json-body with `optional`) is not validated.
 */
export function validation(schemas: RequestSchemas): EndpointMiddleware {
  return {
    before: async ({ event, context }) => {
      if (schemas.body && context.body !== undefined) context.body = validatePart('body', schemas.body, context.body);
      if (schemas.query) context.query = validatePart('query', schemas.query, event.queryStringParameters ?? {});
      if (schemas.params) context.params = validatePart('path', schemas.params, event.pathParameters ?? {});
    },
  };
}
