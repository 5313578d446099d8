import type { APIGatewayProxyResult } from 'aws-lambda';
import type { AppContext } from '../../context';
import { InvocationMetrics } from '../../ports/metrics';
import type { EndpointMiddleware, EndpointRequest } from './invocation';

/** Lambda runs one invocation at a time per container; the local server does not. */
const onLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

/**
 * First in and last out: gives the invocation its logger (request id and route on every line) and
 * its business metrics, and when the response is known writes the one `request` line (status,
 * duration) and publishes the metrics, whatever the outcome. The first invocation of a handler
 * counts as its container's cold start.
 */
export function requestLog(app: Pick<AppContext, 'logging' | 'metrics'>, route: string): EndpointMiddleware {
  let coldStart = true;
  const finish = async (request: EndpointRequest) => {
    const { log, startedAt, metrics } = request.context;
    const status = (request.response as APIGatewayProxyResult | undefined)?.statusCode ?? 500;
    if (log && startedAt !== undefined) log.info('request', { status, durationMs: Math.round((performance.now() - startedAt) * 10) / 10 });
    const counts = metrics?.drain() ?? [];
    if (counts.length > 0) app.metrics.publish(counts);
  };
  return {
    before: async ({ event, context }) => {
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      if (onLambda) app.logging.startInvocation(context, requestId);
      context.log = app.logging.logger({ requestId, route });
      context.metrics = new InvocationMetrics();
      context.startedAt = performance.now();
      if (coldStart) {
        coldStart = false;
        context.metrics.count('ColdStart');
      }
    },
    after: finish,
    onError: finish,
  };
}
