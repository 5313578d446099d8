import * as z from 'zod';
import { awsCodeSender } from '../../shared/adapters/aws-code-sender';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { chooseLocale } from '../../shared/identity/messages';
import { emailTargetSchema, phoneTargetSchema } from '../../shared/identity/targets';
import { sendCode } from '../../shared/identity/verification-service';

const locale = z.string().max(35).optional();

const body = z.discriminatedUnion('type', [
  z.object({ type: z.literal('email'), target: emailTargetSchema, locale }),
  z.object({ type: z.literal('sms'), target: phoneTargetSchema, locale }),
]);

export const handler = endpoint('POST /api/verify-code/send', {
  body,
  adapters: { codeSender: awsCodeSender, secrets: secretsManagerSource },
  run: async ({ body, headers }, ctx) => {
    await sendCode(ctx, body.target, chooseLocale(body.locale, headerValue(headers, 'accept-language')));
    return succeeded('Verification code sent.');
  },
});
