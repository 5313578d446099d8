import * as z from 'zod';

/**
 * Every setting of the service, parsed once per process from the environment. A bad value stops
 * the process at start (Lambda init, local server start) instead of failing a request later.
 * Secrets are never settings: only the ARN of the secret is (see shared/ports/secrets.ts).
 */
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const configSchema = z.object({
  TABLE_NAME: z.string().min(1),
  DYNAMODB_ENDPOINT: z.url().optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TOKEN_TTL_MS: positiveInt(86_400_000),
  CODE_TTL_SECONDS: positiveInt(600),
  CODE_RESEND_SECONDS: positiveInt(60),
  CODE_DAILY_LIMIT: positiveInt(10),
  AUTHORIZER_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
  SMS_ALLOWED_COUNTRY_CODES: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined || value.trim() === ''
        ? undefined
        : value.split(',').map((part) => part.trim().replace(/^\+/, '')),
    )
    .pipe(z.array(z.string().regex(/^\d{1,3}$/, 'country calling codes are 1 to 3 digits')).optional()),
  JWT_ISSUER: z.string().min(1).default('captioning-api'),
  JWT_AUDIENCE: z.string().min(1).default('captioning-app'),
  JWT_SECRET_ARN: z.string().min(1).optional(),
  SES_FROM_ADDRESS: z.string().min(3).optional(),
  APP_NAME: z.string().min(1).max(20).default('Captions'),
  CORS_ORIGINS: z.string().default('*'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
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
