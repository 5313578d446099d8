import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../shared/db/client';
import { epochSeconds } from '../../shared/ports/clock';
import { testContext } from '../support/unit-context';

/**
 * The Lambda request path with header and query names that are Object.prototype's (issue 28 found
 * them crashing the local server): API Gateway's event is JSON, in which `__proto__`,
 * `constructor` and `toString` are own properties like any other, and the handlers must treat
 * them as plain names.
 */
const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

/** A table whose every read finds a current profile (token version 0). */
const table = { send: async () => ({ Item: { tokenVersion: 0 } }) } as unknown as Database['client'];
const app = testContext({ database: () => ({ client: table, tableName: 't' }) });

/** An event as Lambda parses API Gateway's JSON: every name an own property. */
function event(method: string, path: string, extra: { body?: string; authorizer?: Record<string, string> } = {}): APIGatewayProxyEvent {
  const pairs = (value: string) => NAMES.map((name) => `"${name}": ${JSON.stringify(value)}`).join(', ');
  const multi = (value: string) => NAMES.map((name) => `"${name}": [${JSON.stringify(value)}, ${JSON.stringify(value)}]`).join(', ');
  const parsed = JSON.parse(`{
    "httpMethod": "${method}", "path": "${path}", "resource": "${path}",
    "headers": { ${pairs('x')}, "Content-Type": "application/json" },
    "multiValueHeaders": { ${multi('x')}, "Content-Type": ["application/json"] },
    "queryStringParameters": { ${pairs('1')} },
    "multiValueQueryStringParameters": { ${multi('1')} },
    "pathParameters": null, "isBase64Encoded": false, "body": null,
    "requestContext": { "requestId": "req-proto" }
  }`) as APIGatewayProxyEvent;
  expect(Object.keys(parsed.headers)).toContain('__proto__');
  return { ...parsed, body: extra.body ?? null, requestContext: { ...parsed.requestContext, authorizer: extra.authorizer } } as APIGatewayProxyEvent;
}

describe('headers and query parameters named like Object.prototype members, on the Lambda path', () => {
  it('are plain names to a public route', async () => {
    const health = (await import('../../functions/health/get')).handler.withContext(app);
    const response = await health(event('GET', '/api/health'), {} as Context);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('are plain names to a Bearer route with a body', async () => {
    const logout = (await import('../../functions/auth/logout')).handler.withContext(app);
    const authorizer = { userId: '1', tokenVersion: '0', exp: String(epochSeconds(new Date()) + 3600) };
    const response = await logout(event('POST', '/api/auth/logout', { body: '{}', authorizer }), {} as Context);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('are plain names to a list route that validates its query', async () => {
    const list = (await import('../../functions/transcriptions/list')).handler.withContext(app);
    const authorizer = { userId: '1', tokenVersion: '0', exp: String(epochSeconds(new Date()) + 3600) };
    const response = await list(event('GET', '/api/transcriptions', { authorizer }), {} as Context);
    // The stand-in table has no records to list; what matters is that the request got that far.
    expect(response.statusCode, response.body).not.toBe(500);
    expect(response.statusCode, response.body).not.toBe(400);
  });
});
