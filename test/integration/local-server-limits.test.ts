import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../shared/http/request';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Issue 19: the local server checks the token before it reads a body, stops reading a body at the
 * handlers' 1.5 MB, ends slow requests, and limits each client address on the code endpoints.
 */
const CODE_LIMIT = 5;
/** The slow clients' server's header and request timeouts: short, so the test is quick; a hang would be 60 s. */
const REQUEST_TIMEOUT_MS = 300;
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({ LOCAL_CODE_REQUESTS_PER_5_MINUTES: String(CODE_LIMIT) });
});
afterAll(() => api?.close());

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  /** Body bytes the client had written when the answer arrived. */
  sentWhenAnswered: number;
}

/**
 * Declares a body of `declared` bytes and writes it in chunks, one per `pauseMs`, until the
 * server answers or closes: what a slow or huge upload looks like from the server's side.
 */
function upload(path: string, declared: number, headers: Record<string, string> = {}, pauseMs = 0, chunkBytes = 64 * 1024, server: LocalApi = api): Promise<Answer> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(
      { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(declared), ...headers } },
      (response) => {
        answered = true;
        const sentWhenAnswered = sent;
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, sentWhenAnswered }));
      },
    );
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(chunkBytes, 'a');
    const writeMore = () => {
      if (answered || req.destroyed || sent >= declared) return;
      const piece = chunk.subarray(0, Math.min(chunk.length, declared - sent));
      sent += piece.length;
      req.write(piece, () => setTimeout(writeMore, pauseMs));
    };
    writeMore();
  });
}

describe('bodies', () => {
  it('refuses a 10 MB body without a token with 401 before reading it', async () => {
    const answer = await upload('/api/transcriptions', 10 * 1024 * 1024, {}, 5);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 401, error: 'UNAUTHORIZED' });
    expect(answer.headers.connection).toBe('close');
    // Answered long before the body could have been read.
    expect(answer.sentWhenAnswered).toBeLessThan(MAX_BODY_BYTES);
  });

  it('stops reading a body at 1.5 MB and answers the handlers 413, also when the length is not declared', async () => {
    const declared = await upload('/api/verify-code/send', 10 * 1024 * 1024);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ code: 413, error: 'PAYLOAD_TOO_LARGE' });

    const url = new URL('/api/verify-code/verify', api.url);
    const chunked = await new Promise<Answer>((resolve, reject) => {
      let sent = 0;
      const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (response) => {
        let body = '';
        const sentWhenAnswered = sent;
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, sentWhenAnswered }));
      });
      req.on('error', () => undefined);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const writeMore = () => {
        if (req.destroyed || sent > 8 * 1024 * 1024) return reject(new Error('the server read on past the limit'));
        sent += chunk.length;
        req.write(chunk, () => setTimeout(writeMore, 1));
      };
      writeMore();
    });
    expect(chunked.status).toBe(413);
    expect(chunked.sentWhenAnswered).toBeLessThan(4 * 1024 * 1024);
  });
});

// A server of its own with short timeouts: the other tests' uploads are not raced against them.
describe('slow clients', () => {
  let slow: LocalApi;
  beforeAll(async () => {
    slow = await startLocalApi({ LOCAL_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), LOCAL_HEADERS_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
  });
  afterAll(() => slow?.close());

  it('ends a request whose body trickles in, within the request timeout', async () => {
    const started = performance.now();
    const answer = await upload('/api/verify-code/send', 1000, {}, 60_000, 10, slow).catch(() => ({ status: 0 }) as Answer);
    const elapsed = performance.now() - started;
    // Node answers 408 (or just closes) once the request timeout passes; generous bound.
    expect([0, 408]).toContain(answer.status);
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS * 0.9);
    expect(elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + 15_000);
  }, 30_000);

  it('ends a connection whose headers never finish', async () => {
    const url = new URL(slow.url);
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('POST /api/verify-code/send HTTP/1.1\r\nHost: x\r\n'));
      socket.on('data', () => undefined);
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 15_000);
  }, 30_000);
});

describe('code requests per client address', () => {
  it(`allows ${CODE_LIMIT} in 5 minutes, then answers 429 with Retry-After and CORS, and again after the window`, async () => {
    const send = () => api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: uniqueEmail('limited') } });
    // The body tests above used some of the window: start a fresh one.
    api.clock.advance(301);
    for (let index = 0; index < CODE_LIMIT; index++) expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 429, message: 'Too many requests', error: 'THROTTLED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(300);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    // Verify counts too (each code try is a guess); other routes do not.
    expect((await api.request('POST', '/api/v1/verify-code/verify', { body: { target: uniqueEmail('x'), verifyCode: '123456' } })).status).toBe(429);
    expect((await api.request('GET', '/api/health')).status).toBe(200);
    api.clock.advance(301);
    expect((await send()).status).toBe(200);
  });
});

// A server of its own, with its own context: its cap touches no other test's server.
describe('connections', () => {
  it('accepts no more than LOCAL_MAX_CONNECTIONS at once', async () => {
    const capped = await startLocalApi({ LOCAL_MAX_CONNECTIONS: '2' });
    const url = new URL(capped.url);
    const open = () =>
      new Promise<Socket>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
        socket.on('error', () => undefined);
      });
    const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
    try {
      const held = [await open(), await open()];
      // Node drops a connection over the cap at once; the held ones stay open.
      const third = await open();
      await closed(third);
      expect(held.every((socket) => !socket.destroyed)).toBe(true);
      held[0]!.destroy();
      await closed(held[0]!);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET /api/health HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      held[1]!.destroy();
    } finally {
      await capped.close();
    }
  });
});
