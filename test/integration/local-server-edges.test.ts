import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeId, routes, versionedPaths } from '../../shared/routes';
import { adminHelpers } from '../support/admin';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { ApiResponse, LocalApi } from '../support/local-api';

/**
 * What the outside runs of issue 28 found at the local server's edges, each as the request that
 * showed it: names that are Object.prototype's, a long cursor, the route order, an 11 MB body, a
 * method a path lacks. Every refusal is the JSON envelope.
 */
let api: LocalApi;
let token: string;
const logLines: Record<string, unknown>[] = [];
beforeAll(async () => {
  api = await startLocalApi({ LOG_LEVEL: 'info' }, { logSink: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) });
  token = (await signIn(api, uniqueEmail('edges'))).token;
});
afterAll(() => api?.close());

const envelope = (response: ApiResponse, status: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({ code: status, message: expect.any(String), error });
};

const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('query parameters and headers named like Object.prototype members', () => {
  it.each(PROTOTYPE_NAMES)('%s is just a name, as a query parameter (once or repeated) or a header', async (name) => {
    expect((await api.request('GET', `/api/health?${name}=1`)).status).toBe(200);
    expect((await api.request('GET', `/api/health?${name}=1&${name}=2`)).status).toBe(200);
    expect((await api.request('GET', '/api/health', { headers: { [name]: '1' } })).status).toBe(200);
    const list = await api.request('GET', `/api/transcriptions?limit=5&${name}=1`, { token, headers: { [name]: 'x' } });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body).toEqual([]);
  });
});

describe('long requests', () => {
  it('answers a cursor of 1 340 emoji (under the documented 2 048 characters) with the JSON envelope', async () => {
    const response = await api.request('GET', `/api/transcriptions?cursor=${encodeURIComponent('😀'.repeat(1340))}`, { token });
    envelope(response, 400, 'VALIDATION_FAILED');
  });

  it('answers a cursor of the documented 2 048 characters, each of three UTF-8 bytes, with the JSON envelope', async () => {
    const response = await api.request('GET', `/api/transcriptions?cursor=${encodeURIComponent('☺'.repeat(2048))}`, { token });
    envelope(response, 400, 'VALIDATION_FAILED');
  });

  it('refuses headers beyond any limit of ours with 431 and the JSON envelope', async () => {
    const response = await api.request('GET', '/api/health', { headers: { 'X-Padding': 'x'.repeat(100_000) } });
    envelope(response, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
  });
});

/**
 * Sends a request with a body of `bytes` as a simple client does: the whole body first, then it
 * reads the answer. Resolves with the raw answer, or with the error the client met writing.
 */
function postWholeBody(path: string, bytes: number, headers: Record<string, string>) {
  return new Promise<{ answer: string; error?: string }>((resolve) => {
    const url = new URL(api.url);
    let answer = '';
    let error: string | undefined;
    let answered = false;
    let sent = false;
    // Done once the client has both sent its whole body and read the whole answer.
    const finishIfDone = () => answered && sent && socket.destroy();
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, 'Content-Type: application/json', `Content-Length: ${bytes}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(Buffer.alloc(bytes, 'a'), (failure) => {
        sent = !failure;
        finishIfDone();
      });
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      // The whole answer is in once its body has the declared length.
      const [head, body] = answer.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head ?? '')?.[1];
      answered = length !== undefined && body !== undefined && Buffer.byteLength(body) >= Number(length);
      finishIfDone();
    });
    socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
    socket.on('close', () => resolve({ answer, error }));
  });
}

describe('a body over the limit', () => {
  it('answers an 11 MB POST with 413 PAYLOAD_TOO_LARGE, which a client that sends its whole body first reads without a broken pipe', async () => {
    const { answer, error } = await postWholeBody('/api/transcriptions', 11 * 1024 * 1024, { Authorization: `Bearer ${token}` });
    expect(error).toBeUndefined();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 413, error: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('a method the path does not have', () => {
  it('answers 405 with an Allow header and the JSON envelope (API Gateway answers 404 NOT_FOUND)', async () => {
    for (const path of ['/api/health', '/api/v1/health']) {
      const response = await api.request('PUT', path);
      envelope(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.get('allow')).toBe('GET, OPTIONS');
    }
    const transcriptions = await api.request('PUT', '/api/transcriptions/7', { token });
    envelope(transcriptions, 405, 'METHOD_NOT_ALLOWED');
    expect(transcriptions.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'OPTIONS', 'PATCH']);
    envelope(await api.request('GET', '/api/nowhere'), 404, 'NOT_FOUND');
  });
});

describe('route matching', () => {
  it('reaches usage, not the record {id}, at /api/v1/transcriptions/usage', async () => {
    for (const path of ['/api/transcriptions/usage', '/api/v1/transcriptions/usage']) {
      const response = await api.request('GET', path, { token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toMatchObject({ totalUsage: 0 });
    }
  });

  // The account's own deletion last: the others need its token.
  const ordered = [...routes].sort((a, b) => Number(routeId(a) === 'DELETE /api/users/me') - Number(routeId(b) === 'DELETE /api/users/me'));
  const sample: Record<string, string> = { id: '7', sn: 'SN-EDGE-1', sessionId: 'AAAAAAAAAAAAAAAAAAAAAA', userId: '7' };
  const cases = ordered.flatMap((route) => versionedPaths(route.path).map((path) => [routeId(route), path, route] as const));

  it.each(cases)('%s answers at %s from its own handler', async (id, path, route) => {
    const concrete = path.replace(/\{(\w+)\}/g, (_match, name: string) => sample[name]!);
    logLines.length = 0;
    // An `iam` route is reached signed, as the support CLI signs (unsigned, the SigV4 check answers 403 before any handler).
    const response =
      route.auth === 'iam'
        ? await adminHelpers(api).call({ method: route.method as 'GET' | 'POST' | 'DELETE', path: concrete, ...(route.method === 'GET' ? {} : { body: { reason: 'route matching' } }) })
        : await api.request(route.method, concrete, route.auth === 'bearer' ? { token } : {});
    // Its handler answered (a 404 of its own, for a record that does not exist, is fine): the log says which.
    expect(response.status, JSON.stringify(response.body)).not.toBe(405);
    const served = logLines.filter((line) => line.message === 'request').map((line) => line.route);
    expect(served).toEqual([id]);
  });
});
