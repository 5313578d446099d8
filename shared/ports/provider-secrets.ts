/**
 * The social providers' secrets (docs/social-sign-in.md): Apple's private key (PEM, PKCS #8, the
 * `.p8` file Apple's developer site gives) that signs the client secret of each call to Apple, and
 * each WeChat app's secret. On AWS they are one JSON secret in Secrets Manager
 * (`SOCIAL_SECRET_ARN`: `{"applePrivateKey": "...", "wechatAppSecrets": {"<appid>": "<secret>"}}`);
 * in local mode `APPLE_PRIVATE_KEY` and `WECHAT_APP_SECRETS` (`appid:secret,appid:secret`). Never
 * settings: they stay out of `Config`, and so out of every log of it.
 */
export interface ProviderSecrets {
  applePrivateKey?: string;
  wechatAppSecrets?: Readonly<Record<string, string>>;
}

/** The JSON of the Secrets Manager secret, checked: a malformed one is a deployment fault. */
export function providerSecretsOf(json: string): ProviderSecrets {
  const parsed = JSON.parse(json) as { applePrivateKey?: unknown; wechatAppSecrets?: unknown };
  const secrets: { applePrivateKey?: string; wechatAppSecrets?: Record<string, string> } = {};
  if (typeof parsed.applePrivateKey === 'string') secrets.applePrivateKey = parsed.applePrivateKey;
  if (parsed.wechatAppSecrets && typeof parsed.wechatAppSecrets === 'object') {
    secrets.wechatAppSecrets = Object.fromEntries(Object.entries(parsed.wechatAppSecrets).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  }
  return secrets;
}

/** Local mode: `APPLE_PRIVATE_KEY` (PEM; `\n` may be written as the two characters) and `WECHAT_APP_SECRETS`. */
export function localProviderSecrets(env: Record<string, string | undefined>): ProviderSecrets {
  const secrets: { applePrivateKey?: string; wechatAppSecrets?: Record<string, string> } = {};
  if (env.APPLE_PRIVATE_KEY) secrets.applePrivateKey = env.APPLE_PRIVATE_KEY.replace(/\\n/g, '\n');
  if (env.WECHAT_APP_SECRETS) {
    const pairs = env.WECHAT_APP_SECRETS.split(',').map((pair) => pair.trim()).filter((pair) => pair !== '');
    const entries = pairs.map((pair) => {
      const at = pair.indexOf(':');
      if (at <= 0 || at === pair.length - 1) throw new Error('WECHAT_APP_SECRETS: each pair is appid:secret, separated by commas');
      return [pair.slice(0, at), pair.slice(at + 1)] as const;
    });
    secrets.wechatAppSecrets = Object.fromEntries(entries);
  }
  return secrets;
}
