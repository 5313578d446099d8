import { describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { appleSignIn, googleSignIn, useSocialApi } from '../support/social';

/** GET /api/users/me/identities (issue 38): the caller's linked identities, against the stand-ins. */
let api: LocalApi;
let standIns: ProviderStandIns;
useSocialApi((servers) => ({ api, standIns } = servers));

describe('GET /api/users/me/identities', () => {
  it("answers 200 with the caller's own identities only, Apple's name with Apple's", async () => {
    const stamp = Date.now().toString(36);
    const email = `list-${stamp}@gmail.com`;
    const google = await googleSignIn(api, standIns, { sub: `g-${stamp}`, email });
    await appleSignIn(api, standIns, { sub: `a-${stamp}`, email, isPrivateEmail: false }, { givenName: 'Ann', familyName: 'Lee' });
    const response = await api.request('GET', '/api/users/me/identities', { token: google.body.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual([
      { provider: 'apple', linkedAt: expect.any(String), email, givenName: 'Ann', familyName: 'Lee' },
      { provider: 'google', linkedAt: expect.any(String), email, givenName: null, familyName: null },
    ]);
    const stranger = await signIn(api, uniqueEmail('stranger'));
    expect((await api.request('GET', '/api/users/me/identities', { token: stranger.token })).body).toEqual([]);
  });

  it('refuses a request without credentials', async () => {
    expect((await api.request('GET', '/api/users/me/identities')).status).toBe(401);
  });
});
