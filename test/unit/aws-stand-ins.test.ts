import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awsCodeSender } from '../../shared/adapters/aws-code-sender';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { parseConfig } from '../../shared/config';
import { renderCodeMessage } from '../../shared/identity/messages';
import { readCodeMessage, startAwsStandIns } from '../../infra/local/aws-stand-ins';
import type { AwsStandIns } from '../../infra/local/aws-stand-ins';
import { DevOutbox } from '../../infra/local/dev-outbox';
import { MovableClock } from '../support/movable-clock';

/**
 * `npm run start:deployed`'s Secrets Manager, SES and SNS (infra/local/aws-stand-ins.ts), called by
 * the functions' own adapters with the SDK's clients, reached as the deployed functions reach them:
 * through AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_ENDPOINT_URL_SES and AWS_ENDPOINT_URL_SNS.
 */
const ROOT_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:RootSecret-local';
const PROVIDER_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:ProviderSecret-local';
const cfg = parseConfig({ TABLE_NAME: 't', AWS_REGION: 'us-east-1', JWT_SECRET_ARN: ROOT_ARN, SOCIAL_SECRET_ARN: PROVIDER_ARN, SES_FROM_ADDRESS: 'Captions <no-reply@example.com>', APP_NAME: 'Captions 2' });
const outbox = new DevOutbox(new MovableClock(), false);
let standIns: AwsStandIns;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  standIns = await startAwsStandIns({ dynamodbEndpoint: inject('dynamoEndpoint'), secrets: () => ({ [ROOT_ARN]: 'the root secret', [PROVIDER_ARN]: JSON.stringify({ wechatAppSecrets: { wx1: 's1' } }) }), outbox });
  const env = {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: standIns.secretsManagerUrl,
    AWS_ENDPOINT_URL_SES: standIns.sesUrl,
    AWS_ENDPOINT_URL_SNS: standIns.snsUrl,
    AWS_ACCESS_KEY_ID: 'ASIAEXECUTIONROLE',
    AWS_SECRET_ACCESS_KEY: 'role-secret',
  };
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await standIns?.close();
});

describe('the Secrets Manager stand-in', () => {
  it('answers GetSecretValue for the secrets the stack makes, and refuses any other', async () => {
    const source = secretsManagerSource(cfg);
    await expect(source.rootSecret()).resolves.toBe('the root secret');
    await expect(source.providerSecrets!()).resolves.toEqual({ wechatAppSecrets: { wx1: 's1' } });
    await expect(secretsManagerSource({ ...cfg, JWT_SECRET_ARN: `${ROOT_ARN}-other` }).rootSecret()).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('the SES and SNS stand-in', () => {
  it('puts what SendEmail and Publish deliver into the dev outbox, with its code and language', async () => {
    const sender = awsCodeSender(cfg);
    for (const [channel, target, locale] of [['email', 'ses@example.com', 'zh-CN'], ['sms', '+8613800000001', 'en']] as const) {
      await sender.send({ channel, target, code: '012345', locale, ...renderCodeMessage(channel, locale, { appName: cfg.APP_NAME, code: '012345', validMinutes: 10 }) });
      expect(outbox.list(target)).toMatchObject([{ channel, target, code: '012345', locale }]);
    }
  });

  it("answers a delivery the outbox is told to fail with SES's refusal, which the SDK does not retry", async () => {
    outbox.failNext();
    const message = { channel: 'email' as const, target: 'refused@example.com', code: '111111', locale: 'en', ...renderCodeMessage('email', 'en', { appName: cfg.APP_NAME, code: '111111', validMinutes: 10 }) };
    await expect(awsCodeSender(cfg).send(message)).rejects.toMatchObject({ name: 'MessageRejected' });
    expect(outbox.list('refused@example.com')).toEqual([]);
    await awsCodeSender(cfg).send(message);
    expect(outbox.list('refused@example.com')).toHaveLength(1);
  });

  it('reads a message of another text as none', () => {
    expect(readCodeMessage('sms', '+8613800000001', '', 'Your code is 123456')).toBeUndefined();
  });
});

describe('DynamoDB Local, as the deployed functions reach it', () => {
  it('answers through the forwarder without a Date, so a moved clock is no skew to the SDK', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: standIns.dynamodbUrl, credentials: { accessKeyId: 'ASIAEXECUTIONROLE', secretAccessKey: 'role-secret' } });
    let date: string | undefined | null = null;
    client.middlewareStack.add((next) => async (args) => {
      const result = await next(args);
      date = (result.response as { headers: Record<string, string | undefined> }).headers.date;
      return result;
    }, { step: 'deserialize', name: 'readDate' });
    await expect(client.send(new ListTablesCommand({}))).resolves.toHaveProperty('TableNames');
    expect(date).toBeUndefined();
    client.destroy();
  });
});
