import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { database } from '../../shared/db/client';
import { recordOfItem } from '../../shared/db/transcriptions-repository';
import type { ProxyHandler } from '../../shared/http/endpoint';
import { publicUser } from '../../shared/identity/account-service';
import { routeId, routes } from '../../shared/routes';
import type * as UsersRepository from '../../shared/db/users-repository';
import { testContext } from '../support/unit-context';

/**
 * Answers are built by typed mappers from stored items (shared/http/endpoint.ts `response`):
 * nothing trims them on the way out, so the mappers must copy the listed fields only, in the
 * schema's order. Here with stored items that carry what a client may never see; every route's
 * real answer is held to the OpenAPI document by test/integration/response-contract.test.ts.
 */
const stored = {
  PK: 'USER#7',
  SK: 'PROFILE',
  userId: 7,
  email: 'alice@example.com',
  phone: null,
  passwordHash: 'scrypt$17$8$1$c2FsdA$aGFzaA',
  tokenVersion: 3,
  timeZone: 'Asia/Shanghai',
  locale: null,
  'session#p3Xq9vK2T0a8YbWcLm4N1g': 3,
  createdAt: '2026-01-29T10:30:00Z',
  updatedAt: '2026-01-30T08:00:00Z',
};
const USER_FIELDS = ['userId', 'phone', 'email', 'timeZone', 'locale', 'createdAt', 'updatedAt'];

vi.mock('../../shared/db/users-repository', async (original) => ({
  ...(await original<typeof UsersRepository>()),
  findUserForToken: async () => stored,
}));

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; headers?: Record<string, unknown>; body: string }>;
// The repository is mocked: the client is built but never sent a request.
const app = testContext({ database });
const load = async (path: string) => ((await import(path)) as { handler: ProxyHandler }).handler.withContext(app) as unknown as Handler;

async function call(handler: Handler, method: string) {
  const event = {
    httpMethod: method,
    headers: {},
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'unit', authorizer: { userId: '7', tokenVersion: '3', exp: String(Math.floor(Date.now() / 1000) + 3600) } },
  } as unknown as APIGatewayProxyEvent;
  const result = await handler(event, { awsRequestId: 'unit' } as Context);
  return { status: result.statusCode, text: result.body };
}

describe('response mappers', () => {
  it('GET /api/users/me answers the user’s fields of the stored profile, in the schema’s order: no hash, version or session marker', async () => {
    const response = await call(await load('../../functions/users/get-me'), 'GET');
    expect(response.status).toBe(200);
    expect(response.text).toBe(
      '{"userId":7,"phone":null,"email":"alice@example.com","timeZone":"Asia/Shanghai","locale":null,"createdAt":"2026-01-29T10:30:00Z","updatedAt":"2026-01-30T08:00:00Z"}',
    );
  });

  it('publicUser copies only the user’s fields, whatever the stored item holds', () => {
    expect(Object.keys(publicUser(stored as never))).toEqual(USER_FIELDS);
  });

  it('recordOfItem leaves a stored record’s keys and bookkeeping out, fills what older records lack, and answers its revision (edits + 1)', () => {
    const record = {
      PK: 'USER#7',
      SK: 'TRX#2026-01-29T10:30:00.123Z#0000000000000003',
      transcriptionRecordId: 3,
      userId: 7,
      recordTitle: 'Standup',
      text: 'Hello',
      textLength: 5,
      language: 'en-US',
      durationSeconds: 95,
      createdAt: '2026-01-29T10:30:00Z',
      createdAtMs: '2026-01-29T10:30:00.123Z',
      revision: 4,
      usageDate: '2026-01-29',
      changeSeq: 12,
    };
    expect(recordOfItem(record)).toEqual({
      transcriptionRecordId: 3,
      userId: 7,
      recordTitle: 'Standup',
      text: 'Hello',
      textLength: 5,
      language: 'en-US',
      durationSeconds: 95,
      startedAt: '2026-01-29T10:30:00Z',
      createdAt: '2026-01-29T10:30:00Z',
      updatedAt: null,
      clientRecordId: null,
      revision: 5,
    });
  });

  it('a response schema and docs are declared by every handler', async () => {
    const missing: string[] = [];
    for (const route of routes) {
      const { handler } = (await import(`../../${route.entry}`)) as { handler: ProxyHandler };
      if (!handler.definition?.response || !handler.definition.docs?.summary) missing.push(routeId(route));
    }
    expect(missing).toEqual([]);
  });
});
