import type { Config } from '../../config';
import { Reply, resultToResponse } from '../response';
import { shapeResponse } from '../response-shape';
import type { ResponseSpec } from '../response-shape';
import type { EndpointMiddleware, EndpointRequest } from './invocation';

/** Thrown when a handler's result breaks its response schema: a bug, answered as a 500. */
export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError';
}

/** The result as the response schema shapes it; the paths (never values) name what broke. */
function shape(result: unknown, spec: ResponseSpec | undefined, id: string): unknown {
  if (!spec) return result;
  const body = result instanceof Reply ? result.body : result;
  const shaped = shapeResponse(spec.shape, body);
  if (!shaped.ok) throw new ResponseShapeError(`${id}: the result does not match the response schema at ${shaped.paths.join(', ')}`);
  return result instanceof Reply ? new Reply(shaped.value, result.headers) : shaped.value;
}

/**
 * Turns the handler's result (plain data or a Reply) into the 200 proxy result: shaped by the
 * response schema, JSON, with the security and CORS headers. A result that breaks its schema
 * throws here, and error mapping answers it as a 500.
 */
export function response(options: { config: Config; spec: ResponseSpec | undefined; id: string }): EndpointMiddleware {
  const respond = (request: EndpointRequest) => {
    request.response = resultToResponse(shape(request.response, options.spec, options.id), request.event, options.config);
  };
  return {
    after: async (request) => respond(request),
    // An inner middleware recovered from the error with a result of its own (idempotency's
    // replay): it is answered like any result. middy runs no `after` once a request has failed.
    onError: async (request) => {
      if (request.response === undefined) return;
      try {
        respond(request);
      } catch (error) {
        request.response = undefined;
        request.error = error as Error;
      }
    },
  };
}
