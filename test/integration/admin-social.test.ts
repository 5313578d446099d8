import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { adminHelpers } from '../support/admin';
import type { LocalApi } from '../support/local-api';
import { appleSignIn, startSocialApi, wechatSignIn } from '../support/social';

/**
 * Support's view of an account that signs in with Apple or WeChat (issues 37 and 38): which
 * providers are linked and when, never their e-mails, subjects or Apple's sealed refresh token.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
let close: () => Promise<void>;
let admin: ReturnType<typeof adminHelpers>;
beforeAll(async () => {
  ({ api, standIns, close } = await startSocialApi());
  admin = adminHelpers(api);
});
afterAll(() => close?.());

describe('support and social sign-in', () => {
  it('lists the linked providers with their times, and no subject, name or token of theirs', async () => {
    const sub = `001234.admin${Date.now()}`;
    const signedIn = await appleSignIn(api, standIns, { sub, email: `${sub}@privaterelay.appleid.com`, isPrivateEmail: true }, { givenName: 'Mei', familyName: 'Lin' });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const { userId, token, refreshToken } = signedIn.body as { userId: number; token: string; refreshToken: string };

    const found = await admin.find({ userId: String(userId) });
    expect(found.status).toBe(200);
    expect((found.body as { signIn: unknown }).signIn).toMatchObject({ passwordSet: false, identities: [{ provider: 'apple', linkedAt: expect.any(String), lastUsedAt: expect.any(String) }] });

    // Whatever the account's identity items hold as text: the subject, the sealed token, the name.
    const items = (await api.db.client.send(new ScanCommand({ TableName: api.db.tableName }))).Items ?? [];
    const stored = items
      .filter((item) => String(item.PK).startsWith('SOCIAL') || String(item.SK).startsWith('SOCIAL') || JSON.stringify(item).includes(sub))
      .flatMap((item) => Object.entries(item).filter(([name, value]) => !/^(PK|SK|provider|linkedAt|lastUsedAt|clientId)$/.test(name) && typeof value === 'string' && value.length >= 6 && !/^\d{4}-\d\d-\d\dT/.test(value)).map(([, value]) => value as string));
    expect(stored.length).toBeGreaterThan(1);
    // The account's e-mail (here Apple's relay address, which holds the subject) is the one thing support sees of them.
    const email = `${sub}@privaterelay.appleid.com`;
    expect((found.body as { email: string }).email).toBe(email);
    const text = JSON.stringify(found.body).replaceAll(email, '');
    for (const secret of [...stored.filter((value) => value !== email), sub, token, refreshToken, 'Mei']) expect(text.includes(secret), secret.slice(0, 40)).toBe(false);

    const wechat = await wechatSignIn(api, standIns, `admin-${Date.now()}`);
    const wechatUser = (wechat.body as { userId: number }).userId;
    expect(((await admin.find({ userId: String(wechatUser) })).body as { signIn: { identities: { provider: string }[] } }).signIn.identities.map((each) => each.provider)).toEqual(['wechat']);
  });
});
