import type { AppContext } from '../../context';
import { errorToResult } from '../response';
import type { EndpointMiddleware } from './invocation';

/**
 * Answers a failed request: a domain error becomes its status and `{code, message, error}` body
 * (shared/http/error-map.ts, with `Retry-After` where it has one), anything else a 500 that names
 * nothing internal, logged with its stack. A response an inner middleware already recovered with
 * is left as it is.
 */
export function errorMapping(app: Pick<AppContext, 'config' | 'logging'>, route: string): EndpointMiddleware {
  return {
    onError: async (request) => {
      if (request.response !== undefined) return;
      // The context's logger is read here, not when the pipeline is built: building the pipeline
      // at init must not build the logger (shared/context.ts).
      const log = request.context.log ?? app.logging.logger({ route });
      request.response = errorToResult(request.error, request.event, app.config, log);
    },
  };
}
