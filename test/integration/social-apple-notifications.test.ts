import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { keys } from '../../shared/db/keys';
import { signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { SOCIAL, appleSignIn, useSocialApi, uniqueSubject } from '../support/social';

/**
 * POST /api/auth/apple/notifications (issue 38): Apple's server-to-server notifications, signed by
 * the Apple stand-in (infra/local/provider-stand-ins.ts) as Apple signs them, through the local
 * server and DynamoDB Local: consent-revoked ends the sessions and unlinks, account-delete deletes an
 * Apple-only account, email-disabled stops codes to the relay address, and a forged notification
 * (another key with Apple's key id, another app's audience) is refused and changes nothing.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
useSocialApi((servers) => ({ api, standIns } = servers));
const sub = uniqueSubject;

const notify = async (event: Record<string, unknown>, clientId = SOCIAL.apple) =>
  api.request('POST', '/api/auth/apple/notifications', { body: await standIns.apple.notification(clientId, event) });

const exists = async (key: Record<string, string>) =>
  (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: key, ConsistentRead: true }))).Item !== undefined;

const refresh = (refreshToken: string) => api.request('POST', '/api/auth/token/refresh', { body: { refreshToken } });

/** An account made by Sign in with Apple with a private relay address. */
async function appleAccount() {
  const subject = sub('apple');
  const email = `${subject}@privaterelay.appleid.com`;
  const signedIn = await appleSignIn(api, standIns, { sub: subject, email, isPrivateEmail: true });
  expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
  return { subject, email, userId: signedIn.body.userId as number, token: signedIn.body.token as string, refreshToken: signedIn.body.refreshToken as string };
}

describe('consent-revoked', () => {
  it('ends every session of the account (the held refresh token is refused) and unlinks Apple', async () => {
    const account = await appleAccount();
    const answer = await notify({ type: 'consent-revoked', sub: account.subject });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await refresh(account.refreshToken)).status).toBe(401);
    expect((await api.request('GET', '/api/users/me', { token: account.token })).status).toBe(401);
    expect(await exists(keys.socialIdentityOwner('apple', account.subject))).toBe(false);
    expect(await exists(keys.socialIdentity(account.userId, 'apple', account.subject))).toBe(false);
    // Not deleted: only account-delete deletes.
    expect(await exists(keys.user(account.userId))).toBe(true);
    // Received again (Apple retries): acknowledged, nothing more to do.
    expect((await notify({ type: 'consent-revoked', sub: account.subject })).status).toBe(200);
  });
});

describe('account-delete', () => {
  it('deletes an account Apple was the only way into', async () => {
    const account = await appleAccount();
    expect((await notify({ type: 'account-delete', sub: account.subject })).status).toBe(200);
    expect(await exists(keys.user(account.userId))).toBe(false);
    expect((await refresh(account.refreshToken)).status).toBe(401);
    expect(await exists(keys.socialIdentityOwner('apple', account.subject))).toBe(false);
    // Apple's account is gone: nothing recorded for revocation.
    expect(await exists(keys.appleRevocation(account.userId, account.subject))).toBe(false);
  });

  it('keeps an account with another way in (an e-mail proven by a code): Apple unlinked, sessions ended', async () => {
    const email = uniqueEmail('apple-linked');
    const byCode = await signIn(api, email);
    const subject = sub('apple');
    // Apple is authoritative for a verified address that is not a relay one: it joins the account.
    const linked = await appleSignIn(api, standIns, { sub: subject, email, isPrivateEmail: false });
    expect(linked.body.userId).toBe(byCode.userId);
    expect((await notify({ type: 'account-delete', sub: subject })).status).toBe(200);
    expect(await exists(keys.user(byCode.userId))).toBe(true);
    expect(await exists(keys.socialIdentity(byCode.userId, 'apple', subject))).toBe(false);
    expect((await refresh(linked.body.refreshToken)).status).toBe(401);
    // The person signs in the other way.
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    expect((await signIn(api, email)).userId).toBe(byCode.userId);
  });
});

describe('email-disabled and email-enabled', () => {
  it('no code goes to the relay address while it is not deliverable; the send answers 200 all the same', async () => {
    const account = await appleAccount();
    const send = () => api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: account.email } });
    expect((await send()).status).toBe(200);
    expect(api.outbox.list(account.email)).toHaveLength(1);

    expect((await notify({ type: 'email-disabled', sub: account.subject, email: account.email, is_private_email: 'true' })).status).toBe(200);
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    const refused = await send();
    expect(refused.status).toBe(200);
    expect(api.outbox.list(account.email)).toHaveLength(1);
    const identity = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.socialIdentity(account.userId, 'apple', account.subject) }));
    expect(identity.Item?.emailDeliverable).toBe(false);

    expect((await notify({ type: 'email-enabled', sub: account.subject, email: account.email, is_private_email: 'true' })).status).toBe(200);
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    expect((await send()).status).toBe(200);
    expect(api.outbox.list(account.email)).toHaveLength(2);
  });
});

describe('anything else, and forgeries', () => {
  it('acknowledges an unknown event or person and changes nothing', async () => {
    const account = await appleAccount();
    expect((await notify({ type: 'something-new', sub: account.subject })).status).toBe(200);
    expect((await notify({ type: 'consent-revoked', sub: sub('nobody') })).status).toBe(200);
    expect(await exists(keys.socialIdentity(account.userId, 'apple', account.subject))).toBe(true);
    expect((await refresh(account.refreshToken)).status).toBe(200);
  });

  it("refuses another key with Apple's key id, another app's audience, another issuer and no signature, with the contract's error, and changes nothing", async () => {
    const account = await appleAccount();
    const attacker = await generateKeyPair('RS256');
    const iat = Math.floor(api.clock.now().getTime() / 1000);
    const events = JSON.stringify({ type: 'account-delete', sub: account.subject, event_time: iat * 1000 });
    const forged = async (claims: Record<string, unknown>, key = attacker.privateKey) =>
      new SignJWT({ iss: 'https://appleid.apple.com', aud: SOCIAL.apple, iat, jti: sub('jti'), events, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: standIns.apple.keys.current.kid })
        .sign(key);
    const genuine = await standIns.apple.notification(SOCIAL.apple, { type: 'account-delete', sub: account.subject });
    const [header, body] = genuine.payload.split('.');
    const payloads = [
      await forged({}),
      (await standIns.apple.notification('com.attacker.app', { type: 'account-delete', sub: account.subject })).payload,
      `${header}.${body}.`,
      `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${body}.`,
    ];
    for (const payload of payloads) {
      const answer = await api.request('POST', '/api/auth/apple/notifications', { body: { payload } });
      expect(answer.status, payload.slice(0, 40)).toBe(401);
      expect(answer.body).toMatchObject({ code: 401, error: 'SOCIAL_CREDENTIAL_INVALID' });
      expect(typeof answer.body.message).toBe('string');
    }
    expect((await api.request('POST', '/api/auth/apple/notifications', { body: {} })).status).toBe(400);
    // Nothing changed: the account, its link and its session.
    expect(await exists(keys.user(account.userId))).toBe(true);
    expect(await exists(keys.socialIdentity(account.userId, 'apple', account.subject))).toBe(true);
    expect((await refresh(account.refreshToken)).status).toBe(200);
  });
});
