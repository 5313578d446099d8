import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

describe('local server', () => {
  it('answers health at /api and /api/v1', async () => {
    for (const path of ['/api/health', '/api/v1/health']) {
      const response = await api.request('GET', path);
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('ok');
    }
  });

  it('signs in with an e-mail code and reads the current user', async () => {
    const email = uniqueEmail();
    const session = await signIn(api, email);
    const me = await api.request('GET', '/api/users/me', { token: session.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ userId: session.userId, email, phone: null });
  });
});
