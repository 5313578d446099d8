import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { requestedLocale } from '../../shared/identity/messages';
import { phoneTargetSchema } from '../../shared/identity/phone-targets';
import { emailTargetSchema } from '../../shared/identity/targets';
import { sendCode } from '../../shared/identity/verification-service';

const locale = z.optional(
  z.string().check(
    z.maxLength(35),
    z.meta({ description: "Message language, e.g. `en` or `zh-CN`; else Accept-Language; else the account's `locale`; else English" }),
  ),
);

const body = z.discriminatedUnion('type', [
  z.object({ type: z.literal('email'), target: emailTargetSchema, locale }),
  z.object({ type: z.literal('sms'), target: phoneTargetSchema, locale }),
]);

export const handler = endpoint('POST /api/verify-code/send', {
  body,
  response: 'successSchema',
  docs: {
    summary: 'Send a verification code',
    description:
      "By e-mail or SMS, in the language of `locale`, else of `Accept-Language`, else the `locale` of the target's account, else English. Answers the same whether or not an account exists. One code per target every 60 s.",
    errors: ['CODE_COOLDOWN', 'CODE_DAILY_LIMIT', 'SMS_LIMIT_REACHED'],
    headers: ['Accept-Language'],
  },
  run: async ({ body, headers }, ctx) => {
    // Neither names a language we have: the account's own choice decides (undefined), read in the service.
    await sendCode(ctx, body.target, requestedLocale(body.locale, headerValue(headers, 'accept-language')));
    return succeeded('Verification code sent.');
  },
});
