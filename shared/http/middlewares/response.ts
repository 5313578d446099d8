import type { Config } from '../../config';
import { Reply, resultToResponse } from '../response';
import type { EndpointMiddleware, EndpointRequest } from './invocation';

/**
 * Turns the handler's result (plain data or a Reply) into the 200 proxy result: JSON, with the
 * security and CORS headers. The result is already the public shape: the domain's typed mappers
 * build it and shared/http/response-contract.ts makes anything else fail to compile.
 */
export function response(options: { config: Config; etag?: boolean }): EndpointMiddleware {
  const respond = (request: EndpointRequest) => {
    request.response = resultToResponse(options.etag ? withEtag(request.response) : request.response, request.event, options.config);
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

/** A record's answer with its `ETag: "<revision>"` (the endpoint's `etag`). */
function withEtag(result: unknown): unknown {
  const body = result instanceof Reply ? (result.body as unknown) : result;
  const revision = (body as { revision?: unknown } | null | undefined)?.revision;
  if (typeof revision !== 'number') return result;
  return new Reply(body, { ...(result instanceof Reply ? result.headers : {}), ETag: `"${revision}"` });
}
