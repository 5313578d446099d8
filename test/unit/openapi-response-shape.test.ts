import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../shared/config';
import { createContext } from '../../shared/context';
import type { ProxyHandler } from '../../shared/http/endpoint';
import { routeId, routes } from '../../shared/routes';

/**
 * The response schemas shape what handlers answer: through the real handler modules and wrapper,
 * with the services replaced by ones that return more than a client may see.
 */
const stored = {
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
const currentUser = vi.fn(async (): Promise<unknown> => stored);
vi.mock('../../shared/identity/account-service', () => ({ currentUser: () => currentUser() }));
vi.mock('../../shared/devices/device-service', () => ({
  list: async () => ({
    items: [{ sn: 'CAP2-1', userId: 7, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2', createdAt: '2026-01-29T10:30:00Z', createdAtMs: '2026-01-29T10:30:00.123Z', PK: 'USER#7' }],
    nextCursor: 'abc',
  }),
}));

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; headers?: Record<string, unknown>; body: string }>;
const app = createContext({ config: parseConfig({ TABLE_NAME: 'unit-tests', LOG_LEVEL: 'silent' }) });
const load = async (path: string) => ((await import(path)) as { handler: ProxyHandler }).handler;
const serving = async (path: string) => (await load(path)).withContext(app) as Handler;

async function call(handler: Handler, method: string) {
  const event = {
    httpMethod: method,
    headers: {},
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'unit', authorizer: { userId: '7', tokenVersion: '3', exp: String(Math.floor(Date.now() / 1000) + 3600) } },
  } as unknown as APIGatewayProxyEvent;
  const result = await handler(event, { awsRequestId: 'unit' } as Context);
  return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) };
}

describe('response schemas', () => {
  it('answers only the fields of the schema: no password hash or token version from the stored user', async () => {
    const response = await call(await serving('../../functions/users/get-me'), 'GET');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      userId: 7,
      email: 'alice@example.com',
      phone: null,
      timeZone: 'Asia/Shanghai',
      locale: null,
      createdAt: '2026-01-29T10:30:00Z',
      updatedAt: '2026-01-30T08:00:00Z',
    });
  });

  it('shapes the body of a Reply and keeps its headers', async () => {
    const response = await call(await serving('../../functions/devices/list'), 'GET');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ sn: 'CAP2-1', userId: 7, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2', createdAt: '2026-01-29T10:30:00Z' }]);
    expect(response.headers['X-Next-Cursor']).toBe('abc');
  });

  it('answers a result that breaks its schema with a bare 500, never the result', async () => {
    currentUser.mockResolvedValueOnce({ ...stored, userId: 'seven' });
    const response = await call(await serving('../../functions/users/get-me'), 'GET');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: 500, message: 'Internal server error.', error: 'INTERNAL', requestId: 'unit' });
  });

  it('are declared by every handler, with the docs the reference needs', async () => {
    const missing: string[] = [];
    for (const route of routes) {
      const handler = await load(`../../${route.entry}`);
      if (!handler.definition?.response || !handler.definition.docs?.summary) missing.push(routeId(route));
    }
    expect(missing).toEqual([]);
  });
});
