import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';

/**
 * Test files may start more than one local server, one after the other (say, with other settings).
 * Each has its own table and root secret; the authorizer must follow the current one.
 */
describe('a second local server in the same process', () => {
  it('accepts its own tokens and refuses the first server\'s', async () => {
    const first = await startLocalApi();
    const firstSession = await signIn(first, uniqueEmail('first'));
    expect((await first.request('GET', '/api/users/me', { token: firstSession.token })).status).toBe(200);
    await first.close();

    const second = await startLocalApi({ TOKEN_TTL_MS: '3600000' });
    try {
      const session = await signIn(second, uniqueEmail('second'));
      // Its settings apply: tokens live TOKEN_TTL_MS.
      const claims = decodeJwt(session.token);
      expect(claims.exp! - claims.iat!).toBe(3600);
      const me = await second.request('GET', '/api/users/me', { token: session.token });
      expect(me.status, JSON.stringify(me.body)).toBe(200);
      expect(me.body.userId).toBe(session.userId);
      // Signed with the first server's secret: worthless here.
      expect((await second.request('GET', '/api/users/me', { token: firstSession.token })).status).toBe(401);
    } finally {
      await second.close();
    }
  });
});
