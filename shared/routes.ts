/**
 * Every operation of the API, as plain data. The CDK stack builds one Lambda function, one API
 * Gateway method and one IAM policy per entry; the local server mounts the same entries; the
 * handler wrapper reads its own entry. Nothing else lists routes.
 *
 * Each `/api/...` path is also served at `/api/v1/...` (see `versionedPaths`).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A DynamoDB action a function issues, as IAM names it. Transactions are authorised per item, so a
 * TransactWriteItems of a Put and a ConditionCheck is declared as `PutItem` and `ConditionCheckItem`.
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';

/**
 * What a function does with the table: the exact actions, and the secondary indexes it queries.
 * The stack grants exactly this (infra/constructs/grants.ts), and
 * test/integration/table-grants.test.ts runs every handler against DynamoDB Local, records what it
 * issues and fails on an action missing here or declared and never issued.
 */
export interface TableAccess {
  actions: readonly TableAction[];
  indexes?: readonly string[];
}

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Source file of the Lambda handler (exports `handler`), relative to the project root. */
  entry: string;
  /**
   * `bearer` routes sit behind the JWT authorizer; `none` routes are public; `iam` routes (the
   * support team's `/admin` API, issue 37) take a Signature Version 4 request signed by an IAM
   * principal (API Gateway's AWS_IAM, the local server's own check), never a person's token, and
   * every request that reaches one is audited.
   */
  auth: 'none' | 'bearer' | 'iam';
  table: 'none' | 'read' | 'read-write';
  /** Required unless `table` is `none`: the actions behind that access, which the grant follows. */
  dynamodb?: TableAccess;
  /** Sends verification codes (SES for e-mail, SNS for SMS). */
  sender: boolean;
  /** Reads the root secret (token signing or code hashing keys). */
  secret: boolean;
  /**
   * Talks to Apple, Google or WeChat (issue 38, docs/social-sign-in.md): the function is given the
   * providers' settings and may read their secret (infra/stack.ts); every other bundle is built
   * without the providers' code (`BUNDLED_PROVIDERS`, shared/bundle-defines.d.ts).
   */
  providers: boolean;
  /**
   * Reads Apple's private key or WeChat's app secrets (the provider secret, docs/social-sign-in.md):
   * the stack grants that secret and passes its ARN (`SOCIAL_SECRET_ARN`) to these functions only.
   * Requires `providers`.
   */
  providerSecret: boolean;
  /**
   * Issues speech providers' credentials (issue 44, docs/speech.md): the function gets the speech
   * providers' adapters, reads the speech secret (the stack grants it and passes its ARN,
   * `SPEECH_SECRET_ARN`, to these functions only) and may start Amazon Transcribe streams
   * (`transcribe:StartStreamTranscriptionWebSocket`, which its presigned addresses need).
   */
  speech: boolean;
  /** Runs scrypt: needs a full vCPU on Lambda. */
  hashesPasswords: boolean;
  /** Hands out the live channel's tickets: the function is given the WebSocket API's address (REALTIME_URL, docs/realtime.md). */
  realtimeTickets?: boolean;
  /**
   * `strict`: a tighter per-method gateway limit (code and password endpoints invite abuse);
   * `admin`: the support API's own limit (a person works it, a script should not flood it).
   */
  throttle?: 'strict' | 'admin';
  /**
   * `iam` routes only: the support team's managed policy that may call it (infra/constructs/
   * support-policies.ts): `read` lookups and the audit trail, `write` the changes, `delete` account deletion.
   */
  support?: 'read' | 'write' | 'delete';
}

// Free of side effects (the annotation tells esbuild): a bundle that uses no entry of the table drops it.
/* @__NO_SIDE_EFFECTS__ */
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
  providers: false,
  providerSecret: false,
  speech: false,
  hashesPasswords: false,
  ...needs,
});

/** The prefix of the admin API's paths: never under /api, never in the public OpenAPI document. */
export const ADMIN_PATH_PREFIX = '/admin/';

/** An `/admin` route's needs: IAM-signed, the admin throttle, its support policy and its table actions (the audit entry's PutItem among them). */
/* @__NO_SIDE_EFFECTS__ */
const admin = (support: NonNullable<RouteDefinition['support']>, actions: readonly TableAction[], indexes?: readonly string[]) =>
  ({ auth: 'iam', throttle: 'admin', support, table: 'read-write', dynamodb: { actions, ...(indexes ? { indexes } : {}) } }) as const;

export const routes = [
  route('GET', '/api/health', 'functions/health/get.ts', { auth: 'none', table: 'read', dynamodb: { actions: ['GetItem'] } }),
  // The API reference, generated at build time (npm run generate:openapi) from these routes and their schemas.
  route('GET', '/api/openapi.json', 'functions/openapi/get.ts', { auth: 'none', table: 'none' }),
  route('POST', '/api/verify-code/send', 'functions/verify-code/send.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    // GetItem: the locale of the target's account, from its identity marker.
    dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    sender: true,
    secret: true,
  }),
  route('POST', '/api/verify-code/verify', 'functions/verify-code/verify.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    // Query and DeleteItem: the account's sessions, ending those beyond the cap or already ended.
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secret: true,
  }),
  route('POST', '/api/auth/login', 'functions/auth/login.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/auth/register', 'functions/auth/register.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/auth/password/reset', 'functions/auth/password-reset.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    dynamodb: { actions: ['GetItem', 'UpdateItem', 'DeleteItem'] },
    secret: true,
    hashesPasswords: true,
  }),
  route('POST', '/api/auth/token/refresh', 'functions/auth/refresh.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    dynamodb: { actions: ['GetItem', 'UpdateItem', 'DeleteItem'] },
  }),
  // With the app's refresh token, logout ends that session (proven with the secret-derived key).
  route('POST', '/api/auth/logout', 'functions/auth/logout.ts', { table: 'read-write', secret: true, dynamodb: { actions: ['GetItem', 'UpdateItem', 'DeleteItem'] } }),
  route('GET', '/api/auth/sessions', 'functions/sessions/list.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('DELETE', '/api/auth/sessions', 'functions/sessions/end-others.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'Query', 'UpdateItem', 'DeleteItem'] } }),
  route('DELETE', '/api/auth/sessions/{sessionId}', 'functions/sessions/end.ts', { table: 'read-write', dynamodb: { actions: ['UpdateItem', 'DeleteItem'] } }),
  // The app's push token on its own session (docs/realtime.md#the-silent-push): the session's item updated beside the account check.
  route('PUT', '/api/auth/sessions/current/push', 'functions/sessions/push-register.ts', { table: 'read-write', dynamodb: { actions: ['UpdateItem', 'ConditionCheckItem'] } }),
  route('DELETE', '/api/auth/sessions/current/push', 'functions/sessions/push-remove.ts', { table: 'read-write', dynamodb: { actions: ['UpdateItem', 'ConditionCheckItem'] } }),
  // Passkeys (issue 30): adding and managing them takes a session; signing in with one does not.
  // The challenges are signed with a key derived from the root secret; the sign-in options write nothing.
  route('POST', '/api/auth/passkeys/registration-options', 'functions/passkeys/registration-options.ts', { secret: true, dynamodb: { actions: ['GetItem', 'Query'] } }),
  // UpdateItem: the account's passkey count; PutItem: the passkey, its owner item and the spent challenge.
  route('POST', '/api/auth/passkeys', 'functions/passkeys/add.ts', { table: 'read-write', secret: true, dynamodb: { actions: ['PutItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  route('GET', '/api/auth/passkeys', 'functions/passkeys/list.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('PATCH', '/api/auth/passkeys/{passkeyId}', 'functions/passkeys/rename.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  // GetItem: the profile's other ways in (e-mail, phone, providers), without which another passkey must remain.
  route('DELETE', '/api/auth/passkeys/{passkeyId}', 'functions/passkeys/remove.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'DeleteItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  // Signing in: the same per-method limit as the other sign-ins.
  route('POST', '/api/auth/passkey/options', 'functions/passkeys/sign-in-options.ts', { auth: 'none', throttle: 'strict', table: 'none', secret: true }),
  // As the code sign-in: the credential's owner, passkey and account, the sessions; the spent challenge and the counter in the session's transaction.
  route('POST', '/api/auth/passkey/verify', 'functions/passkeys/sign-in.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  // Sign in with Apple, Google and WeChat (issue 38, docs/social-sign-in.md): the nonce is signed and writes nothing.
  // `providers`: its key (socialNonceKey) is derived with the providers' code.
  route('POST', '/api/auth/social/nonce', 'functions/social/nonce.ts', { auth: 'none', throttle: 'strict', table: 'none', secret: true, providers: true }),
  // As the code sign-in: the identity's owner, the account, the sessions; the nonce spent and the
  // identity claimed (PutItem) in the session's or the sign-up's transaction; UpdateItem: the id
  // counter, the profile, the identity's last use.
  route('POST', '/api/auth/apple', 'functions/social/apple.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    providers: true,
    providerSecret: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  route('POST', '/api/auth/google', 'functions/social/google.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    providers: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  route('POST', '/api/auth/wechat', 'functions/social/wechat.ts', {
    auth: 'none',
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    providers: true,
    providerSecret: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  // Apple's server-to-server notifications (issue 38): Apple's signature is the credential. The
  // owner and identity items, the profile; sessions by Query and ended (UpdateItem, DeleteItem);
  // the link removed; the relay address's marker; an Apple-only account deleted as the owner's
  // deletion does (PutItem: its purge marker; Query and BatchWriteItem: its purge).
  route('POST', '/api/auth/apple/notifications', 'functions/social/apple-notifications.ts', {
    auth: 'none',
    table: 'read-write',
    providers: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] },
  }),
  route('GET', '/api/users/me', 'functions/users/get-me.ts', { dynamodb: { actions: ['GetItem'] } }),
  route('PATCH', '/api/users/me', 'functions/users/update-me.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'UpdateItem'] } }),
  // The person's whole data, one bounded page at a time (issue 31).
  route('GET', '/api/users/me/export', 'functions/users/export.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('DELETE', '/api/users/me', 'functions/users/delete-me.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem'] } }),
  // The app's open in one answer: profile read (also the account check) and three Queries, in parallel.
  route('GET', '/api/users/me/summary', 'functions/users/summary.ts', { dynamodb: { actions: ['GetItem', 'Query'], indexes: ['ByCreated'] } }),
  // Each takes a code sent to the new e-mail or phone, as sign-in does.
  route('PUT', '/api/users/me/email', 'functions/users/change-email.ts', {
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  route('PUT', '/api/users/me/phone', 'functions/users/change-phone.ts', {
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  route('PUT', '/api/users/me/password', 'functions/users/change-password.ts', {
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    hashesPasswords: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  }),
  // Linking Apple, Google and WeChat from the settings (issue 38, docs/social-sign-in.md).
  route('GET', '/api/users/me/identities', 'functions/users/identities-list.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  // GetItem: the session's sign-in, the identity's owner, the spent nonce, the account's identities;
  // PutItem: the owner, the identity, the spent nonce; UpdateItem: the profile's marker.
  route('POST', '/api/users/me/identities/{provider}', 'functions/users/identities-link.ts', {
    throttle: 'strict',
    table: 'read-write',
    secret: true,
    providers: true,
    providerSecret: true,
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'] },
  }),
  // ConditionCheckItem: a passkey is still there when it is the way in the account keeps. Apple's token revoked: the provider secret.
  route('DELETE', '/api/users/me/identities/{provider}', 'functions/users/identities-unlink.ts', {
    table: 'read-write',
    secret: true,
    providers: true,
    providerSecret: true,
    // PutItem: Apple's revocation recorded with the unlink (DeleteItem: removed once Apple confirms).
    dynamodb: { actions: ['GetItem', 'Query', 'PutItem', 'DeleteItem', 'UpdateItem', 'ConditionCheckItem'] },
  }),
  route('POST', '/api/devices', 'functions/devices/bind.ts', { table: 'read-write', dynamodb: { actions: ['PutItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  route('GET', '/api/devices', 'functions/devices/list.ts', { dynamodb: { actions: ['GetItem'], indexes: ['ByCreated'] } }),
  route('DELETE', '/api/devices/{sn}', 'functions/devices/unbind.ts', { table: 'read-write', dynamodb: { actions: ['DeleteItem', 'ConditionCheckItem'] } }),
  route('GET', '/api/devices/{sn}', 'functions/devices/get.ts', { dynamodb: { actions: ['GetItem'] } }),
  // UpdateItem: also the account's change sequence on the profile, which is the account check of these writes (docs/sync.md).
  route('POST', '/api/transcriptions', 'functions/transcriptions/create.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem'] } }),
  route('GET', '/api/transcriptions', 'functions/transcriptions/list.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('GET', '/api/transcriptions/usage', 'functions/transcriptions/usage.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  // The change feed (docs/sync.md): the profile (account check and sequence head), one Query of the feed, one BatchGetItem of its records.
  route('GET', '/api/transcriptions/changes', 'functions/transcriptions/changes.ts', { dynamodb: { actions: ['GetItem', 'Query', 'BatchGetItem'] } }),
  route('GET', '/api/transcriptions/{id}', 'functions/transcriptions/get.ts', { dynamodb: { actions: ['GetItem'] } }),
  // DeleteItem: the record's previous feed entry.
  route('PATCH', '/api/transcriptions/{id}', 'functions/transcriptions/update.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] } }),
  // PutItem: the record's tombstone in its id pointer and in the feed (docs/sync.md).
  route('DELETE', '/api/transcriptions/{id}', 'functions/transcriptions/delete.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] } }),
  // The live channel (docs/realtime.md): a ticket's hash put beside the check that the caller's session lives.
  route('POST', '/api/realtime/ticket', 'functions/realtime/ticket.ts', { table: 'read-write', realtimeTickets: true, dynamodb: { actions: ['PutItem', 'ConditionCheckItem'] } }),
  route('POST', '/api/behavior/login', 'functions/behavior/record-login.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  route('GET', '/api/behavior/login', 'functions/behavior/list-logins.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('POST', '/api/behavior/events', 'functions/behavior/record-event.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  route('POST', '/api/behavior/events/batch', 'functions/behavior/record-events.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  route('GET', '/api/behavior/translation', 'functions/behavior/list-translation.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('GET', '/api/behavior/voice-provider', 'functions/behavior/list-voice-provider.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('GET', '/api/behavior/language-choice', 'functions/behavior/list-language-choice.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  route('GET', '/api/behavior/stats', 'functions/behavior/stats.ts', { dynamodb: { actions: ['GetItem', 'Query'] } }),
  // Speech sessions (issue 44, docs/speech.md): short-lived provider credentials, minutes metered by the service.
  // GetItem: the profile (account, time zone), the live set, the app's id, the day and month counters; PutItem: the
  // session and the app's id; UpdateItem: the live set. `speech`: the providers' keys and Transcribe's signing.
  route('POST', '/api/speech/sessions', 'functions/speech/start.ts', { table: 'read-write', speech: true, dynamodb: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  // UpdateItem: the session, its day and month counters and the live set in one transaction (an expired one marked so).
  route('POST', '/api/speech/sessions/{sessionId}/renew', 'functions/speech/renew.ts', { table: 'read-write', speech: true, dynamodb: { actions: ['GetItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  // Settling mints nothing: no provider's key or signing here.
  route('POST', '/api/speech/sessions/{sessionId}/end', 'functions/speech/end.ts', { table: 'read-write', dynamodb: { actions: ['GetItem', 'UpdateItem', 'ConditionCheckItem'] } }),
  route('GET', '/api/speech/quota', 'functions/speech/quota.ts', { dynamodb: { actions: ['GetItem'] } }),
  // The support team's admin API (issue 37, docs/support.md): IAM-signed, each audited (its PutItem is the audit entry,
  // append-only: infra/constructs/grants.ts denies updating or deleting one), in the managed policy `support` names.
  // The account's view: the profile, its identity or serial marker, the purge marker, login failures and usage total
  // by key; passkeys and sessions by Query; devices by ByCreated.
  route('GET', '/admin/users', 'functions/admin/find-user.ts', admin('read', ['GetItem', 'Query', 'PutItem'], ['ByCreated'])),
  // The view before and after, and one transaction on the profile (and for disable and enable its e-mail and phone markers).
  route('POST', '/admin/users/{userId}/sign-out', 'functions/admin/sign-out.ts', admin('write', ['GetItem', 'Query', 'UpdateItem', 'PutItem'], ['ByCreated'])),
  // DeleteItem: the login-failures item.
  route('POST', '/admin/users/{userId}/unlock', 'functions/admin/unlock.ts', admin('write', ['GetItem', 'Query', 'DeleteItem', 'PutItem'], ['ByCreated'])),
  route('POST', '/admin/users/{userId}/disable', 'functions/admin/disable.ts', admin('write', ['GetItem', 'Query', 'UpdateItem', 'PutItem'], ['ByCreated'])),
  route('POST', '/admin/users/{userId}/enable', 'functions/admin/enable.ts', admin('write', ['GetItem', 'Query', 'UpdateItem', 'PutItem'], ['ByCreated'])),
  // The account's own speech limits on its speech state item, conditioned on the profile in one transaction (issue 44).
  route('PUT', '/admin/users/{userId}/speech-limits', 'functions/admin/speech-limits.ts', admin('write', ['GetItem', 'Query', 'ConditionCheckItem', 'UpdateItem', 'PutItem'], ['ByCreated'])),
  // As DELETE /api/users/me (the owner's own deletion), after reading the profile.
  route('DELETE', '/admin/users/{userId}', 'functions/admin/delete-user.ts', admin('delete', ['GetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem'])),
  // The serial's owner marker read, then it and the owner's device item deleted in one transaction.
  route('DELETE', '/admin/devices/{sn}', 'functions/admin/release-device.ts', admin('write', ['GetItem', 'DeleteItem', 'PutItem'])),
  route('GET', '/admin/audit', 'functions/admin/audit.ts', admin('read', ['Query', 'PutItem'])),
] as const satisfies readonly RouteDefinition[];

/** The JWT authorizer in front of every `bearer` route. Reads token versions to honour revocation. */
export const authorizer: { entry: string; table: 'read'; dynamodb: TableAccess; secret: true } = {
  entry: 'functions/authorizer/token.ts',
  table: 'read',
  // The token version of the account, by key.
  dynamodb: { actions: ['GetItem'] },
  secret: true,
};

/**
 * The live channel's functions on AWS (docs/realtime.md, infra/constructs/realtime-area.ts): the
 * WebSocket API's `$connect` authorizer, its routes, and the fan-out on the table's stream.
 * `sends`: given execute-api:ManageConnections on the API's connections; nothing else is.
 */
export interface RealtimeFunctionDefinition {
  entry: string;
  table: 'read' | 'read-write';
  dynamodb: TableAccess;
  sends: boolean;
}

export const realtimeFunctions = {
  // The ticket spent (DeleteItem), the session checked (ConditionCheckItem), the connection put (PutItem): one transaction.
  connectAuthorizer: { entry: 'functions/realtime/connect-authorizer.ts', table: 'read-write', dynamodb: { actions: ['DeleteItem', 'ConditionCheckItem', 'PutItem'] }, sends: false },
  // $disconnect removes the connection's item; ping answers pong as the route's response.
  connection: { entry: 'functions/realtime/connection.ts', table: 'read-write', dynamodb: { actions: ['DeleteItem'] }, sends: false },
  // The account's connections (Query), its profile (GetItem), a gone or ended connection's item (DeleteItem); with the
  // silent push, the sessions with tokens (Query), a push claimed on its session or a dead token removed (UpdateItem).
  fanOut: { entry: 'functions/realtime/fan-out.ts', table: 'read-write', dynamodb: { actions: ['Query', 'GetItem', 'DeleteItem', 'UpdateItem'] }, sends: true },
} as const satisfies Record<string, RealtimeFunctionDefinition>;

/**
 * Work that runs on a schedule rather than per request; the stack gives each an EventBridge rule.
 * `schedule` is an EventBridge rate or cron expression.
 */
export interface JobDefinition {
  name: string;
  entry: string;
  schedule: string;
  table: 'read' | 'read-write';
  dynamodb: TableAccess;
  /** Seconds; jobs may run longer than requests. */
  timeoutSeconds: number;
  /** Reads the root secret (as a route's `secret`). */
  secret?: boolean;
  /** Talks to Apple, Google or WeChat (as a route's `providers`): their settings. */
  providers?: boolean;
  /** Reads Apple's private key or WeChat's app secrets (as a route's `providerSecret`). */
  providerSecret?: boolean;
}

export const jobs: readonly JobDefinition[] = [
  // Finishes account deletions whose purge was cut short (a timeout, a crash): see account-deletion.ts.
  {
    name: 'resume-account-purges',
    entry: 'functions/jobs/resume-account-purges.ts',
    schedule: 'rate(15 minutes)',
    table: 'read-write',
    // Pending purges by query, then the partition in batches and the markers one by one.
    dynamodb: { actions: ['Query', 'BatchWriteItem', 'DeleteItem'] },
    timeoutSeconds: 300,
  },
  // Revokes at Apple the tokens of deleted accounts (issue 38): see shared/identity/social/apple-revocations.ts.
  // Often, so that a deletion's revocation reaches Apple within minutes; an empty run is one Query.
  {
    name: 'revoke-apple-tokens',
    entry: 'functions/jobs/revoke-apple-tokens.ts',
    schedule: 'rate(5 minutes)',
    table: 'read-write',
    // The pending revocations by query; each removed (DeleteItem) or its failure counted (UpdateItem).
    dynamodb: { actions: ['Query', 'UpdateItem', 'DeleteItem'] },
    timeoutSeconds: 120,
    // The root secret opens the sealed tokens; Apple's key signs the client secret.
    secret: true,
    providers: true,
    providerSecret: true,
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

/** The paths a route answers at: its own and the versioned alias (only `/api/...` has one). */
export const versionedPaths = (path: string): string[] => (/^\/api(?=\/)/.test(path) ? [path, path.replace(/^\/api(?=\/)/, VERSION_PREFIX)] : [path]);

/**
 * The code endpoints (send and verify; each code costs an e-mail or an SMS): the per-client limit
 * covers every path under it and its /api/v1 alias, WAF's on AWS and the local server's locally.
 */
export const CODE_PATH_PREFIX = '/api/verify-code/';
