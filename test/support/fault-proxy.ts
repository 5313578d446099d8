import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

/** One request as the client sent it. */
export interface SeenRequest {
  method: string;
  /** Without the query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Match = (request: SeenRequest) => boolean;

/** Matches `POST /api/auth/token/refresh` (also under /api/v1). */
export const route =
  (method: string, path: string): Match =>
  (request) =>
    request.method === method && request.path.replace('/api/v1/', '/api/') === path;

export interface FaultProxy {
  url: string;
  /** Every request that reached the proxy, in order. */
  seen: SeenRequest[];
  count(match: Match): number;
  /** The next `times` matching requests are answered `status` (with `headers`) without reaching the service. */
  answer(match: Match, status: number, times?: number, headers?: Record<string, string>): void;
  /** The next `times` matching requests reach the service, which stores them; the answer is lost (the connection drops). */
  loseAnswer(match: Match, times?: number): void;
  /** Unreachable: every connection is dropped unanswered, until `online()`. */
  offline(): void;
  online(): void;
  /** No more injected faults: every request reaches the service again. */
  heal(): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of the local server, between it and the client under test: it records
 * what the client sends, and injects the faults a phone meets (a 503, a lost answer, no network).
 * The service behind it is the real one.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const seen: SeenRequest[] = [];
  const rules: { match: Match; left: number; act: 'answer' | 'lose'; status?: number; headers?: Record<string, string> }[] = [];
  let down = false;
  const sockets = new Set<Socket>();

  const server = createServer((incoming, outgoing) => {
    if (down) {
      incoming.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const request: SeenRequest = { method: incoming.method ?? '', path: (incoming.url ?? '').split('?')[0] ?? '', headers: incoming.headers, body: body.toString('utf8') };
      seen.push(request);
      const rule = rules.find((candidate) => candidate.left > 0 && candidate.match(request));
      if (rule) rule.left--;
      if (rule?.act === 'answer') {
        const status = rule.status ?? 503;
        outgoing
          .writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*', ...rule.headers })
          .end(JSON.stringify({ code: status, message: 'Injected by the test proxy', error: status === 503 ? 'SERVICE_UNAVAILABLE' : `HTTP_${status}` }));
        return;
      }
      const forwarded = httpRequest(
        { hostname: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          if (rule?.act === 'lose') {
            // The service has answered, so it has stored; the phone never hears of it.
            answer.resume();
            answer.on('end', () => incoming.socket.destroy());
            return;
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    count: (match) => seen.filter(match).length,
    answer: (match, status, times = Infinity, headers) => void rules.push({ match, left: times, act: 'answer', status, ...(headers ? { headers } : {}) }),
    loseAnswer: (match, times = 1) => void rules.push({ match, left: times, act: 'lose' }),
    offline: () => {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    online: () => {
      down = false;
    },
    heal: () => {
      down = false;
      rules.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
