import type { Config } from '../../config';
import { SocialCredentialInvalidError } from '../../errors';
import type { ProviderSecrets } from '../../ports/provider-secrets';
import type { ProviderIdentity } from './id-tokens';
import { providerUnavailable } from './provider-keys';

/**
 * WeChat's code exchange (`sns/oauth2/access_token`), done by the server with the app's secret.
 * WeChat reports errors in a 200 answer with an `errcode`: 40029 (invalid code) and 40163 (code
 * already used) are the person's credential refused; -1 (busy) and 45011 (rate) are WeChat
 * unavailable; anything else (a wrong app id or secret) is ours to fix. WeChat's tokens are not
 * kept: the identity is all the service needs.
 */
const CALL_TIMEOUT_MS = 3_000;
const REFUSED = new Set([40029, 40163, 41008]);
const BUSY = new Set([-1, 45009, 45011]);

export async function exchangeWeChatCode(cfg: Config, secrets: ProviderSecrets, appId: string, code: string): Promise<ProviderIdentity> {
  const secret = secrets.wechatAppSecrets?.[appId];
  if (!secret) throw new Error(`No WeChat app secret for ${appId}`);
  const url = new URL(`${cfg.WECHAT_API_URL.replace(/\/$/, '')}/sns/oauth2/access_token`);
  url.search = new URLSearchParams({ appid: appId, secret, code, grant_type: 'authorization_code' }).toString();
  let body: { errcode?: number; errmsg?: string; openid?: string; unionid?: string };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    if (response.status !== 200) throw new Error(`WeChat answered ${response.status}`);
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw providerUnavailable('WeChat', error);
  }
  if (body.errcode !== undefined && body.errcode !== 0) {
    if (REFUSED.has(body.errcode)) throw SocialCredentialInvalidError.because(`wechat code refused: ${body.errcode} ${body.errmsg ?? ''}`.trim());
    if (BUSY.has(body.errcode)) throw providerUnavailable('WeChat', `errcode ${body.errcode}`);
    throw new Error(`WeChat refused the app's credentials: errcode ${body.errcode} ${body.errmsg ?? ''}`);
  }
  if (!body.openid) throw providerUnavailable('WeChat', 'answer without openid');
  return {
    provider: 'wechat',
    // unionid reaches the same person from every app of the open platform account; openid is per app.
    subject: body.unionid ? `u:${body.unionid}` : `o:${appId}:${body.openid}`,
    clientId: appId,
    email: null,
    emailVerified: false,
    privateEmail: false,
    hostedDomain: null,
  };
}
