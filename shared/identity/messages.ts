import type { CodeChannel } from '../ports/code-sender';

/**
 * The verification message in the caller's language. SMS texts carry the app name, the code and
 * its validity, and stay within one segment (160 GSM-7 characters, or 70 UCS-2 for Chinese) for
 * any APP_NAME the settings allow (test/unit/messages-sms.test.ts).
 */
export const SUPPORTED_LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

interface MessageArguments {
  appName: string;
  code: string;
  validMinutes: number;
}

const templates: Record<Locale, { subject: (a: MessageArguments) => string; email: (a: MessageArguments) => string; sms: (a: MessageArguments) => string }> = {
  en: {
    subject: ({ appName }) => `Your ${appName} verification code`,
    email: ({ appName, code, validMinutes }) =>
      `Your ${appName} verification code is ${code}.\n\nIt is valid for ${validMinutes} minutes and can be used once. ` +
      `If you did not ask for it, you can ignore this message.`,
    // Short enough for one UCS-2 segment (70) too: an APP_NAME outside GSM-7 (a Chinese name, say)
    // makes the whole English text UCS-2.
    sms: ({ appName, code, validMinutes }) => `[${appName}] Code: ${code}. Valid ${validMinutes} min. Do not share it.`,
  },
  'zh-CN': {
    subject: ({ appName }) => `${appName} 验证码`,
    email: ({ appName, code, validMinutes }) =>
      `您的 ${appName} 验证码是 ${code}。\n\n验证码 ${validMinutes} 分钟内有效，仅可使用一次。如非本人操作，请忽略本邮件。`,
    sms: ({ appName, code, validMinutes }) => `【${appName}】您的验证码是${code}，${validMinutes}分钟内有效，请勿泄露。`,
  },
};

/**
 * The language ranges of an Accept-Language header, most preferred first. The preference is the
 * `q` weight, not the position (RFC 9110 12.5.4): `en;q=0.3, zh-CN` prefers Chinese; `q=0` means
 * "not acceptable". Equal weights keep the header's order (the sort is stable).
 */
function acceptedLanguages(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part) => {
      const [range, ...parameters] = part.split(';');
      const q = parameters.map((parameter) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(parameter)?.[1]).find(Boolean);
      return { range: range!.trim(), weight: q === undefined ? 1 : Number(q) };
    })
    .filter(({ range, weight }) => range !== '' && weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .map(({ range }) => range);
}

/**
 * The first supported language of an explicit locale or an Accept-Language header; undefined
 * when neither names one (no header, or only `*` and languages we do not have).
 */
export function requestedLocale(requested: string | undefined, acceptLanguage: string | undefined): Locale | undefined {
  const candidates = [
    ...(requested ? [requested] : []),
    ...acceptedLanguages(acceptLanguage),
  ];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    const exact = SUPPORTED_LOCALES.find((locale) => locale.toLowerCase() === lower);
    if (exact) return exact;
    const language = lower.split('-')[0];
    const sameLanguage = SUPPORTED_LOCALES.find((locale) => locale.toLowerCase().split('-')[0] === language);
    if (sameLanguage) return sameLanguage;
  }
  return undefined;
}

/** The same, falling back to English. */
export const chooseLocale = (requested: string | undefined, acceptLanguage: string | undefined): Locale =>
  requestedLocale(requested, acceptLanguage) ?? DEFAULT_LOCALE;

export function renderCodeMessage(channel: CodeChannel, locale: Locale, args: MessageArguments): { subject: string; text: string } {
  const template = templates[locale];
  return { subject: template.subject(args), text: channel === 'email' ? template.email(args) : template.sms(args) };
}
