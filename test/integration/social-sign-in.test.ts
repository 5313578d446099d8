import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { changeStanding, readProfileItem } from '../../shared/db/account-standing-repository';
import { keys } from '../../shared/db/keys';
import { startLocalApi, signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { SOCIAL, appleSignIn, googleSignIn, socialNonce, startSocialApi, wechatSignIn } from '../support/social';

/**
 * Sign in with Apple, Google and WeChat through the local server, against the provider stand-ins
 * (infra/local/provider-stand-ins.ts) and DynamoDB Local: accounts made and found, the nonce's
 * single use, linking only where the provider is authoritative, races, Apple's name and token,
 * WeChat's errors in a 200. The tokens' verification in depth: social-providers.test.ts.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
let close: () => Promise<void>;
const logs: string[] = [];
let counter = 0;
const sub = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}`;

beforeAll(async () => {
  ({ api, standIns, close } = await startSocialApi({ LOG_LEVEL: 'info' }, { logSink: (line) => logs.push(line) }));
});
afterAll(() => close());

/** The items of the table whose PK starts with `prefix`. */
async function itemsStartingWith(prefix: string): Promise<Record<string, unknown>[]> {
  const result = await api.db.client.send(new ScanCommand({ TableName: api.db.tableName, FilterExpression: 'begins_with(PK, :p)', ExpressionAttributeValues: { ':p': prefix } }));
  return result.Items ?? [];
}

async function identitiesOf(userId: number): Promise<Record<string, unknown>[]> {
  const result = await api.db.client.send(
    new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :s)', ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':s': 'SOCIAL#' } }),
  );
  return result.Items ?? [];
}

describe('sign in with Google', () => {
  it('makes an account with the verified e-mail the first time, and signs in to it afterwards', async () => {
    const email = `${sub('g')}@gmail.com`;
    const person = sub('google');
    const first = await googleSignIn(api, standIns, { sub: person, email });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 0, isNewUser: true, email, phone: null });
    expect(first.body.token).toBeTruthy();
    expect(first.body.refreshToken).toBeTruthy();
    const me = await api.request('GET', '/api/users/me', { token: first.body.token });
    expect(me.body).toMatchObject({ userId: first.body.userId, email });

    const again = await googleSignIn(api, standIns, { sub: person, email });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ userId: first.body.userId, isNewUser: false });
    // The refresh token of a social sign-in's session refreshes like any other.
    const refreshed = await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: again.body.refreshToken } });
    expect(refreshed.status).toBe(200);
  });

  it('an unverified e-mail is not taken: the account starts without one', async () => {
    const answer = await googleSignIn(api, standIns, { sub: sub('google'), email: `${sub('u')}@gmail.com`, emailVerified: false });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ isNewUser: true, email: null });
  });

  it('an unverified e-mail that an account holds: 409 ACCOUNT_EXISTS_LINK_REQUIRED, no second account, nothing stored', async () => {
    const email = `${sub('owner')}@gmail.com`;
    const owner = await signIn(api, email);
    const person = sub('google');
    const before = await itemsStartingWith('USER#');
    const answer = await googleSignIn(api, standIns, { sub: person, email, emailVerified: false });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ code: 409, message: expect.any(String), error: 'ACCOUNT_EXISTS_LINK_REQUIRED' });
    expect(await itemsStartingWith(`SOCIAL#google#${person}`)).toEqual([]);
    expect(await identitiesOf(owner.userId)).toEqual([]);
    expect((await itemsStartingWith('USER#')).length).toBe(before.length);
    // Once verified (a gmail.com address: Google speaks for it), the same identity joins the account.
    const verified = await googleSignIn(api, standIns, { sub: person, email });
    expect(verified.body).toMatchObject({ userId: owner.userId, isNewUser: false });
  });

  it('a nonce is usable once; a mismatched one, or its hash sent in its place, is refused, the reason only in the log', async () => {
    const person = sub('google');
    const { nonce, hash } = await socialNonce(api);
    const first = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: hash });
    expect((await api.request('POST', '/api/auth/google', { body: { idToken: first.idToken, nonce } })).status).toBe(200);
    const replayed = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: hash });
    const replay = await api.request('POST', '/api/auth/google', { body: { idToken: replayed.idToken, nonce } });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ code: 401, message: 'The sign-in could not be verified.', error: 'SOCIAL_CREDENTIAL_INVALID' });
    expect(logs.some((line) => line.includes('social sign-in refused') && line.includes('nonce already used'))).toBe(true);

    const other = await socialNonce(api);
    const mismatched = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: hash });
    expect((await api.request('POST', '/api/auth/google', { body: { idToken: mismatched.idToken, nonce: other.nonce } })).status).toBe(401);
    const hashSent = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: other.hash });
    expect((await api.request('POST', '/api/auth/google', { body: { idToken: hashSent.idToken, nonce: other.hash } })).status).toBe(401);
    expect(logs.some((line) => line.includes('its hash was sent instead of the nonce'))).toBe(true);
  });

  it('refuses an expired token and one for another app, and makes no account', async () => {
    const person = sub('google');
    const { nonce, hash } = await socialNonce(api);
    const expired = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: hash, lifetimeSeconds: -120 });
    expect((await api.request('POST', '/api/auth/google', { body: { idToken: expired.idToken, nonce } })).status).toBe(401);
    const otherApp = await standIns.google.issue({ sub: person, clientId: 'another-app.apps.googleusercontent.com', nonce: hash });
    expect((await api.request('POST', '/api/auth/google', { body: { idToken: otherApp.idToken, nonce } })).status).toBe(401);
    expect(await itemsStartingWith(`SOCIAL#google#${person}`)).toEqual([]);
  });

  it('a Google address neither gmail.com nor of its Workspace domain, matching an account: 409 and nothing created', async () => {
    const email = uniqueEmail('taken');
    const owner = await signIn(api, email);
    const person = sub('google');
    const answer = await googleSignIn(api, standIns, { sub: person, email });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('ACCOUNT_EXISTS_LINK_REQUIRED');
    expect(await itemsStartingWith(`SOCIAL#google#${person}`)).toEqual([]);
    expect(await identitiesOf(owner.userId)).toEqual([]);
    // Its Workspace domain (hd) speaks for the address: the identity joins the account.
    const workspace = await googleSignIn(api, standIns, { sub: person, email, hd: 'example.com' });
    expect(workspace.status).toBe(200);
    expect(workspace.body).toMatchObject({ userId: owner.userId, isNewUser: false });
  });

  it('a verified gmail.com address joins the account that has it', async () => {
    const email = `${sub('owner')}@gmail.com`;
    const owner = await signIn(api, email);
    const answer = await googleSignIn(api, standIns, { sub: sub('google'), email });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ userId: owner.userId, isNewUser: false, email });
    expect(await identitiesOf(owner.userId)).toHaveLength(1);
  });

  it('two parallel first sign-ins of one identity make one account', async () => {
    const person = sub('google');
    const email = `${sub('race')}@gmail.com`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => googleSignIn(api, standIns, { sub: person, email })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((answer) => answer.body.userId)).size).toBe(1);
    expect(answers.filter((answer) => answer.body.isNewUser)).toHaveLength(1);
    expect(await itemsStartingWith(`SOCIAL#google#${person}`)).toHaveLength(1);
  });
});

describe('sign in with Apple', () => {
  it('keeps the name of the first authorization across a sign-in without it, and Apple’s refresh token sealed', async () => {
    const person = sub('apple');
    const first = await appleSignIn(api, standIns, { sub: person, email: `${person}@privaterelay.appleid.com`, isPrivateEmail: true }, { givenName: 'Mei', familyName: 'Lin' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ isNewUser: true, email: `${person}@privaterelay.appleid.com` });
    const again = await appleSignIn(api, standIns, { sub: person, email: `${person}@privaterelay.appleid.com`, isPrivateEmail: true });
    expect(again.body).toMatchObject({ userId: first.body.userId, isNewUser: false });
    const [identity] = await identitiesOf(first.body.userId);
    expect(identity).toMatchObject({ provider: 'apple', givenName: 'Mei', familyName: 'Lin', clientId: SOCIAL.apple });
    // The newest of Apple's refresh tokens, sealed: none of the live ones appears as such.
    const live = [...standIns.apple.liveRefreshTokens.keys()];
    expect(live.length).toBeGreaterThan(0);
    expect(live.some((token) => JSON.stringify(identity).includes(token))).toBe(false);
    expect(String(identity!.appleRefreshToken)).toMatch(/^v1\./);
  });

  it('links by a verified address that is not a relay one; a private relay address matching an account is 409', async () => {
    const email = uniqueEmail('apple-owner');
    const owner = await signIn(api, email);
    const linked = await appleSignIn(api, standIns, { sub: sub('apple'), email, isPrivateEmail: false });
    expect(linked.body).toMatchObject({ userId: owner.userId, isNewUser: false });

    const relayOwner = await signIn(api, `${sub('relay')}@privaterelay.appleid.com`);
    const relay = await appleSignIn(api, standIns, { sub: sub('apple'), email: relayOwner.email!, isPrivateEmail: true });
    expect(relay.status).toBe(409);
    expect(relay.body.error).toBe('ACCOUNT_EXISTS_LINK_REQUIRED');
  });

  it('an unverified e-mail that an account holds, as the string "false" or the boolean: 409, no second account', async () => {
    const email = uniqueEmail('apple-unverified');
    const owner = await signIn(api, email);
    const before = await itemsStartingWith('USER#');
    for (const booleanFlags of [false, true]) {
      const person = sub('apple');
      const answer = await appleSignIn(api, standIns, { sub: person, email, emailVerified: false, isPrivateEmail: false, booleanFlags });
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('ACCOUNT_EXISTS_LINK_REQUIRED');
      expect(await itemsStartingWith(`SOCIAL#apple#${person}`)).toEqual([]);
    }
    expect(await identitiesOf(owner.userId)).toEqual([]);
    expect((await itemsStartingWith('USER#')).length).toBe(before.length);
  });

  it('an unverified e-mail no account holds: a new account without it (string and boolean); a verified boolean one is taken', async () => {
    for (const booleanFlags of [false, true]) {
      const email = uniqueEmail('apple-nobody');
      const answer = await appleSignIn(api, standIns, { sub: sub('apple'), email, emailVerified: false, isPrivateEmail: false, booleanFlags });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ isNewUser: true, email: null });
      const [identity] = await identitiesOf(answer.body.userId);
      expect(identity?.email ?? null).toBeNull();
    }
    const email = uniqueEmail('apple-boolean');
    const owner = await signIn(api, email);
    const linked = await appleSignIn(api, standIns, { sub: sub('apple'), email, emailVerified: true, isPrivateEmail: false, booleanFlags: true });
    expect(linked.body).toMatchObject({ userId: owner.userId, isNewUser: false });
  });

  it('refuses an authorization code used twice', async () => {
    const person = sub('apple');
    const { nonce, hash } = await socialNonce(api);
    const issued = await standIns.apple.issue({ sub: person, clientId: SOCIAL.apple, nonce: hash });
    expect((await api.request('POST', '/api/auth/apple', { body: { ...issued, nonce } })).status).toBe(200);
    const second = await socialNonce(api);
    const reissued = await standIns.apple.issue({ sub: person, clientId: SOCIAL.apple, nonce: second.hash });
    const reused = await api.request('POST', '/api/auth/apple', { body: { identityToken: reissued.identityToken, authorizationCode: issued.authorizationCode, nonce: second.nonce } });
    expect(reused.status).toBe(401);
  });
});

describe('sign in with WeChat', () => {
  it('one unionid from two app ids is one account, without e-mail or phone', async () => {
    const person = sub('wechat');
    const first = await wechatSignIn(api, standIns, person, SOCIAL.wechat);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ isNewUser: true, email: null, phone: null });
    const mini = await wechatSignIn(api, standIns, person, SOCIAL.wechatMini);
    expect(mini.body).toMatchObject({ userId: first.body.userId, isNewUser: false });
  });

  it('40163 (code already used) and 40029 in a 200 answer 401, and no account is made', async () => {
    const person = sub('wechat');
    const { code } = standIns.wechat.issue({ appId: SOCIAL.wechat, subject: person });
    // Someone spent the code first.
    await fetch(`${standIns.wechatUrl}/sns/oauth2/access_token?appid=${SOCIAL.wechat}&secret=secret-one&code=${code}&grant_type=authorization_code`);
    const used = await api.request('POST', '/api/auth/wechat', { body: { code } });
    expect(used.status).toBe(401);
    expect(used.body.error).toBe('SOCIAL_CREDENTIAL_INVALID');
    expect((await api.request('POST', '/api/auth/wechat', { body: { code: 'made-up' } })).status).toBe(401);
    expect(logs.some((line) => line.includes('40163'))).toBe(true);
    expect((await itemsStartingWith('SOCIAL#wechat#')).some((item) => String(item.PK).includes(standIns.wechat.openidOf(SOCIAL.wechat, person)))).toBe(false);
  });

  it('an app id that is not configured is refused', async () => {
    const { code } = standIns.wechat.issue({ appId: SOCIAL.wechat, subject: sub('wechat') });
    expect((await api.request('POST', '/api/auth/wechat', { body: { code, appId: 'wx9999999999999999' } })).status).toBe(401);
  });
});

describe('a disabled account', () => {
  const disable = async (userId: number) => changeStanding(api.db, (await readProfileItem(api.db, userId))!, { disable: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });

  it('is refused 403 ACCOUNT_DISABLED by each provider once the credential is proven, and links nothing to it', async () => {
    // One account with the three identities (Apple and Google linked by their authoritative e-mail).
    const email = `${sub('disabled')}@gmail.com`;
    const person = { google: sub('google'), apple: sub('apple'), wechat: sub('wechat') };
    const made = await wechatSignIn(api, standIns, person.wechat);
    expect(made.body.isNewUser).toBe(true);
    const held = await signIn(api, email);
    expect(held.userId).not.toBe(made.body.userId);
    const google = await googleSignIn(api, standIns, { sub: person.google, email });
    const apple = await appleSignIn(api, standIns, { sub: person.apple, email, isPrivateEmail: false });
    expect([google.body.userId, apple.body.userId]).toEqual([held.userId, held.userId]);

    await disable(held.userId);
    await disable(made.body.userId);
    const refused = (answer: { status: number; body: any }) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect(answer.body).toMatchObject({ code: 403, error: 'ACCOUNT_DISABLED' });
    };
    refused(await googleSignIn(api, standIns, { sub: person.google, email }));
    refused(await appleSignIn(api, standIns, { sub: person.apple, email, isPrivateEmail: false }));
    refused(await wechatSignIn(api, standIns, person.wechat));
    // A new identity whose e-mail is the disabled account's would be linked to it: refused, nothing linked.
    const newcomer = sub('google');
    refused(await googleSignIn(api, standIns, { sub: newcomer, email }));
    expect(await itemsStartingWith(`SOCIAL#google#${newcomer}`)).toEqual([]);
    expect((await identitiesOf(held.userId)).map((item) => item.SK).sort()).toEqual([`SOCIAL#apple#${person.apple}`, `SOCIAL#google#${person.google}`]);
    // A forged credential learns nothing about the account: 401 as for anyone.
    const { nonce } = await socialNonce(api);
    const forged = await standIns.google.issue({ sub: person.google, clientId: 'another.apps.googleusercontent.com', nonce: 'x' });
    expect((await api.request('POST', '/api/auth/google', { body: { idToken: forged.idToken, nonce } })).status).toBe(401);

    await changeStanding(api.db, (await readProfileItem(api.db, held.userId))!, { enable: true });
    expect((await googleSignIn(api, standIns, { sub: person.google, email })).body).toMatchObject({ userId: held.userId, isNewUser: false });
  });
});

describe('deleting the account', () => {
  it('removes every identity item, so the identity signs up anew', async () => {
    const person = sub('google');
    const first = await googleSignIn(api, standIns, { sub: person, email: `${person}@gmail.com` });
    const apple = sub('apple');
    expect((await appleSignIn(api, standIns, { sub: apple, email: `${person}@gmail.com`, isPrivateEmail: false })).body.userId).toBe(first.body.userId);
    expect(await identitiesOf(first.body.userId)).toHaveLength(2);
    expect((await api.request('DELETE', '/api/users/me', { token: first.body.token })).status).toBe(200);
    expect(await identitiesOf(first.body.userId)).toEqual([]);
    expect(await itemsStartingWith(`SOCIAL#google#${person}`)).toEqual([]);
    expect(await itemsStartingWith(`SOCIAL#apple#${apple}`)).toEqual([]);
    const again = await googleSignIn(api, standIns, { sub: person, email: `${person}@gmail.com` });
    expect(again.body.isNewUser).toBe(true);
    expect(again.body.userId).not.toBe(first.body.userId);
  });
});

describe('providers not configured or unreachable', () => {
  it('a provider without client ids answers 404 PROVIDER_NOT_CONFIGURED', async () => {
    const plain = await startLocalApi();
    try {
      for (const [path, body] of [
        ['/api/auth/apple', { identityToken: 'x', authorizationCode: 'y', nonce: 'z' }],
        ['/api/auth/google', { idToken: 'x', nonce: 'z' }],
        ['/api/auth/wechat', { code: 'x' }],
      ] as const) {
        const answer = await plain.request('POST', path, { body });
        expect(answer.status, path).toBe(404);
        expect(answer.body.error).toBe('PROVIDER_NOT_CONFIGURED');
      }
    } finally {
      await plain.close();
    }
  });

  it('Google’s keys unreachable and none cached: 503 PROVIDER_UNAVAILABLE with Retry-After, no account', async () => {
    const down = await startLocalApi({
      GOOGLE_CLIENT_IDS: SOCIAL.google,
      GOOGLE_JWKS_URL: `${standIns.url}/run-503/google/oauth2/v3/certs`,
    });
    standIns.google.keys.unreachable = true;
    try {
      const { nonce, hash } = await socialNonce(down);
      const { idToken } = await standIns.google.issue({ sub: sub('down'), clientId: SOCIAL.google, nonce: hash });
      const answer = await down.request('POST', '/api/auth/google', { body: { idToken, nonce } });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toBe('PROVIDER_UNAVAILABLE');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      standIns.google.keys.unreachable = false;
      await down.close();
    }
  });
});
