import { SocialCredentialInvalidError } from '../../errors';
import type { ServiceContext } from '../../service-context';
import { signInWithIdentity, verifyCredential } from './social-sign-in';
import type { SocialSignedIn, VerifiedCredential } from './social-sign-in';
import { exchangeWeChatCode } from './wechat-client';

/** What the app sends from WeChat's SendAuth response. */
export interface WeChatCredential {
  code: string;
  appId?: string;
}

/** WeChat: the code exchanged by the server with the app's secret (no nonce: the code is the proof, once). */
export function verifyWeChat(ctx: ServiceContext, credential: WeChatCredential): Promise<VerifiedCredential> {
  return verifyCredential(ctx, 'wechat', async () => {
    const appId = credential.appId ?? ctx.config.WECHAT_APP_IDS[0]!;
    if (!ctx.config.WECHAT_APP_IDS.includes(appId)) throw SocialCredentialInvalidError.because(`wechat app id ${appId} is not configured`);
    return { identity: await exchangeWeChatCode(ctx.config, await ctx.providerSecrets(), appId, credential.code), spend: [] };
  });
}

export async function signInWithWeChat(ctx: ServiceContext, credential: WeChatCredential, clientName: string): Promise<SocialSignedIn> {
  return signInWithIdentity(ctx, await verifyWeChat(ctx, credential), clientName);
}
