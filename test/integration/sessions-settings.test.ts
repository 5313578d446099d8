import { describe, expect, it } from 'vitest';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import { expectError, sessionHelpers } from '../support/sessions';

/**
 * Sessions under other settings than the defaults (issue 13). Each test runs its own local server,
 * one after the other: a second server in the same process replaces the first one's settings.
 */
describe('sessions under other settings', () => {
  it('end SESSION_MAX_DAYS after sign-in however often they are refreshed, and no access token outlives them', async () => {
    const api = await startLocalApi({ SESSION_MAX_DAYS: '2', SESSION_IDLE_DAYS: '1', CODE_RESEND_SECONDS: '1' });
    try {
      const { signIn, refresh } = sessionHelpers(api);
      const signed = await signIn(uniqueEmail('absolute'));
      api.clock.advance(0.9 * 86_400);
      const first = await refresh(signed.refreshToken);
      expect(first.body.expiresIn).toBe(86_400);
      api.clock.advance(0.9 * 86_400);
      const second = await refresh(first.body.refreshToken);
      expect(second.status).toBe(200);
      // 1.8 days in: the session ends at day 2, and so does this access token.
      expect(second.body.expiresIn).toBeLessThanOrEqual(0.2 * 86_400);
      expect(second.body.expiresIn).toBeGreaterThan(0.19 * 86_400);
      api.clock.advance(0.3 * 86_400);
      expectError(await refresh(second.body.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED');
    } finally {
      await api.close();
    }
  });

  it('end their access tokens at the authorizer once its cache is past (here: no cache)', async () => {
    const api = await startLocalApi({ AUTHORIZER_CACHE_SECONDS: '0', CODE_RESEND_SECONDS: '1' });
    try {
      const signed = await sessionHelpers(api).signIn(uniqueEmail('authorizer'));
      // Logout without a body reads no table: only the authorizer stands between it and the token.
      expect((await api.request('POST', '/api/auth/logout', { token: signed.token })).status).toBe(200);
      await api.request('POST', '/api/auth/logout', { token: signed.token, body: { refreshToken: signed.refreshToken } });
      expectError(await api.request('POST', '/api/auth/logout', { token: signed.token }), 401, 'UNAUTHORIZED');
    } finally {
      await api.close();
    }
  });

  it('answer a spent refresh token as reuse at once when REFRESH_GRACE_SECONDS is 0', async () => {
    const api = await startLocalApi({ REFRESH_GRACE_SECONDS: '0', CODE_RESEND_SECONDS: '1' });
    try {
      const { signIn, refresh } = sessionHelpers(api);
      const signed = await signIn(uniqueEmail('no-grace'));
      const first = await refresh(signed.refreshToken);
      expect(first.status).toBe(200);
      expectError(await refresh(signed.refreshToken), 401, 'SESSION_ENDED');
      expectError(await refresh(first.body.refreshToken), 401, 'SESSION_ENDED');
    } finally {
      await api.close();
    }
  });
});
