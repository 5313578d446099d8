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
 * never, for `'stall'`) until told otherwise, and records what it received.
 */
export async function awsJsonStandIn(answer: AwsJsonAnswer | 'stall') {
  const received: AwsJsonRequest[] = [];
  let current = answer;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(body || '{}') as Record<string, unknown> });
      if (current === 'stall') return;
      response.writeHead(current.status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(current.body));
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
