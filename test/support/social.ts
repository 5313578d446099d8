import { afterAll, beforeAll } from 'vitest';
import { startProviderStandIns } from '../../infra/local/provider-stand-ins';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { nonceHash } from '../../shared/identity/social/nonces';
import { startLocalApi } from './local-api';
import type { LocalApi } from './local-api';

/** The client ids and WeChat apps the tests' server is configured with. */
export const SOCIAL = {
  apple: 'com.example.captions',
  appleWeb: 'com.example.captions.web',
  google: 'ios.apps.googleusercontent.com',
  googleWeb: 'web.apps.googleusercontent.com',
  wechat: 'wx1111111111111111',
  wechatMini: 'wx2222222222222222',
};

/**
 * The local server trusting the provider stand-ins (infra/local/provider-stand-ins.ts), as
 * `npm start` does: Apple, Google and two WeChat apps of one open platform account.
 */
export async function startSocialApi(env: Record<string, string> = {}, options: { logSink?: (line: string) => void } = {}): Promise<{ api: LocalApi; standIns: ProviderStandIns; close(): Promise<void> }> {
  const secrets = { [SOCIAL.wechat]: 'secret-one', [SOCIAL.wechatMini]: 'secret-two' };
  // The providers keep the server's (movable) clock, as real ones keep real time with a real server.
  const late: { api?: LocalApi } = {};
  const standIns = await startProviderStandIns({ appleClientId: SOCIAL.apple, googleClientId: SOCIAL.google, wechatApps: secrets, now: () => late.api?.clock.now().getTime() ?? Date.now() });
  const api = await startLocalApi({
    APPLE_CLIENT_IDS: `${SOCIAL.apple},${SOCIAL.appleWeb}`,
    APPLE_TEAM_ID: standIns.apple.teamId,
    APPLE_KEY_ID: standIns.apple.keyId,
    APPLE_PRIVATE_KEY: standIns.apple.privateKeyPem,
    APPLE_API_URL: standIns.appleUrl,
    GOOGLE_CLIENT_IDS: `${SOCIAL.google},${SOCIAL.googleWeb}`,
    GOOGLE_JWKS_URL: standIns.googleJwksUrl,
    WECHAT_APP_IDS: `${SOCIAL.wechat},${SOCIAL.wechatMini}`,
    WECHAT_APP_SECRETS: Object.entries(secrets).map(([appId, secret]) => `${appId}:${secret}`).join(','),
    WECHAT_API_URL: standIns.wechatUrl,
    ...env,
  }, options);
  late.api = api;
  return { api, standIns, close: async () => (await api.close(), await standIns.close()) };
}

/**
 * For one test file: startSocialApi before its tests, closed after them; `started` hands the
 * server and the stand-ins to the file: `useSocialApi((servers) => ({ api, standIns } = servers))`.
 */
export function useSocialApi(started: (servers: { api: LocalApi; standIns: ProviderStandIns }) => void): void {
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const servers = await startSocialApi();
    close = servers.close;
    started(servers);
  });
  afterAll(() => close?.());
}

let subjects = 0;
/** A provider subject no other test of the run uses. */
export const uniqueSubject = (label: string) => `${label}-${Date.now().toString(36)}-${subjects++}`;

/** A nonce from the service, and its hash for the provider. */
export async function socialNonce(api: LocalApi): Promise<{ nonce: string; hash: string }> {
  const answer = await api.request<{ nonce: string }>('POST', '/api/auth/social/nonce');
  if (answer.status !== 200) throw new Error(`nonce failed: ${JSON.stringify(answer.body)}`);
  return { nonce: answer.body.nonce, hash: nonceHash(answer.body.nonce) };
}

/** Signs in with Google as `sub` (and e-mail), through the API. */
export async function googleSignIn(api: LocalApi, standIns: ProviderStandIns, identity: { sub: string; email?: string; emailVerified?: boolean; hd?: string }) {
  const { nonce, hash } = await socialNonce(api);
  const { idToken } = await standIns.google.issue({ clientId: SOCIAL.google, nonce: hash, ...identity });
  return api.request('POST', '/api/auth/google', { body: { idToken, nonce } });
}

/** Signs in with Apple as `sub`, through the API. */
export async function appleSignIn(
  api: LocalApi,
  standIns: ProviderStandIns,
  identity: { sub: string; email?: string; isPrivateEmail?: boolean; emailVerified?: boolean; booleanFlags?: boolean },
  fullName?: { givenName?: string; familyName?: string },
) {
  const { nonce, hash } = await socialNonce(api);
  const { identityToken, authorizationCode } = await standIns.apple.issue({ clientId: SOCIAL.apple, nonce: hash, ...identity });
  return api.request('POST', '/api/auth/apple', { body: { identityToken, authorizationCode, nonce, ...(fullName ? { fullName } : {}) } });
}

/** Signs in with WeChat as the person `subject` from one of the apps. */
export async function wechatSignIn(api: LocalApi, standIns: ProviderStandIns, subject: string, appId = SOCIAL.wechat) {
  const { code } = standIns.wechat.issue({ appId, subject });
  return api.request('POST', '/api/auth/wechat', { body: { code, appId } });
}
