import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * GET /api/devices/{sn}: the cases every route needs (written by npm run new:endpoint), through the local
 * server over HTTP against DynamoDB Local. Add the behaviour's own cases here.
 */
let api: LocalApi;
let owner: Account;
let stranger: Account;

let serial = 0;
const device = (sn: string) => ({ sn, mac: '00:1A:2B:3C:4D:5E', productModel: 'Captions Glass 2' });

/** A device bound to `account` through the API. */
async function itemOf(account: Account): Promise<{ sn: string }> {
  const sn = `GET-${Date.now().toString(36)}-${serial++}`;
  expect((await api.request('POST', '/api/devices', { token: account.token, body: device(sn) })).status).toBe(200);
  return { sn };
}

beforeAll(async () => {
  api = await startLocalApi();
  [owner, stranger] = await Promise.all([newAccount(api, 'owner'), newAccount(api, 'stranger')]);
});
afterAll(() => api?.close());

describe('GET /api/devices/{sn}', () => {
  it('answers 200 for the caller\'s own', async () => {
    const item = await itemOf(owner);
    const response = await api.request('GET', `/api/devices/${item.sn}`, { token: owner.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ ...device(item.sn), userId: owner.userId, createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/) });
    // As the list shows it.
    expect((await api.request('GET', '/api/devices', { token: owner.token })).body).toContainEqual(response.body);
  });

  it('answers 400 naming path.sn for a malformed sn', async () => {
    const response = await api.request('GET', `/api/devices/not%20an%20id`, { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.sn' })] });
  });

  it('refuses a request without credentials', async () => {
    const response = await api.request('GET', '/api/devices/A1');
    expect(response.status).toBe(401);
  });

  it("answers 404 for an unknown sn and for another account's, which stays as it was", async () => {
    expect((await api.request('GET', '/api/devices/A1', { token: owner.token })).status).toBe(404);
    // Unbound: gone for its owner too.
    const unbound = await itemOf(owner);
    expect((await api.request('DELETE', `/api/devices/${unbound.sn}`, { token: owner.token })).status).toBe(200);
    expect((await api.request('GET', `/api/devices/${unbound.sn}`, { token: owner.token })).status).toBe(404);
    const item = await itemOf(owner);
    const response = await api.request('GET', `/api/devices/${item.sn}`, { token: stranger.token });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    expect((await api.request('GET', `/api/devices/${item.sn}`, { token: owner.token })).status).toBe(200);
  });
});
