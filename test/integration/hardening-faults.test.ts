import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { MAX_BODY_BYTES } from '../../shared/http/request';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { awsCodeSender } from '../../shared/adapters/aws-code-sender';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { DYNAMODB_MAX_ATTEMPTS } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { utcDate } from '../../shared/ports/clock';
import { signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { awsJsonStandIn } from '../../infra/local/aws-json-stand-in';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const FAULT = 'test-fault-injection';

/**
 * Makes the handlers' own DynamoDB client fail `times` times for one command, inside the SDK's
 * retry loop (the deserialize step), and counts how often that command was attempted.
 */
function injectFault(command: string, error: () => Error, times = Infinity) {
  const { client } = api.context.db;
  let attempts = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === command) {
        attempts++;
        if (attempts <= times) throw error();
      }
      return next(args);
    },
    { step: 'deserialize', name: FAULT },
  );
  return { attempts: () => attempts };
}

afterEach(() => {
  api.context.db.client.middlewareStack.remove(FAULT);
});

const throttled = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ProvisionedThroughputExceededException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });

const conflicted = () =>
  Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]'), {
    name: 'TransactionCanceledException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
  });

async function storedCodeItems(target: string) {
  const read = async (key: Record<string, string>) =>
    (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: key, ConsistentRead: true }))).Item;
  return { current: await read(keys.currentCode(target)), day: await read(keys.codeDay(target, utcDate(api.clock.now()))) };
}

const send = (target: string, on: LocalApi = api) =>
  on.request('POST', '/api/verify-code/send', { body: { type: target.includes('@') ? 'email' : 'sms', target } });

/**
 * The SDK backs off a throttled call by a full-jitter draw of Math.random() times its throttling base
 * (1 s, doubling per retry: up to 7 s for the three retries). The draw is pinned low while a test
 * runs, so the same retries (the client's own strategy and attempt count) take ~70 ms instead.
 */
let jitter: { mockRestore(): void } | undefined;
function lowJitter() {
  jitter = vi.spyOn(Math, 'random').mockReturnValue(0.01);
}

describe('DynamoDB faults', () => {
  afterEach(() => {
    jitter?.mockRestore();
    jitter = undefined;
  });

  it('rides out throttling with the SDK retries', async () => {
    lowJitter();
    const fault = injectFault('TransactWriteItemsCommand', throttled, 2);
    const target = uniqueEmail();
    const response = await send(target);
    expect(response.status).toBe(200);
    expect(fault.attempts()).toBe(3);
  });

  it('answers 503 when throttling outlasts the retries, and writes nothing', async () => {
    lowJitter();
    const fault = injectFault('TransactWriteItemsCommand', throttled);
    const target = uniqueEmail();
    const response = await send(target);
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE' });
    expect(JSON.stringify(response.body)).not.toMatch(/Provisioned|DynamoDB|Throughput/i);
    expect(fault.attempts()).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(await storedCodeItems(target)).toEqual({ current: undefined, day: undefined });
    expect(api.outbox.list(target)).toEqual([]);
  });

  it('retries a transaction that conflicted with another one', async () => {
    const fault = injectFault('TransactWriteItemsCommand', conflicted, 2);
    const response = await send(uniqueEmail());
    expect(response.status).toBe(200);
    expect(fault.attempts()).toBe(3);
  });

  it('gives up on a transaction that keeps conflicting with a bounded number of tries, writing nothing', async () => {
    const fault = injectFault('TransactWriteItemsCommand', conflicted);
    const target = uniqueEmail();
    const response = await send(target);
    expect(response.status).toBe(503);
    expect(fault.attempts()).toBeGreaterThan(1);
    expect(fault.attempts()).toBeLessThanOrEqual(10);
    expect(await storedCodeItems(target)).toEqual({ current: undefined, day: undefined });
  });

  it('hides everything internal behind a bare 500', async () => {
    injectFault('GetItemCommand', () =>
      Object.assign(new Error(`Requested resource not found: Table: ${api.db.tableName} not found`), {
        name: 'ResourceNotFoundException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const response = await api.request('POST', '/api/verify-code/verify', { body: { target: uniqueEmail(), verifyCode: '123456' } });
    expect(response.status).toBe(500);
    expect(Object.keys(response.body).sort()).toEqual(['code', 'error', 'message', 'requestId']);
    expect(response.body).toMatchObject({ code: 500, error: 'INTERNAL' });
    const text = JSON.stringify(response.body);
    for (const leak of [api.db.tableName, 'ResourceNotFound', 'Table', ' at ', '.ts', 'node_modules']) expect(text).not.toContain(leak);
  });
});

describe('code delivery through SES and SNS', () => {
  const ses = mockClient(SESClient);
  const sns = mockClient(SNSClient);
  afterEach(() => {
    ses.reset();
    sns.reset();
  });
  afterAll(() => {
    ses.restore();
    sns.restore();
  });

  /** A server on the same table whose code sender is the AWS adapter (its SDK clients mocked above). */
  let aws: LocalApi;
  beforeAll(async () => {
    aws = await api.withPorts({ codeSender: awsCodeSender({ ...api.config, SES_FROM_ADDRESS: 'no-reply@captions.example' }) });
  });
  afterAll(() => aws?.close());

  it('answers 503 DELIVERY_FAILED when SES fails, leaves no code or cooldown, and a retry works at once', async () => {
    ses.on(SendEmailCommand).rejectsOnce(Object.assign(new Error('Throttling: Maximum sending rate exceeded.'), { name: 'Throttling' })).resolves({ MessageId: 'm-1' });
    const target = uniqueEmail();

    const failed = await send(target, aws);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ code: 1, error: 'DELIVERY_FAILED' });
    expect(JSON.stringify(failed.body)).not.toMatch(/Throttling|SES|sending rate/);
    expect((await storedCodeItems(target)).current).toBeUndefined();
    expect(Number((await storedCodeItems(target)).day?.sends ?? 0)).toBe(0);

    const retried = await send(target, aws);
    expect(retried.status).toBe(200);
    const input = ses.commandCalls(SendEmailCommand)[1]!.args[0].input;
    expect(input.Destination?.ToAddresses).toEqual([target]);
    expect(input.Source).toBe('no-reply@captions.example');
    const code = /\b(\d{6})\b/.exec(input.Message?.Body?.Text?.Data ?? '')?.[1];
    expect(code).toBeDefined();
    const verified = await api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode: code } });
    expect(verified.status).toBe(200);
  });

  it('sends SMS through SNS as transactional messages to the E.164 number, and recovers from an SNS failure', async () => {
    sns.on(PublishCommand).rejectsOnce(new Error('SNS unavailable')).resolves({ MessageId: 'm-2' });
    const phone = uniquePhone();
    expect((await send(phone, aws)).status).toBe(503);
    expect((await send(phone, aws)).status).toBe(200);
    const input = sns.commandCalls(PublishCommand)[1]!.args[0].input;
    expect(input.PhoneNumber).toBe(phone);
    expect(input.MessageAttributes?.['AWS.SNS.SMS.SMSType']?.StringValue).toBe('Transactional');
    expect(input.Message).toMatch(/\d{6}/);
    expect(input.Message!.length).toBeLessThanOrEqual(160);
  });
});

describe('Secrets Manager', () => {
  const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:jwt-AbCdEf';
  const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

  /** A stand-in for the regional endpoint: unavailable (503) until `recover()`, then the secret. */
  async function fakeSecretsManager() {
    const standIn = await awsJsonStandIn({ status: 503, body: { __type: 'ServiceUnavailableException', message: 'secretsmanager is down' } });
    return {
      ...standIn,
      get calls() {
        return standIn.received.map(({ headers, body }) => ({ target: headers['x-amz-target'], secretId: body.SecretId, authorization: headers.authorization }));
      },
      recover: () => standIn.answerWith({ status: 200, body: { ARN: SECRET_ARN, SecretString: api.rootSecret } }),
    };
  }

  it('answers 503 with Retry-After while Secrets Manager is unavailable, and works on the next request once it is back', async () => {
    const secrets = await fakeSecretsManager();
    const reading = await api.withPorts({
      secrets: secretsManagerSource({ ...api.config, JWT_SECRET_ARN: SECRET_ARN }, { endpoint: secrets.endpoint, credentials: CREDENTIALS }),
    });
    try {
      const failed = await send(uniqueEmail(), reading);
      expect(failed.status).toBe(503);
      expect(failed.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE' });
      expect(Number(failed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(failed.body)).not.toMatch(/secretsmanager|ServiceUnavailableException|arn:/);
      // Retried as the SDK's standard retry mode would (3 attempts), then given up.
      expect(secrets.calls).toHaveLength(3);

      secrets.recover();
      const recovered = await send(uniqueEmail(), reading);
      expect(recovered.status).toBe(200);
      expect(secrets.calls).toHaveLength(4);
      for (const call of secrets.calls) {
        expect(call.target).toBe('secretsmanager.GetSecretValue');
        expect(call.secretId).toBe(SECRET_ARN);
        expect(call.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/secretsmanager\/aws4_request, /);
      }
    } finally {
      await secrets.close();
      await reading.close();
    }
  });

  it('answers 503 when the endpoint cannot be reached at all, and a bare 500 when the secret is refused', async () => {
    const secrets = await fakeSecretsManager();
    await secrets.close();
    const unreachable = await api.withPorts({
      secrets: secretsManagerSource({ ...api.config, JWT_SECRET_ARN: SECRET_ARN }, { endpoint: secrets.endpoint, credentials: CREDENTIALS }),
    });
    const failed = await send(uniqueEmail(), unreachable);
    await unreachable.close();
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE' });
    expect(JSON.stringify(failed.body)).not.toMatch(/secretsmanager|ECONNREFUSED|fetch|arn:/);

    // A deployment fault (no permission, no such secret) is not "try again": a bare 500.
    const denied = await awsJsonStandIn({ status: 400, body: { __type: 'AccessDeniedException', message: 'not allowed' } });
    try {
      const { endpoint } = denied;
      const refusing = await api.withPorts({ secrets: secretsManagerSource({ ...api.config, JWT_SECRET_ARN: SECRET_ARN }, { endpoint, credentials: CREDENTIALS }) });
      const refused = await send(uniqueEmail(), refusing);
      await refusing.close();
      expect(refused.status).toBe(500);
      expect(JSON.stringify(refused.body)).not.toMatch(/AccessDenied|arn:/);
    } finally {
      await denied.close();
    }
  });
});

describe('oversized requests', () => {
  it('refuses a body over the limit (1.5 MB) with 413 before parsing it', async () => {
    const password = 'x'.repeat(MAX_BODY_BYTES + 10);
    const response = await api.request('POST', '/api/auth/login', { body: { email: uniqueEmail(), password } });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 413, error: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses a body over the gateway limit (10 MB) at the gateway', async () => {
    const response = await api.request('POST', '/api/auth/login', { rawBody: 'x'.repeat(11 * 1024 * 1024), headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe(413);
  });

  it('accepts the largest legitimate body: a 100 000-character emoji transcription written with \\u escapes', async () => {
    const { token } = await signIn(api, uniqueEmail('escaped'));
    const text = '😀'.repeat(100_000);
    // As an ASCII-only JSON encoder (Python's json.dumps default) writes it: 12 bytes a character.
    const rawBody = JSON.stringify({ recordTitle: 'Escaped', text, language: 'en-US', durationSeconds: 60 }).replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    expect(rawBody.length).toBeGreaterThan(1_200_000);
    const response = await api.request('POST', '/api/transcriptions', { rawBody, token, headers: { 'content-type': 'application/json' } });
    expect(response.status, JSON.stringify(response.body).slice(0, 200)).toBe(200);
    expect(response.body.textLength).toBe(100_000);
  });

  it('refuses a long password by validation, so it never reaches scrypt', async () => {
    const response = await api.request('POST', '/api/auth/login', { body: { email: uniqueEmail(), password: 'p'.repeat(200_000) } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(response.body.details[0].path).toBe('body.password');
  });
});
