import type { Config } from '../../config';
import type { Logging } from '../../context';
import { errorToResult } from '../response';
import type { EndpointMiddleware } from './invocation';

/**
 * Answers a failed request: a domain error becomes its status and `{code, message, error}` body
 * (shared/http/error-map.ts, with `Retry-After` where it has one), anything else a 500 that names
 * nothing internal, logged with its stack. A response an inner middleware already recovered with
 * is left as it is.
 */
export function errorMapping(options: { config: Config; logging: Logging; route: string }): EndpointMiddleware {
  return {
    onError: async (request) => {
      if (request.response !== undefined) return;
      const log = request.context.log ?? options.logging.logger({ route: options.route });
      request.response = errorToResult(request.error, request.event, options.config, log);
    },
  };
}
