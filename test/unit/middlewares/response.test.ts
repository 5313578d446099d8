import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { errorMapping } from '../../../shared/http/middlewares/error-mapping';
import type { Invocation } from '../../../shared/http/middlewares/invocation';
import { response } from '../../../shared/http/middlewares/response';
import { Reply } from '../../../shared/http/response';
import { testContext } from '../../support/unit-context';
import { proxyEvent } from './pipeline';

const app = testContext();
const call = async (result: unknown, origin?: string) => {
  const handler = middy<never, unknown, Error, Invocation>(async () => result)
    .use(errorMapping(app, 'POST /api/test'))
    .use(response({ config: app.config }));
  const answer = (await handler(proxyEvent({ headers: origin ? { Origin: origin } : {} }) as never, {} as Context as Invocation)) as APIGatewayProxyResult;
  return { ...answer, body: JSON.parse(answer.body) };
};

describe('response middleware', () => {
  it('answers 200 with the result as JSON, and the security and CORS headers', async () => {
    const answer = await call({ code: 0, message: 'Done.' }, 'https://app.example.com');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ code: 0, message: 'Done.' });
    expect(answer.headers).toMatchObject({ 'Strict-Transport-Security': expect.any(String), 'Access-Control-Allow-Origin': '*' });
  });

  it('adds the headers of a Reply', async () => {
    const answer = await call(new Reply({ code: 0, message: 'Done.' }, { 'X-Next-Cursor': 'abc' }));
    expect(answer.headers).toMatchObject({ 'X-Next-Cursor': 'abc' });
  });

  it('answers a result that cannot become JSON as a 500, through error mapping', async () => {
    const circular: Record<string, unknown> = { code: 0 };
    circular.self = circular;
    const answer = await call(circular);
    expect(answer.statusCode).toBe(500);
    expect(answer.body).toMatchObject({ error: 'INTERNAL' });
  });
});
