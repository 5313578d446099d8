import { afterEach, describe, expect, it } from 'vitest';
import { configuredEndpoint, signedSecretsManagerSource, tokenStandingLookup } from '../../shared/adapters/signed-reads';
import { parseConfig } from '../../shared/config';
import { ServiceUnavailableError } from '../../shared/errors';
import { awsJsonStandIn } from '../../infra/local/aws-json-stand-in';
import type { AwsJsonAnswer, AwsJsonRequest } from '../../infra/local/aws-json-stand-in';

/**
 * The authorizer's reads, signed with the SDK's signer, against a stand-in endpoint on this
 * machine: what goes over the wire, and what each failure becomes. (Against DynamoDB Local, the
 * authorizer's read runs in every integration test with a token.)
 */
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:root-AbCdEf';
const ROOT_SECRET = 'a root secret of at least thirty-two characters';
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
/** The default timeouts (3 s a read), except where a stall is waited out. */
const cfg = parseConfig({ TABLE_NAME: 'accounts', AWS_REGION: 'eu-west-1', JWT_SECRET_ARN: SECRET_ARN });
const TIMEOUT_MS = 100;
const impatient = { ...cfg, AWS_CONNECT_TIMEOUT_MS: TIMEOUT_MS, AWS_REQUEST_TIMEOUT_MS: TIMEOUT_MS };

type StandIn = Awaited<ReturnType<typeof awsJsonStandIn>>;
let standIns: StandIn[] = [];
afterEach(async () => {
  await Promise.all(standIns.map((standIn) => standIn.close()));
  standIns = [];
});

/** A stand-in endpoint closed after each test (infra/local/aws-json-stand-in.ts). */
async function standIn(answer: AwsJsonAnswer | 'stall'): Promise<StandIn> {
  const started = await awsJsonStandIn(answer);
  standIns.push(started);
  return started;
}

describe('the secret read signed with the SDK signer', () => {
  it('sends one GetSecretValue for the ARN, signed for secretsmanager in the region, and answers the secret', async () => {
    const { endpoint, received } = await standIn({ status: 200, body: { ARN: SECRET_ARN, SecretString: ROOT_SECRET } });
    const source = signedSecretsManagerSource(cfg, { endpoint, credentials: { ...CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEBY//session+token=' } });
    await expect(source.rootSecret()).resolves.toBe(ROOT_SECRET);
    expect(received).toHaveLength(1);
    const [{ headers, body }] = received as [AwsJsonRequest];
    expect(body).toEqual({ SecretId: SECRET_ARN });
    expect(headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
    expect(headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*x-amz-target[a-z0-9;-]*, Signature=[0-9a-f]{64}$/);
    expect(headers['x-amz-security-token']).toBe('FwoGZXIvYXdzEBY//session+token=');
  });

  it("takes the Lambda execution role's credentials from the environment", async () => {
    const { endpoint, received } = await standIn({ status: 200, body: { SecretString: ROOT_SECRET } });
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, key: process.env.AWS_SECRET_ACCESS_KEY };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDFROMENVIRONMENT', AWS_SECRET_ACCESS_KEY: 'secret-from-the-environment' });
    try {
      await signedSecretsManagerSource(cfg, { endpoint }).rootSecret();
    } finally {
      for (const [name, value] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.key]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(received[0]!.headers.authorization).toContain('Credential=AKIDFROMENVIRONMENT/');
  });

  it.each([
    ['a 5xx', { status: 503, body: { __type: 'ServiceUnavailableException', message: 'down' } }],
    ['throttled', { status: 400, body: { __type: 'com.amazonaws.secretsmanager#ThrottlingException', message: 'slow down' } }],
    ['stalled', 'stall' as const],
  ])('answers "try again" (503) after one attempt when Secrets Manager is %s', async (_case, answer) => {
    const { endpoint, received } = await standIn(answer);
    const started = performance.now();
    await expect(signedSecretsManagerSource(impatient, { endpoint, credentials: CREDENTIALS }).rootSecret()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(received).toHaveLength(1);
    // A stall ends at the timeout (connect + request: 200 ms), not at the function's.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('answers "try again" (503) when the endpoint cannot be reached', async () => {
    const { endpoint, close } = await standIn({ status: 200, body: {} });
    await close();
    await expect(signedSecretsManagerSource(cfg, { endpoint, credentials: CREDENTIALS }).rootSecret()).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('lets a deployment fault (access denied) through as a plain error: a bare 500', async () => {
    const { endpoint } = await standIn({ status: 400, body: { __type: 'AccessDeniedException', message: 'not allowed' } });
    const failure = await signedSecretsManagerSource(cfg, { endpoint, credentials: CREDENTIALS })
      .rootSecret()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ServiceUnavailableError);
    expect((failure as Error).message).toContain('AccessDeniedException');
  });
});

describe("the authorizer's token standing read", () => {
  const local = (endpoint: string, timeoutMs = 1000) => ({ ...cfg, DYNAMODB_ENDPOINT: endpoint, DYNAMODB_CONNECT_TIMEOUT_MS: timeoutMs, DYNAMODB_REQUEST_TIMEOUT_MS: timeoutMs });

  it('asks for the version and the session marker in one consistent GetItem', async () => {
    const { endpoint, received } = await standIn({ status: 200, body: { Item: { tokenVersion: { N: '3' }, 'session#s1': { N: '1' } } } });
    const standing = tokenStandingLookup(local(endpoint));
    await expect(standing({ userId: 7, tokenVersion: 3, sessionId: 's1' })).resolves.toBe(true);
    const [{ headers, body }] = received as [AwsJsonRequest];
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(headers.authorization).toMatch(/\/eu-west-1\/dynamodb\/aws4_request, /);
    expect(body).toMatchObject({ TableName: 'accounts', ConsistentRead: true, ProjectionExpression: 'tokenVersion, #session' });
    expect(body.ExpressionAttributeNames).toEqual({ '#session': expect.stringContaining('s1') });
  });

  it('fails, rather than answering, when DynamoDB does not answer in time or answers an error', async () => {
    const stalled = await standIn('stall');
    await expect(tokenStandingLookup(local(stalled.endpoint, TIMEOUT_MS))({ userId: 7, tokenVersion: 3 })).rejects.toThrow();
    await stalled.close();
    const failing = await standIn({ status: 500, body: { __type: 'InternalServerError' } });
    await expect(tokenStandingLookup(local(failing.endpoint))({ userId: 7, tokenVersion: 3 })).rejects.toThrow();
  });
});

describe('the endpoints the environment configures, as the SDK honours them', () => {
  /** Runs `read` with these AWS_ENDPOINT_URL_* variables (and the execution role's credentials) set, as Lambda's environment. */
  async function withEnvironment<T>(variables: Record<string, string>, read: () => Promise<T>): Promise<T> {
    const all = { AWS_ACCESS_KEY_ID: 'ASIAEXECUTIONROLE', AWS_SECRET_ACCESS_KEY: 'role-secret', ...variables };
    const saved = Object.fromEntries(Object.keys(all).map((name) => [name, process.env[name]]));
    Object.assign(process.env, all);
    try {
      return await read();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }

  it('reads the secret at AWS_ENDPOINT_URL_SECRETS_MANAGER, else AWS_ENDPOINT_URL', async () => {
    const specific = await standIn({ status: 200, body: { SecretString: ROOT_SECRET } });
    const general = await standIn({ status: 200, body: { SecretString: ROOT_SECRET } });
    await withEnvironment({ AWS_ENDPOINT_URL_SECRETS_MANAGER: specific.endpoint, AWS_ENDPOINT_URL: general.endpoint }, () => signedSecretsManagerSource(cfg).rootSecret());
    expect(specific.received).toHaveLength(1);
    expect(specific.received[0]!.headers.authorization).toContain('Credential=ASIAEXECUTIONROLE/');
    await withEnvironment({ AWS_ENDPOINT_URL: general.endpoint }, () => signedSecretsManagerSource(cfg).rootSecret());
    expect(general.received).toHaveLength(1);
  });

  it('reads the token standing at AWS_ENDPOINT_URL_DYNAMODB, unless AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', async () => {
    const table = await standIn({ status: 200, body: { Item: { tokenVersion: { N: '0' } } } });
    const standing = await withEnvironment({ AWS_ENDPOINT_URL_DYNAMODB: table.endpoint }, () => tokenStandingLookup(cfg)({ userId: 7, tokenVersion: 0 }));
    expect(standing).toBe(true);
    expect(table.received).toHaveLength(1);
    expect(table.received[0]!.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(configuredEndpoint({ endpointId: 'DYNAMODB' }, { AWS_ENDPOINT_URL_DYNAMODB: table.endpoint, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' })).toBeUndefined();
  });
});
