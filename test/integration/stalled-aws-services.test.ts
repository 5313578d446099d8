import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsCodeSender } from '../../shared/adapters/aws-code-sender';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Issue 19: SES, SNS and Secrets Manager calls end at their timeouts too. The clients are the real
 * adapters, pointed (AWS_ENDPOINT_URL_<SERVICE>, the SDK's own setting) at a server that accepts
 * connections and never answers; the bound is generous: 3 attempts of twice the timeout, plus slack.
 */
const TIMEOUT_MS = 200;
const BOUND_MS = 3 * 2 * TIMEOUT_MS + 8000;
const ENV = ['AWS_ENDPOINT_URL_SES', 'AWS_ENDPOINT_URL_SNS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

let silent: Server;
/** Requests the silent server received: the calls did reach it, and were retried. */
let received = 0;
/** The same, by the service the SDK's User-Agent names (`api/ses#...`, `api/sns#...`). */
const receivedBy: Record<string, number> = {};
let url: string;
let api: LocalApi;

beforeAll(async () => {
  silent = createServer((request) => {
    received++;
    const service = /\bapi\/([\w-]+)#/.exec(request.headers['user-agent'] ?? '')?.[1] ?? 'unknown';
    receivedBy[service] = (receivedBy[service] ?? 0) + 1;
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  Object.assign(process.env, { AWS_ENDPOINT_URL_SES: url, AWS_ENDPOINT_URL_SNS: url, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
  api = await startLocalApi({ AWS_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS), AWS_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), SES_FROM_ADDRESS: 'no-reply@captions.example' });
});

afterAll(async () => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await api?.close();
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe('stalled AWS services', () => {
  it('a stalled SES or SNS makes a code send answer 503 with Retry-After within the bound', async () => {
    const aws = await api.withPorts({ codeSender: awsCodeSender(api.config) });
    try {
      // The e-mail (SES) and the SMS (SNS) at once, each timed and counted on its own.
      const sends = [['email', 'ses', uniqueEmail('stalled-ses')], ['sms', 'sns', uniquePhone()]] as const;
      const before = { ...receivedBy };
      const answers = await Promise.all(
        sends.map(async ([type, , target]) => {
          const started = performance.now();
          const answer = await aws.request('POST', '/api/verify-code/send', { body: { type, target } });
          return { answer, elapsed: performance.now() - started };
        }),
      );
      for (const [index, [type, service]] of sends.entries()) {
        const { answer, elapsed } = answers[index]!;
        expect((receivedBy[service] ?? 0) - (before[service] ?? 0), type).toBeGreaterThanOrEqual(2);
        expect(answer.status, type).toBe(503);
        expect(answer.body, type).toMatchObject({ error: 'DELIVERY_FAILED' });
        expect(Number(answer.headers.get('retry-after')), type).toBeGreaterThanOrEqual(1);
        expect(elapsed, type).toBeGreaterThanOrEqual(TIMEOUT_MS);
        expect(elapsed, type).toBeLessThan(BOUND_MS);
      }
    } finally {
      await aws.close();
    }
  }, 60_000);

  it('a stalled Secrets Manager fails the read within the bound', async () => {
    const source = secretsManagerSource(
      { ...api.config, JWT_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:root-AbCdEf' },
      { endpoint: url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
    );
    const before = received;
    const started = performance.now();
    await expect(source.rootSecret()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(received - before).toBe(3);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(elapsed).toBeLessThan(BOUND_MS);
  }, 60_000);
});
