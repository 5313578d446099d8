/**
 * Every operation of the API, as plain data. The CDK stack builds one Lambda function, one API
 * Gateway method and one IAM policy per entry; the local server mounts the same entries; the
 * handler wrapper reads its own entry. Nothing else lists routes.
 *
 * Each `/api/...` path is also served at `/api/v1/...` (see `versionedPaths`).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Source file of the Lambda handler (exports `handler`), relative to the project root. */
  entry: string;
  /** `bearer` routes sit behind the JWT authorizer; `none` routes are public. */
  auth: 'none' | 'bearer';
  table: 'none' | 'read' | 'read-write';
  /** Sends verification codes (SES for e-mail, SNS for SMS). */
  sender: boolean;
  /** Reads the root secret (token signing or code hashing keys). */
  secret: boolean;
  /** Runs scrypt: needs a full vCPU on Lambda. */
  hashesPasswords: boolean;
  /** `strict`: a tighter per-method gateway limit (code and password endpoints invite abuse). */
  throttle?: 'strict';
}

const route = <M extends HttpMethod, P extends string>(
  method: M,
  path: P,
  entry: string,
  needs: Partial<Omit<RouteDefinition, 'method' | 'path' | 'entry'>> = {},
): RouteDefinition & { method: M; path: P } => ({
  method,
  path,
  entry,
  auth: 'bearer',
  table: 'read',
  sender: false,
  secret: false,
  hashesPasswords: false,
  ...needs,
});

export const routes = [
  route('GET', '/api/health', 'functions/health/get.ts', { auth: 'none', table: 'read' }),
  // The API reference, generated at build time (npm run generate:openapi) from these routes and their schemas.
  route('GET', '/api/openapi.json', 'functions/openapi/get.ts', { auth: 'none', table: 'none' }),
  route('POST', '/api/verify-code/send', 'functions/verify-code/send.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    sender: true,
    secret: true,
  }),
  route('POST', '/api/verify-code/verify', 'functions/verify-code/verify.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
  }),
  route('POST', '/api/auth/login', 'functions/auth/login.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/auth/register', 'functions/auth/register.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/auth/password/reset', 'functions/auth/password-reset.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/auth/token/refresh', 'functions/auth/refresh.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
  }),
  // With the app's refresh token, logout ends that session (proven with the secret-derived key).
  route('POST', '/api/auth/logout', 'functions/auth/logout.ts', { table: 'read-write', secret: true }),
  route('GET', '/api/auth/sessions', 'functions/sessions/list.ts'),
  route('DELETE', '/api/auth/sessions', 'functions/sessions/end-others.ts', { table: 'read-write' }),
  route('DELETE', '/api/auth/sessions/{sessionId}', 'functions/sessions/end.ts', { table: 'read-write' }),
  route('GET', '/api/users/me', 'functions/users/get-me.ts'),
  route('PATCH', '/api/users/me', 'functions/users/update-me.ts', { table: 'read-write' }),
  route('DELETE', '/api/users/me', 'functions/users/delete-me.ts', { table: 'read-write' }),
  // Each takes a code sent to the new e-mail or phone, as sign-in does.
  route('PUT', '/api/users/me/email', 'functions/users/change-email.ts', { throttle: 'strict', table: 'read-write', secret: true }),
  route('PUT', '/api/users/me/phone', 'functions/users/change-phone.ts', { throttle: 'strict', table: 'read-write', secret: true }),
  route('PUT', '/api/users/me/password', 'functions/users/change-password.ts', {
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/devices', 'functions/devices/bind.ts', { table: 'read-write' }),
  route('GET', '/api/devices', 'functions/devices/list.ts'),
  route('DELETE', '/api/devices/{sn}', 'functions/devices/unbind.ts', { table: 'read-write' }),
  route('POST', '/api/transcriptions', 'functions/transcriptions/create.ts', { table: 'read-write' }),
  route('GET', '/api/transcriptions', 'functions/transcriptions/list.ts'),
  route('GET', '/api/transcriptions/usage', 'functions/transcriptions/usage.ts'),
  route('GET', '/api/transcriptions/{id}', 'functions/transcriptions/get.ts'),
  route('PATCH', '/api/transcriptions/{id}', 'functions/transcriptions/update.ts', { table: 'read-write' }),
  route('DELETE', '/api/transcriptions/{id}', 'functions/transcriptions/delete.ts', { table: 'read-write' }),
  route('POST', '/api/behavior/login', 'functions/behavior/record-login.ts', { table: 'read-write' }),
  route('GET', '/api/behavior/login', 'functions/behavior/list-logins.ts'),
  route('POST', '/api/behavior/events', 'functions/behavior/record-event.ts', { table: 'read-write' }),
  route('GET', '/api/behavior/translation', 'functions/behavior/list-translation.ts'),
  route('GET', '/api/behavior/voice-provider', 'functions/behavior/list-voice-provider.ts'),
  route('GET', '/api/behavior/language-choice', 'functions/behavior/list-language-choice.ts'),
  route('GET', '/api/behavior/stats', 'functions/behavior/stats.ts'),
] as const satisfies readonly RouteDefinition[];

/** The JWT authorizer in front of every `bearer` route. Reads token versions to honour revocation. */
export const authorizer = {
  entry: 'functions/authorizer/token.ts',
  table: 'read',
  secret: true,
} as const;

/**
 * Work that runs on a schedule rather than per request; the stack gives each an EventBridge rule.
 * `schedule` is an EventBridge rate or cron expression.
 */
export interface JobDefinition {
  name: string;
  entry: string;
  schedule: string;
  table: 'read' | 'read-write';
  /** Seconds; jobs may run longer than requests. */
  timeoutSeconds: number;
}

export const jobs: readonly JobDefinition[] = [
  // Finishes account deletions whose purge was cut short (a timeout, a crash): see account-deletion.ts.
  {
    name: 'resume-account-purges',
    entry: 'functions/jobs/resume-account-purges.ts',
    schedule: 'rate(15 minutes)',
    table: 'read-write',
    timeoutSeconds: 300,
  },
];

export type Route = (typeof routes)[number];
export type RouteId = `${Route['method']} ${Route['path']}`;

export const routeId = (route: RouteDefinition): string => `${route.method} ${route.path}`;

export function findRoute(id: RouteId): RouteDefinition {
  const found = routes.find((candidate) => routeId(candidate) === id);
  if (!found) throw new Error(`No route ${id}`);
  return found;
}

export const VERSION_PREFIX = '/api/v1';

/** The paths a route answers at: its own and the versioned alias. */
export const versionedPaths = (path: string): string[] => [path, path.replace(/^\/api(?=\/)/, VERSION_PREFIX)];
