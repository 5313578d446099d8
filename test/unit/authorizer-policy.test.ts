import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config';
import type { Database } from '../../shared/db/client';
import { authorize } from '../../shared/identity/authorize';
import { issueToken } from '../../shared/identity/tokens';
import { epochSeconds } from '../../shared/ports/clock';
import { deriveKeys } from '../../shared/ports/secrets';
import { routes, versionedPaths } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';
import { testContext } from '../support/unit-context';

const config = parseConfig({ TABLE_NAME: 't', LOG_LEVEL: 'silent' });
const keys = deriveKeys('a-root-secret-of-at-least-32-characters');
const now = new Date('2026-01-29T10:30:00Z');
const API = 'arn:aws:execute-api:eu-west-1:123456789012:abc123';

/** IAM resource matching: `*` matches any run of characters, `/` included. */
const iamMatches = (pattern: string, arn: string) =>
  new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(arn);

/** The ARN API Gateway checks for a request on a route (path parameters filled in). */
const methodArn = (route: RouteDefinition, path: string, stage = 'prod', api = API) =>
  `${api}/${stage}/${route.method}${path.replace(/\{[^}]+\}/g, '42')}`;

/** User 7's account is at token version 3 with one live session: all the authorizer reads from the table. */
const LIVE_SESSION = 'p3Xq9vK2T0a8YbWcLm4N1g';
const tokenStanding = async (token: { userId: number; tokenVersion: number; sessionId?: string }) =>
  token.userId === 7 && token.tokenVersion === 3 && (token.sessionId === undefined || token.sessionId === LIVE_SESSION);

describe("the authorizer's policy", () => {
  const ALL_ROUTES: readonly RouteDefinition[] = routes;
  const bearer = ALL_ROUTES.filter((route) => route.auth === 'bearer');
  let policy: { resource: string; context: Record<string, unknown> | null | undefined };

  beforeAll(async () => {
    const { token, expiresAt } = await issueToken(keys.tokenSigningKey, { userId: 7, tokenVersion: 3, sessionId: LIVE_SESSION }, now, {
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      lifetimeMs: config.TOKEN_TTL_MS,
    });
    // Authorized for one route: API Gateway then caches this answer for the token, for every route.
    const first = bearer[0]!;
    const result = await authorize(
      { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: methodArn(first, first.path) },
      { config, clock: { now: () => now }, tokenStanding, keys: async () => keys },
    );
    const [statement] = result.policyDocument.Statement as { Effect: string; Action: string; Resource: string }[];
    expect(statement).toMatchObject({ Effect: 'Allow', Action: 'execute-api:Invoke' });
    expect(result.context).toMatchObject({ userId: 7, exp: expiresAt, sessionId: LIVE_SESSION });
    policy = { resource: statement!.Resource, context: result.context };
  });

  it('allows every route of the API, on both paths, with the Allow cached for one of them', () => {
    expect(bearer.length).toBeGreaterThan(1);
    for (const route of ALL_ROUTES) {
      for (const path of versionedPaths(route.path)) {
        expect(iamMatches(policy.resource, methodArn(route, path)), `${route.method} ${path}`).toBe(true);
      }
    }
  });

  it('covers that API and stage only', () => {
    const route = bearer[0]!;
    expect(iamMatches(policy.resource, methodArn(route, route.path, 'dev'))).toBe(false);
    expect(iamMatches(policy.resource, methodArn(route, route.path, 'prod', 'arn:aws:execute-api:eu-west-1:123456789012:other9'))).toBe(false);
  });
});

describe('the authorizer and sessions', () => {
  const decide = async (sessionId: string | undefined) => {
    const { token } = await issueToken(keys.tokenSigningKey, { userId: 7, tokenVersion: 3, sessionId }, now, {
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      lifetimeMs: config.TOKEN_TTL_MS,
    });
    const route = routes.find((candidate) => candidate.auth === 'bearer')!;
    return authorize(
      { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: methodArn(route, route.path) },
      { config, clock: { now: () => now }, tokenStanding, keys: async () => keys },
    );
  };

  it('refuses a token whose session has ended', async () => {
    await expect(decide('AAAAAAAAAAAAAAAAAAAAAA')).rejects.toThrow('Unauthorized');
  });

  it('accepts a token from before sessions (no sid) while its account is current, without a session in its context', async () => {
    const result = await decide(undefined);
    expect(result.context).not.toHaveProperty('sessionId');
  });
});

describe('a handler behind a cached Allow', () => {
  let handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body: string }>;

  beforeAll(async () => {
    // Logout checks the account as every Bearer route does: here a table whose profile is current.
    const currentProfile = { send: async () => ({ Item: { tokenVersion: 0 } }) } as unknown as Database['client'];
    const app = testContext({ database: () => ({ client: currentProfile, tableName: 't' }) });
    handler = (await import('../../functions/auth/logout')).handler.withContext(app);
  });

  /** A REST proxy event as API Gateway builds it: the authorizer context arrives as strings. */
  const event = (authorizer: Record<string, string> | undefined) =>
    ({
      httpMethod: 'POST',
      path: '/api/auth/logout',
      resource: '/api/auth/logout',
      headers: { Authorization: 'Bearer x.y.z' },
      body: null,
      isBase64Encoded: false,
      queryStringParameters: null,
      pathParameters: null,
      requestContext: { requestId: 'req-1', authorizer },
    }) as unknown as APIGatewayProxyEvent;

  const at = (offsetSeconds: number) => String(epochSeconds(new Date()) + offsetSeconds);

  it('refuses a token whose exp has passed, whatever the gateway cached', async () => {
    const response = await handler(event({ userId: '1', tokenVersion: '0', exp: at(-3600) }), {} as Context);
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ code: 401, error: 'UNAUTHORIZED' });
  });

  it('serves a token that is still valid', async () => {
    const response = await handler(event({ userId: '1', tokenVersion: '0', exp: at(3600) }), {} as Context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ code: 0 });
  });

  it('refuses a request without an authorizer context', async () => {
    const response = await handler(event(undefined), {} as Context);
    expect(response.statusCode).toBe(401);
  });
});
