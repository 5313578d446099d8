// zod/mini, not the classic API: config is parsed by every function, the authorizer included,
// and the mini API tree-shakes to a few kilobytes.
import * as z from 'zod/mini';

/**
 * Every setting of the service, parsed once per process from the environment. A bad value stops
 * the process at start (Lambda init, local server start) instead of failing a request later.
 * Secrets are never settings: only the ARN of the secret is (see shared/ports/secrets.ts).
 */
const positiveInt = (fallback: number) =>
  z._default(z.coerce.number().check(z.int('must be a whole number'), z.positive('must be positive')), fallback);
const text = (fallback: string) => z._default(z.string().check(z.minLength(1)), fallback);

const countryCallingCodes = z.pipe(
  z.optional(z.string()),
  z.transform((value) =>
    value === undefined || value.trim() === ''
      ? undefined
      : value.split(',').map((part) => part.trim().replace(/^\+/, '')),
  ),
);

const configSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  AWS_REGION: text('us-east-1'),
  TOKEN_TTL_MS: positiveInt(86_400_000),
  CODE_TTL_SECONDS: positiveInt(600),
  CODE_RESEND_SECONDS: positiveInt(60),
  CODE_DAILY_LIMIT: positiveInt(10),
  AUTHORIZER_CACHE_SECONDS: z._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(3600)), 300),
  SMS_ALLOWED_COUNTRY_CODES: z.pipe(
    countryCallingCodes,
    z.optional(z.array(z.string().check(z.regex(/^\d{1,3}$/, 'country calling codes are 1 to 3 digits')))),
  ),
  JWT_ISSUER: text('captioning-api'),
  JWT_AUDIENCE: text('captioning-app'),
  JWT_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
  SES_FROM_ADDRESS: z.optional(z.string().check(z.minLength(3))),
  APP_NAME: z._default(z.string().check(z.minLength(1), z.maxLength(20)), 'Captions'),
  CORS_ORIGINS: z._default(z.string(), '*'),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return result.data;
}

let current: Config | undefined;

/** The process's configuration, parsed on first use. */
export function config(): Config {
  current ??= parseConfig(process.env);
  return current;
}

/** Replaces the configuration (local server and tests, before the first request). */
export function useConfig(next: Config): void {
  current = next;
}
