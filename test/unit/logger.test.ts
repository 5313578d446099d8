import type { Context } from 'aws-lambda';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLogging, maskTarget } from '../../shared/logging/logger';
import type { LoggingOptions } from '../../shared/logging/logger';

/** Loggings writing to one list; `read` parses what they wrote so far. */
const capture = () => {
  const lines: string[] = [];
  const logging = (options: LoggingOptions) => createLogging({ ...options, sink: (line) => lines.push(line) });
  return { logging, read: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
};

describe('maskTarget', () => {
  it('keeps enough of an e-mail or phone to follow a case, never the whole', () => {
    expect(maskTarget('alice.smith@example.com')).toBe('a***@example.com');
    expect(maskTarget('+8613800138000')).toBe('+86*********00');
    expect(maskTarget('12345')).toBe('*****');
  });
});

describe('createLogger', () => {
  it('writes one Powertools JSON object per line at or above its level', () => {
    const { logging, read } = capture();
    const log = logging({ level: 'info', serviceName: 'captioning-test' }).logger({ requestId: 'r1' });
    log.debug('hidden');
    log.info('shown', { status: 200 });
    log.child({ route: 'GET /x' }).error('failed');
    expect(read()).toEqual([
      expect.objectContaining({ level: 'INFO', message: 'shown', service: 'captioning-test', requestId: 'r1', status: 200, timestamp: expect.any(String) }),
      expect.objectContaining({ level: 'ERROR', message: 'failed', requestId: 'r1', route: 'GET /x' }),
    ]);
    logging({ level: 'silent' }).logger().error('nothing');
    expect(read()).toHaveLength(2);
  });

  it('adds the Lambda context, cold_start (first invocation only) and the request id as correlation_id', () => {
    const { logging, read } = capture();
    // Lambda sets it; Powertools reports a cold start only for on-demand containers.
    process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
    onTestFinished(() => void delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE);
    const container = logging({ level: 'info', serviceName: 'captioning-lambda-test' });
    const context = { functionName: 'captioning-dev-GetApiHealth', memoryLimitInMB: '256', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:f', awsRequestId: 'lambda-1' } as unknown as Context;
    container.startInvocation(context, 'api-request-1');
    container.logger({ requestId: 'api-request-1' }).info('request');
    container.startInvocation({ ...context, awsRequestId: 'lambda-2' }, 'api-request-2');
    container.logger({ requestId: 'api-request-2' }).info('request');
    const [first, second] = read();
    expect(first).toMatchObject({ cold_start: true, function_name: 'captioning-dev-GetApiHealth', function_request_id: 'lambda-1', correlation_id: 'api-request-1', requestId: 'api-request-1' });
    expect(second).toMatchObject({ cold_start: false, function_request_id: 'lambda-2', correlation_id: 'api-request-2' });
  });

  it('logs a sampled invocation at debug level when LOG_DEBUG_SAMPLE_RATE says so', () => {
    const { logging, read } = capture();
    const always = logging({ level: 'info', serviceName: 'captioning-sampled', debugSampleRate: 1 });
    always.startInvocation({ functionName: 'f', awsRequestId: 'x' } as Context, 'r');
    always.logger().debug('sampled detail');
    const never = logging({ level: 'info', serviceName: 'captioning-unsampled', debugSampleRate: 0 });
    never.startInvocation({ functionName: 'f', awsRequestId: 'y' } as Context, 'r');
    never.logger().debug('dropped detail');
    const messages = read().map((line) => line.message);
    expect(messages).toContain('sampled detail');
    expect(messages).not.toContain('dropped detail');
  });
});

describe('the keys Lambda reads from JSON logs', () => {
  it('writes level and an RFC 3339 timestamp, so Lambda filters by level and keeps our time', () => {
    const { logging, read } = capture();
    logging({ level: 'debug' }).logger().debug('detail');
    const entry = read()[0]!;
    // Powertools writes the level in capitals, as Lambda's own JSON log lines have it.
    expect(entry.level).toBe('DEBUG');
    expect(entry.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(entry).not.toHaveProperty('time');
  });
});
