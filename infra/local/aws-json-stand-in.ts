import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What an AWS JSON endpoint (Secrets Manager, DynamoDB) answers: a status and a JSON body. */
export interface AwsJsonAnswer {
  status: number;
  body: unknown;
}

export interface AwsJsonRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A stand-in for an AWS JSON endpoint on this machine: answers every request with `answer` (or
 * never, for `'stall'`; or what a function of the request gives) until told otherwise, and
 * records what it received. Tests of the AWS adapters use it with fixed answers; local mode's
 * Secrets Manager (infra/local/aws-stand-ins.ts) with a function.
 */
export async function awsJsonStandIn(answer: AwsJsonAnswer | 'stall' | ((request: AwsJsonRequest) => AwsJsonAnswer)) {
  const received: AwsJsonRequest[] = [];
  let current = answer;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(body || '{}') as Record<string, unknown>;
      } catch {
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify({ __type: 'SerializationException', message: 'The body is not JSON' }));
        return;
      }
      const received_ = { headers: request.headers, body: parsed };
      received.push(received_);
      if (current === 'stall') return;
      const { status, body: answerBody } = typeof current === 'function' ? current(received_) : current;
      // No Date: a moved local clock must not look like skew to the SDK (infra/local/aws-stand-ins.ts).
      response.sendDate = false;
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answerBody));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answerWith: (next: AwsJsonAnswer | 'stall') => void (current = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
