import type { Context } from 'aws-lambda';
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config';
import { createContext } from '../../../shared/context';
import { ValidationError } from '../../../shared/errors';
import { errorMapping } from '../../../shared/http/middlewares/error-mapping';
import type { Invocation } from '../../../shared/http/middlewares/invocation';
import { requestLog } from '../../../shared/http/middlewares/request-log';
import { response } from '../../../shared/http/middlewares/response';
import type { MetricCount } from '../../../shared/ports/metrics';
import { proxyEvent } from './pipeline';

function logged(run: (context: Invocation) => Promise<unknown>) {
  const lines: Record<string, unknown>[] = [];
  const published: MetricCount[][] = [];
  const app = createContext({
    config: parseConfig({ TABLE_NAME: 'unit-tests', LOG_LEVEL: 'info', SERVICE_NAME: 'captioning-request-log-test' }),
    logSink: (line) => lines.push(JSON.parse(line)),
    metrics: () => ({ publish: (counts) => void published.push([...counts]) }),
  });
  const handler = middy<never, unknown, Error, Invocation>(async (_event: never, context: Invocation) => run(context))
    .use(requestLog(app, 'POST /api/test'))
    .use(errorMapping(app, 'POST /api/test'))
    .use(response({ config: app.config }));
  const call = () => handler(proxyEvent() as never, { awsRequestId: 'lambda-1' } as Context as Invocation);
  return { call, lines, published };
}

describe('request-log middleware', () => {
  it('writes one request line with the request id, route, status and duration', async () => {
    const { call, lines } = logged(async () => ({ ok: true }));
    await call();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'request',
        service: 'captioning-request-log-test',
        requestId: 'request-1',
        route: 'POST /api/test',
        status: 200,
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it('logs the status a failed request was answered with, once', async () => {
    const { call, lines } = logged(async () => {
      throw new ValidationError('Invalid request: body.name is required', []);
    });
    await call();
    expect(lines.map((line) => [line.message, line.status])).toEqual([['request', 400]]);
  });

  it("publishes the invocation's metrics once, the handler's first invocation counting a cold start", async () => {
    const { call, published } = logged(async (context) => {
      context.metrics!.count('RecordsSaved');
      return {};
    });
    await call();
    await call();
    expect(published).toEqual([
      [
        { name: 'ColdStart', dimensions: {}, value: 1 },
        { name: 'RecordsSaved', dimensions: {}, value: 1 },
      ],
      [{ name: 'RecordsSaved', dimensions: {}, value: 1 }],
    ]);
  });
});
