import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { sessionName } from '../../shared/identity/session-service';
import { clientNameSchema } from '../../shared/identity/session-schemas';
import { wechatSignInSchema } from '../../shared/identity/social/schemas';
import { signInWithWeChat } from '../../shared/identity/social/wechat-sign-in';
import * as z from 'zod/mini';

const body = z.extend(wechatSignInSchema, { clientName: z.optional(clientNameSchema) });

export const handler = endpoint('POST /api/auth/wechat', {
  body,
  response: 'socialSessionSchema',
  docs: {
    summary: 'Sign in with WeChat',
    description:
      'Exchanges the code of WeChat’s SendAuth response with the app’s secret and opens a session as a code sign-in does: the account of the person’s unionid (or, without one, of the app’s openid), or a new account without e-mail or phone. WeChat’s tokens are not kept. See docs/social-sign-in.md.',
    errors: ['SOCIAL_CREDENTIAL_INVALID', 'ACCOUNT_DISABLED', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE'],
  },
  run: async ({ body, headers }, ctx) => {
    const { clientName, ...credential } = body;
    return { ...succeeded('Signed in.'), ...(await signInWithWeChat(ctx, credential, sessionName(clientName, headerValue(headers, 'user-agent')))) };
  },
});
