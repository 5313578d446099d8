import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One DynamoDB API call as it went over the wire. */
export interface RecordedCall {
  /** `GetItem`, `TransactWriteItems` ... (the X-Amz-Target operation). */
  operation: string;
  body: Record<string, unknown>;
  /** True for calls of an AWS SDK client; false for the signed fetches of shared/adapters/signed-reads.ts (the authorizer's). */
  sdk: boolean;
}

export interface RecordingProxy {
  url: string;
  onCall(listener: (call: RecordedCall) => void): void;
  /** From now on, requests are held without an answer, as a frozen DynamoDB holds them. */
  stall(): void;
  /** Requests flow again (those held meanwhile stay unanswered: their callers gave up). */
  resume(): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of DynamoDB Local that reports every call passing through it: what a
 * function really asks of DynamoDB, whichever client it uses, as IAM will see it on AWS. It can
 * also stall, like DynamoDB Local under SIGSTOP: connections are accepted, nothing is answered.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  let listener: (call: RecordedCall) => void = () => {};
  let stalled = false;
  const server = createServer((incoming, outgoing) => {
    if (stalled) return;
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(incoming.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');
      const agent = `${incoming.headers['user-agent'] ?? ''} ${incoming.headers['x-amz-user-agent'] ?? ''}`;
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        // Not JSON: reported with an empty body.
      }
      listener({ operation, body: parsed, sdk: /aws-sdk-js/.test(agent) });
      const forwarded = httpRequest(
        { hostname: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    onCall: (next) => {
      listener = next;
    },
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The IAM actions one call needs. Transactions are authorised per item (TransactWriteItems needs
 * the item's Put/Update/Delete/ConditionCheck action, TransactGetItems GetItem); a Query names its
 * index, whose ARN the grant must cover.
 */
export function iamActionsOf(call: RecordedCall): string[] {
  const { operation, body } = call;
  if (operation === 'TransactWriteItems') {
    const items = (body.TransactItems ?? []) as Record<string, unknown>[];
    const byKind: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
    return items.flatMap((item) => Object.keys(item).map((kind) => byKind[kind] ?? `TransactWriteItems.${kind}`));
  }
  if (operation === 'TransactGetItems') return ['GetItem'];
  if (operation === 'Query' && typeof body.IndexName === 'string') return [`Query@${body.IndexName}`];
  return [operation];
}
