import { signRequest } from './sigv4';
import type { AwsCredentials } from './sigv4';

export { credentialsFromEnvironment } from './environment-credentials';

/** Where a JSON-protocol AWS service is reached, and as whom. */
export interface AwsJsonTarget {
  service: 'dynamodb' | 'secretsmanager';
  region: string;
  /** DynamoDB Local in local mode; the public regional endpoint otherwise. */
  endpoint?: string;
  credentials: () => AwsCredentials;
  /** Per attempt, connection included (fetch has one deadline): DYNAMODB_ or AWS_REQUEST_TIMEOUT_MS. */
  timeoutMs: number;
}

const JSON_VERSION = { dynamodb: '1.0', secretsmanager: '1.1' } as const;
const TARGET_PREFIX = { dynamodb: 'DynamoDB_20120810', secretsmanager: 'secretsmanager' } as const;
const MAX_ATTEMPTS = 3;

export class AwsCallError extends Error {
  constructor(
    readonly errorType: string,
    readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(`AWS call failed: ${errorType} (${status})`, options);
    this.name = errorType;
  }
}

const retriable = (status: number, type: string) => status >= 500 || /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded/.test(type);

/**
 * One signed JSON call (`X-Amz-Target: <prefix>.<operation>`), with a timeout and a few jittered
 * retries for throttling and 5xx, as the SDK's standard retry mode would.
 */
export async function callAws<T>(target: AwsJsonTarget, operation: string, input: unknown): Promise<T> {
  const url = new URL(target.endpoint ?? `https://${target.service}.${target.region}.amazonaws.com/`);
  const body = JSON.stringify(input);
  for (let attempt = 1; ; attempt++) {
    const headers = signRequest(
      {
        method: 'POST',
        url,
        body,
        headers: {
          'content-type': `application/x-amz-json-${JSON_VERSION[target.service]}`,
          'x-amz-target': `${TARGET_PREFIX[target.service]}.${operation}`,
        },
      },
      { region: target.region, service: target.service },
      target.credentials(),
      new Date(),
    );
    delete headers.host;
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(target.timeoutMs) });
    } catch (error) {
      failure = error;
    }
    if (response?.ok) return (await response.json()) as T;
    const type = response ? ((await response.json().catch(() => ({}))) as { __type?: string }).__type?.split('#').pop() ?? 'UnknownError' : 'NetworkError';
    const status = response?.status ?? 0;
    if (attempt >= MAX_ATTEMPTS || (response && !retriable(status, type))) {
      throw new AwsCallError(type, status, { cause: failure });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * 2 ** attempt));
  }
}
