import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * POST /api/realtime/ticket: the cases every route needs (written by npm run new:endpoint), through the local
 * server over HTTP against DynamoDB Local. Add the behaviour's own cases here.
 */
let api: LocalApi;
let owner: Account;
let stranger: Account;

beforeAll(async () => {
  api = await startLocalApi();
  [owner, stranger] = await Promise.all([newAccount(api, 'owner'), newAccount(api, 'stranger')]);
});
afterAll(() => api?.close());

describe('POST /api/realtime/ticket', () => {
  it('answers 200', async () => {
    const response = await api.request('POST', '/api/realtime/ticket', { token: owner.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ url: expect.stringMatching(/^ws:\/\/localhost:\d+\/realtime\?ticket=v1\./), ticket: expect.any(String), expiresAt: expect.any(String) });
    // Each ticket is new, and each is the caller's (the other tests of the channel: realtime-channel.test.ts).
    const again = await api.request('POST', '/api/realtime/ticket', { token: owner.token });
    expect(again.body.ticket).not.toBe(response.body.ticket);
    expect(response.body.ticket).toMatch(new RegExp(`^v1\\.${owner.userId}\\.`));
    const strangers = await api.request('POST', '/api/realtime/ticket', { token: stranger.token });
    expect(strangers.body.ticket).toMatch(new RegExp(`^v1\\.${stranger.userId}\\.`));
  });

  it('refuses a request without credentials', async () => {
    const response = await api.request('POST', '/api/realtime/ticket');
    expect(response.status).toBe(401);
  });
});
