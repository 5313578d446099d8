import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { parseConfig } from '../../shared/config';
import { ServiceUnavailableError } from '../../shared/errors';
import { cachedKeys, deriveKeys } from '../../shared/ports/secrets';

/**
 * The functions' root secret read goes through the SDK's Secrets Manager client (its retries and
 * timeouts are the SDK's; test/integration/hardening-faults.test.ts and stalled-aws-services.test.ts
 * drive them over HTTP). Secrets Manager cannot run here, so the client is mocked.
 */
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:root-AbCdEf';
const FIRST = 'the first root secret, at least thirty-two characters';
const ROTATED = 'the rotated root secret, at least thirty-two characters';
const cfg = parseConfig({ TABLE_NAME: 'accounts', AWS_REGION: 'us-east-1', JWT_SECRET_ARN: SECRET_ARN });

const secretsManager = mockClient(SecretsManagerClient);
afterEach(() => secretsManager.reset());
afterAll(() => secretsManager.restore());

const sdkError = (name: string, status: number) => Object.assign(new Error(name), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

describe('the root secret through the SDK client', () => {
  it('reads the secret named by JWT_SECRET_ARN with GetSecretValue', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: FIRST });
    await expect(secretsManagerSource(cfg).rootSecret()).resolves.toBe(FIRST);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('picks up a rotated secret once the keys are KEYS_MAX_AGE_SECONDS old, with no redeploy', async () => {
    secretsManager.on(GetSecretValueCommand).resolvesOnce({ SecretString: FIRST }).resolves({ SecretString: ROTATED });
    let now = 0;
    const keys = cachedKeys(secretsManagerSource(cfg), cfg.KEYS_MAX_AGE_SECONDS * 1000, () => now);
    expect((await keys()).tokenSigningKey).toEqual(deriveKeys(FIRST).tokenSigningKey);
    now = cfg.KEYS_MAX_AGE_SECONDS * 1000 - 1;
    expect((await keys()).tokenSigningKey).toEqual(deriveKeys(FIRST).tokenSigningKey);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    now = cfg.KEYS_MAX_AGE_SECONDS * 1000;
    expect((await keys()).tokenSigningKey).toEqual(deriveKeys(ROTATED).tokenSigningKey);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('keeps the keys it has while Secrets Manager fails a re-read', async () => {
    secretsManager.on(GetSecretValueCommand).resolvesOnce({ SecretString: FIRST }).rejects(sdkError('InternalServiceError', 500));
    let now = 0;
    const keys = cachedKeys(secretsManagerSource(cfg), 1000, () => now);
    const first = await keys();
    now = 5000;
    expect(await keys()).toBe(first);
  });

  it.each([
    ['throttled', sdkError('ThrottlingException', 400)],
    ['a 5xx', sdkError('InternalServiceError', 500)],
    ['timed out', sdkError('TimeoutError', 0)],
    ['unreachable', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' })],
  ])('answers "try again" (503) when Secrets Manager is %s', async (_case, error) => {
    secretsManager.on(GetSecretValueCommand).rejects(error);
    await expect(secretsManagerSource(cfg).rootSecret()).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('lets a deployment fault (no such secret, access denied) through as itself: a bare 500', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: 'no such secret', $metadata: { httpStatusCode: 400 } }));
    const failure = await secretsManagerSource(cfg).rootSecret().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ResourceNotFoundException);
    secretsManager.on(GetSecretValueCommand).rejects(sdkError('AccessDeniedException', 400));
    await expect(secretsManagerSource(cfg).rootSecret()).rejects.not.toBeInstanceOf(ServiceUnavailableError);
  });

  it('refuses a secret without a string value', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1, 2, 3]) });
    await expect(secretsManagerSource(cfg).rootSecret()).rejects.toThrow('no string value');
  });
});
