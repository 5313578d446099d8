import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '../../errors';
import { boundedBody, parseJsonBody } from '../request';
import type { EndpointMiddleware } from './invocation';

const hasNoBody = (event: APIGatewayProxyEvent) => event.body === null || event.body === undefined || event.body === '';

/**
 * Parses the JSON body into `context.body`: 413 past the size limit, 400 `INVALID_JSON` without a
 * JSON media type or for text that is not JSON. With `optional`, no body at all (or an empty
 * one) leaves `context.body` undefined; a body that is sent must still be JSON.
 */
export function jsonBody(options: { optional?: boolean } = {}): EndpointMiddleware {
  return {
    before: async (request) => {
      if (options.optional && hasNoBody(request.event)) return;
      request.context.body = parseJsonBody(request.event);
    },
  };
}

/**
 * An operation that takes no body refuses one, as its OpenAPI operation (which declares none)
 * says: 413 past the size limit as everywhere, else 400 `VALIDATION_FAILED` for any body at all,
 * so that a body a client believes is read is never silently ignored.
 */
export function noBody(): EndpointMiddleware {
  return {
    before: async (request) => {
      if (boundedBody(request.event) === '') return;
      throw new ValidationError('Invalid request: this operation takes no body', [{ path: 'body', message: 'this operation takes no body' }]);
    },
  };
}
