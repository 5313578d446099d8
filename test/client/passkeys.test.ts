import { describe, expect, it } from 'vitest';
import { ApiError, memoryStorage } from '../../client/src/index';
import type { CreatePasskey, GetPasskey } from '../../client/src/index';
import { STORAGE_KEYS } from '../../client/src/storage';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import type { AssertionOverrides, CeremonyOverrides } from '../support/software-authenticator';
import { signedInClient, testClient, useServersBehindFaultProxy } from './support';

/**
 * The client's passkey methods (issue 30) against the real local server and DynamoDB Local, with
 * the software authenticator standing in for the platform's ceremony (what an app passes as
 * `navigator.credentials` on the web or a passkey module in React Native), through a proxy that
 * counts what the client sends.
 */
// The local server's default WEBAUTHN_ORIGINS (RP ID localhost).
const ORIGIN = 'http://localhost:8080';
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers));

const addPasskey = route('POST', '/api/auth/passkeys');
const refresh = route('POST', '/api/auth/token/refresh');

/** The platform's create and get, as an app passes them: options in, credential JSON out. */
const creates = (authenticator: SoftwareAuthenticator, overrides: CeremonyOverrides = {}): CreatePasskey => async (options) => authenticator.create(options, overrides);
const gets = (authenticator: SoftwareAuthenticator, overrides: AssertionOverrides = {}): GetPasskey => async (options) => authenticator.get(options, overrides);

describe('client passkeys', () => {
  it('adds, lists, renames, signs in (the session stored, data calls working), removes, then the sign-in is refused', async () => {
    const { client, session } = await signedInClient(api, proxy.url);
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, synced: true });

    const added = await client.auth.passkeys.add(creates(authenticator), { name: 'My phone' });
    expect(added).toEqual({ passkeyId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), name: 'My phone', createdAt: expect.any(String), lastUsedAt: null, backedUp: true, transports: ['internal', 'hybrid'] });
    expect(await client.auth.passkeys.list()).toEqual([added]);
    expect(await client.auth.passkeys.rename(added.passkeyId, 'iPhone 15')).toEqual({ ...added, name: 'iPhone 15' });
    expect((await client.auth.passkeys.list()).map((passkey) => passkey.name)).toEqual(['iPhone 15']);

    // A new install: nobody signed in, the passkey is on the phone.
    const storage = memoryStorage();
    const phone = testClient(proxy.url, { storage });
    expect(await phone.auth.isSignedIn()).toBe(false);
    // As a React Native passkey module may answer: without `type`, which is always public-key.
    const withoutType: GetPasskey = async (options) => {
      const { type: _type, ...credential } = authenticator.get(options);
      return credential;
    };
    const signedIn = await phone.auth.signInWithPasskey(withoutType, { clientName: 'Pixel 8 · Captions' });
    expect(signedIn).toMatchObject({ code: 0, userId: session.userId, email: session.email, token: expect.any(String), refreshToken: expect.any(String) });
    expect(JSON.parse((await storage.get(STORAGE_KEYS.session))!)).toMatchObject({ token: signedIn.token, refreshToken: signedIn.refreshToken, userId: session.userId });
    expect(await phone.auth.isSignedIn()).toBe(true);
    expect((await phone.users.me()).userId).toBe(session.userId);
    const record = await phone.transcriptions.create({ recordTitle: 'Signed in with a passkey', text: 'Hello', language: 'en-US', durationSeconds: 7 });
    expect(record.recordTitle).toBe('Signed in with a passkey');
    const { data: sessions } = await phone.api.GET('/auth/sessions');
    expect(sessions?.find((listed) => listed.current)?.clientName).toBe('Pixel 8 · Captions');
    expect((await phone.auth.passkeys.list())[0]!.lastUsedAt).toEqual(expect.any(String));

    // Without clientName the client's own names the session, as with the other sign-ins.
    const again = testClient(proxy.url);
    await again.auth.signInWithPasskey(gets(authenticator));
    const { data: named } = await again.api.GET('/auth/sessions');
    expect(named?.find((listed) => listed.current)?.clientName).toBe('client test');

    await client.auth.passkeys.remove(added.passkeyId);
    expect(await client.auth.passkeys.list()).toEqual([]);
    const later = testClient(proxy.url, { storage: memoryStorage() });
    const refused = await later.auth.signInWithPasskey(gets(authenticator)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 401, error: 'PASSKEY_INVALID' });
    expect(await later.auth.isSignedIn()).toBe(false);
    // Removing it again: nothing to remove.
    await expect(client.auth.passkeys.remove(added.passkeyId)).rejects.toMatchObject({ name: 'ApiError', status: 404 });
  });

  it('a passkey the service refuses is an ApiError, without a refresh or a second attempt, and the session goes on', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    const before = await storage.get(STORAGE_KEYS.session);
    const fromElsewhere = creates(new SoftwareAuthenticator({ origin: 'https://evil.example' }));
    await expect(client.auth.passkeys.add(fromElsewhere)).rejects.toMatchObject({ name: 'ApiError', status: 401, error: 'PASSKEY_INVALID' });
    // A 401 about the passkey, not the token: refreshing would rotate the tokens for nothing.
    expect(proxy.count(addPasskey)).toBe(1);
    expect(proxy.count(refresh)).toBe(0);
    expect(await storage.get(STORAGE_KEYS.session)).toBe(before);
    expect(await client.auth.passkeys.list()).toEqual([]);
  });

  it('a ceremony that throws (the person cancelled) reaches the caller as it is, and nothing is sent', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const cancelled = new Error('NotAllowedError: the operation either timed out or was not allowed');
    await expect(client.auth.passkeys.add(() => Promise.reject(cancelled))).rejects.toBe(cancelled);
    expect(proxy.count(addPasskey)).toBe(0);
    const fresh = testClient(proxy.url);
    await expect(fresh.auth.signInWithPasskey(() => Promise.reject(cancelled))).rejects.toBe(cancelled);
    expect(proxy.count(route('POST', '/api/auth/passkey/verify'))).toBe(0);
    expect(await fresh.auth.isSignedIn()).toBe(false);
  });

  it('an eleventh passkey is refused as ApiError PASSKEY_LIMIT_REACHED before any ceremony', async () => {
    const { client } = await signedInClient(api, proxy.url);
    for (let i = 0; i < 10; i++) await client.auth.passkeys.add(creates(new SoftwareAuthenticator({ origin: ORIGIN })));
    let ceremonies = 0;
    const counted: CreatePasskey = async (options) => {
      ceremonies++;
      return new SoftwareAuthenticator({ origin: ORIGIN }).create(options);
    };
    await expect(client.auth.passkeys.add(counted)).rejects.toMatchObject({ name: 'ApiError', status: 400, error: 'PASSKEY_LIMIT_REACHED' });
    expect(ceremonies).toBe(0);
    expect(await client.auth.passkeys.list()).toHaveLength(10);
  });
});
