import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { AwsCallError, callAws } from '../../shared/adapters/aws-json-client';
import { signRequest } from '../../shared/adapters/sigv4';

class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    const key = secret === undefined || typeof secret === 'string' ? secret : Buffer.from(secret as ArrayBuffer);
    this.hash = key !== undefined ? createHmac('sha256', key) : createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.hash.update(typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('SigV4 signer', () => {
  const cases = [
    { service: 'dynamodb', region: 'us-east-1', target: 'DynamoDB_20120810.GetItem', body: '{"TableName":"t","Key":{"PK":{"S":"USER#1"}}}', session: undefined },
    { service: 'secretsmanager', region: 'eu-west-1', target: 'secretsmanager.GetSecretValue', body: '{"SecretId":"arn:aws:secretsmanager:eu-west-1:1:secret:x"}', session: 'FwoGZXIvYXdzEBY//session+token=' },
  ];

  // The SDK adds x-amz-content-sha256 unless told not to; the header is optional outside S3.
  it.each(cases)('signs $service requests exactly as the AWS SDK does', async ({ service, region, target, body, session }) => {
    const now = new Date('2026-03-04T05:06:07Z');
    const creds = { ...credentials, ...(session ? { sessionToken: session } : {}) };
    const hostname = `${service}.${region}.amazonaws.com`;
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target };
    const ours = signRequest({ method: 'POST', url: new URL(`https://${hostname}/`), headers, body }, { region, service }, creds, now);
    const sdk = await new SignatureV4({ credentials: creds, region, service, sha256: Sha256, applyChecksum: false }).sign(
      { method: 'POST', protocol: 'https:', hostname, path: '/', headers: { ...headers, host: hostname }, body, query: {} },
      { signingDate: now },
    );
    expect(ours.authorization).toBe(sdk.headers.authorization);
    expect(ours['x-amz-date']).toBe(sdk.headers['x-amz-date']);
    if (session) expect(ours['x-amz-security-token']).toBe(session);
  });

  it('changes the signature when the body changes', () => {
    const now = new Date('2026-03-04T05:06:07Z');
    const sign = (body: string) =>
      signRequest({ method: 'POST', url: new URL('https://dynamodb.us-east-1.amazonaws.com/'), headers: {}, body }, { region: 'us-east-1', service: 'dynamodb' }, credentials, now).authorization;
    expect(sign('{"a":1}')).not.toBe(sign('{"a":2}'));
  });
});

describe('AWS JSON client', () => {
  async function withServer(respond: (attempt: number) => { status: number; body: unknown }, run: (endpoint: string, seen: () => number) => Promise<void>) {
    let attempts = 0;
    const server = createServer((request, response) => {
      attempts++;
      const { status, body } = respond(attempts);
      request.resume();
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => attempts);
    } finally {
      server.close();
    }
  }
  const target = (endpoint: string) => ({ service: 'dynamodb' as const, region: 'us-east-1', endpoint, credentials: () => credentials, timeoutMs: 3000 });

  it('retries throttling and returns the eventual answer', async () => {
    await withServer(
      (attempt) => (attempt === 1 ? { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException' } } : { status: 200, body: { Item: {} } }),
      async (endpoint, seen) => {
        await expect(callAws(target(endpoint), 'GetItem', {})).resolves.toEqual({ Item: {} });
        expect(seen()).toBe(2);
      },
    );
  });

  it('does not retry a client error and names it', async () => {
    await withServer(
      () => ({ status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException' } }),
      async (endpoint, seen) => {
        const error = await callAws(target(endpoint), 'GetItem', {}).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(AwsCallError);
        expect((error as AwsCallError).name).toBe('ResourceNotFoundException');
        expect(seen()).toBe(1);
      },
    );
  });
});
