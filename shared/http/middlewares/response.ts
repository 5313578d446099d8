import type { Config } from '../../config';
import { resultToResponse } from '../response';
import type { EndpointMiddleware, EndpointRequest } from './invocation';

/**
 * Turns the handler's result (plain data or a Reply) into the 200 proxy result: JSON, with the
 * security and CORS headers. The result is already the public shape: the domain's typed mappers
 * build it and shared/http/response-contract.ts makes anything else fail to compile.
 */
export function response(options: { config: Config }): EndpointMiddleware {
  const respond = (request: EndpointRequest) => {
    request.response = resultToResponse(request.response, request.event, options.config);
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
