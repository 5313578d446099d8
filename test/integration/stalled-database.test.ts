import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { DYNAMODB_MAX_ATTEMPTS } from '../../shared/db/client';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { startRecordingProxy } from '../support/recording-proxy';
import type { RecordingProxy } from '../support/recording-proxy';

/**
 * Issue 19: a stalled DynamoDB (frozen: connections accepted, nothing answered) answers the
 * contract's 503 within a bounded time, and the service recovers when it resumes. The handlers'
 * calls go through a proxy that stalls on demand; the timeouts are short so the test is quick,
 * and the bound is generous (several seconds over attempts x timeout) for a busy machine.
 */
const TIMEOUT_MS = 300;
/** Every attempt times out, the SDK backs off (< 1 s in all) between them; the rest is slack. */
const BOUND_MS = DYNAMODB_MAX_ATTEMPTS * 2 * TIMEOUT_MS + 8000;

let proxy: RecordingProxy;
let api: LocalApi;
let token: string;
/** Signed in, never used: the authorizer has not decided on it, so it must read the table. */
let uncached: string;

beforeAll(async () => {
  proxy = await startRecordingProxy(inject('dynamoEndpoint'));
  api = await startLocalApi({
    DYNAMODB_ENDPOINT: proxy.url,
    DYNAMODB_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS),
    DYNAMODB_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  token = (await signIn(api, uniqueEmail('stalled'))).token;
  uncached = (await signIn(api, uniqueEmail('stalled-uncached'))).token;
  // The authorizer's decision is cached from here on, as API Gateway caches it.
  expect((await api.request('GET', '/api/transcriptions/usage', { token })).status).toBe(200);
});

afterAll(async () => {
  await api?.close();
  await proxy?.close();
});

async function timed(run: () => Promise<{ status: number; headers: Headers; body: any }>) {
  const started = performance.now();
  const response = await run();
  return { response, elapsed: performance.now() - started };
}

describe('a stalled database', () => {
  it('answers reads and writes with a clean 503 within the bound, then serves again once it resumes', async () => {
    proxy.stall();
    try {
      // The four requests at once (each its own bound): a read, a write, the authorizer's own read, a code send.
      const record = { recordTitle: 'Stalled', text: 'x', language: 'en-US', durationSeconds: 1 };
      const [read, write, undecided, send] = await Promise.all([
        timed(() => api.request('GET', '/api/transcriptions/usage', { token })),
        timed(() => api.request('POST', '/api/transcriptions', { token, body: record })),
        timed(() => api.request('GET', '/api/users/me', { token: uncached })),
        timed(() => api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: uniqueEmail('stalled-send') } })),
      ]);
      expect(read.response.status).toBe(503);
      expect(read.response.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE' });
      expect(Number(read.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(read.response.body)).not.toMatch(/timeout|dynamo/i);
      // It waited for the timeouts (no instant failure), and no longer than the bound.
      expect(read.elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(read.elapsed).toBeLessThan(BOUND_MS);

      expect(write.response.status).toBe(503);
      expect(write.elapsed).toBeLessThan(BOUND_MS);

      // The authorizer's own read of the token version times out too: 503, as API Gateway's
      // AUTHORIZER_FAILURE answers it (shared/http/gateway-responses.ts).
      expect(undecided.response.status).toBe(503);
      expect(undecided.response.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE' });
      expect(Number(undecided.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(undecided.elapsed).toBeLessThan(BOUND_MS);

      expect(send.response.status).toBe(503);
      expect(send.elapsed).toBeLessThan(BOUND_MS);
    } finally {
      proxy.resume();
    }
    expect((await api.request('GET', '/api/transcriptions/usage', { token })).status).toBe(200);
    const saved = await api.request('POST', '/api/transcriptions', { token, body: { recordTitle: 'After', text: 'y', language: 'en-US', durationSeconds: 2 } });
    expect(saved.status).toBe(200);
    expect((await api.request('GET', '/api/users/me', { token: uncached })).status).toBe(200);
  }, 60_000);
});
