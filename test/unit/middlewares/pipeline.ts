import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorMapping } from '../../../shared/http/middlewares/error-mapping';
import type { EndpointMiddleware, Invocation } from '../../../shared/http/middlewares/invocation';
import { response } from '../../../shared/http/middlewares/response';
import { testContext } from '../../support/unit-context';

export function proxyEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    httpMethod: 'POST',
    path: '/api/test',
    resource: '/api/test',
    body: null,
    headers: {},
    queryStringParameters: null,
    pathParameters: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'request-1' },
    ...overrides,
  } as APIGatewayProxyEvent;
}

/**
 * The middleware under test between the response and error-mapping middlewares, as endpoint()
 * composes them, so a test reads what a client would: the status, headers and JSON body. The
 * handler answers what the middlewares left on the invocation.
 */
export function answer(
  middlewares: EndpointMiddleware[],
  handler: (event: APIGatewayProxyEvent, context: Invocation) => Promise<unknown> = async (_event, context) => ({ body: context.body ?? null }),
  app = testContext(),
) {
  const chain = middy<APIGatewayProxyEvent, unknown, Error, Invocation>(handler)
    .use(errorMapping(app, 'POST /api/test'))
    .use(response({ config: app.config }))
    .use(middlewares);
  return async (event: APIGatewayProxyEvent) => {
    const result = (await chain(event, { awsRequestId: 'lambda-1' } as Context as Invocation)) as APIGatewayProxyResult;
    return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) as Record<string, any> };
  };
}
