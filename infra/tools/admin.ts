import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { DEFAULT_LOCAL_ADMIN_CREDENTIALS } from '../local/sigv4-check';
import { sendAdminRequest } from './admin-client';
import type { AdminClientOptions, AdminRequest, AdminResponse } from './admin-client';
import type { components } from './admin-api.generated';

/** The answers' shapes, from the admin API's OpenAPI document (npm run generate:openapi). */
type Schemas = components['schemas'];
type AdminUser = Schemas['AdminUser'];

/**
 * The support CLI (issue 37, docs/support.md): `npm run admin -- <command> [options]`.
 * Against a stage with `--url <ApiUrl>` and the standard AWS credential chain (`--profile`, the
 * environment, SSO) through @aws-sdk/credential-providers; without `--url`, the local server with
 * the local admin credentials. Requests are signed by the SDK's signer (infra/tools/admin-client.ts).
 * Exit codes: 0 done, 1 error, 3 not found, 4 forbidden.
 */
export const EXIT = { ok: 0, error: 1, notFound: 3, forbidden: 4 } as const;

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  find (--email X | --phone X | --user N | --sn X)   one account
  sign-out --user N --reason R                        end every session of the account
  unlock --user N --reason R                          clear the password-login lock
  disable --user N --reason R                         sign out and refuse every sign-in
  enable --user N --reason R                          allow sign-in again (no old session)
  speech-limits --user N --daily S --monthly S --reason R
                                                      the account's own speech limits, in seconds
  delete --user N --reason R [--yes]                  delete the account (asks to confirm)
  release-device --sn X --reason R                    free a serial from its account
  audit (--user N | --sn X) [--limit N] [--cursor C]  the audit trail, newest first

options:
  --url <ApiUrl>     a stage (the stack's ApiUrl output); default: the local server (npm start)
  --profile <name>   AWS profile (with --url); otherwise the environment, SSO ...
  --region <region>  with --url, when the URL does not name one
  --json             print the API's answer as JSON
`;

const OPTIONS = {
  email: { type: 'string' },
  phone: { type: 'string' },
  user: { type: 'string' },
  sn: { type: 'string' },
  reason: { type: 'string' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
  url: { type: 'string' },
  profile: { type: 'string' },
  region: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  daily: { type: 'string' },
  monthly: { type: 'string' },
  help: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Asks a question on the terminal; undefined when there is none to ask. */
  ask?(question: string): Promise<string>;
  env: Record<string, string | undefined>;
}

const CHANGES = ['sign-out', 'unlock', 'disable', 'enable'] as const;

function userOf(values: Values): string {
  if (!values.user || !/^[1-9]\d{0,15}$/.test(values.user)) throw new UsageError('--user <id> is required (a positive whole number)');
  return values.user;
}

function reasonOf(values: Values): string {
  if (!values.reason || values.reason.trim() === '') throw new UsageError('--reason "<why, e.g. the ticket>" is required for every change');
  return values.reason;
}

/** The request a command makes. */
function requestOf(command: string, values: Values): AdminRequest {
  if (command === 'find') {
    const given = (['email', 'phone', 'user', 'sn'] as const).filter((name) => values[name] !== undefined);
    if (given.length !== 1) throw new UsageError('find takes exactly one of --email, --phone, --user, --sn');
    const name = given[0]!;
    return { method: 'GET', path: '/admin/users', query: { [name === 'user' ? 'userId' : name]: values[name]! } };
  }
  if ((CHANGES as readonly string[]).includes(command)) return { method: 'POST', path: `/admin/users/${userOf(values)}/${command}`, body: { reason: reasonOf(values) } };
  if (command === 'speech-limits') {
    const seconds = (name: 'daily' | 'monthly') => {
      const value = values[name];
      if (value === undefined || !/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} <seconds> is required (a whole number, 0 or more)`);
      return Number(value);
    };
    return {
      method: 'PUT',
      path: `/admin/users/${userOf(values)}/speech-limits`,
      body: { dailySeconds: seconds('daily'), monthlySeconds: seconds('monthly'), reason: reasonOf(values) },
    };
  }
  if (command === 'delete') return { method: 'DELETE', path: `/admin/users/${userOf(values)}`, body: { reason: reasonOf(values) } };
  if (command === 'release-device') {
    if (!values.sn) throw new UsageError('--sn <serial> is required');
    return { method: 'DELETE', path: `/admin/devices/${encodeURIComponent(values.sn)}`, body: { reason: reasonOf(values) } };
  }
  if (command === 'audit') {
    const query: Record<string, string> = {};
    if (values.user !== undefined) query.userId = userOf(values);
    if (values.sn !== undefined) query.sn = values.sn;
    if (Object.keys(query).length !== 1) throw new UsageError('audit takes one of --user, --sn');
    if (values.limit !== undefined) query.limit = values.limit;
    if (values.cursor !== undefined) query.cursor = values.cursor;
    return { method: 'GET', path: '/admin/audit', query };
  }
  throw new UsageError(`unknown command ${command}`);
}

/** Where to send and how to sign: a stage with the AWS credential chain, or the local server. */
export function clientOptionsOf(values: Values, env: CliIo['env']): AdminClientOptions {
  if (values.url) {
    const region = values.region ?? /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(values.url)?.[1] ?? env.AWS_REGION;
    if (!region) throw new UsageError('--region is required: the URL names none');
    return { baseUrl: values.url, region, credentials: fromNodeProviderChain(values.profile ? { profile: values.profile } : {}) };
  }
  if (values.profile) throw new UsageError('--profile goes with --url (the local server takes the local admin credentials)');
  return {
    baseUrl: `http://localhost:${env.PORT ?? 8080}`,
    region: env.AWS_REGION ?? 'us-east-1',
    credentials: {
      accessKeyId: env.LOCAL_ADMIN_ACCESS_KEY_ID ?? DEFAULT_LOCAL_ADMIN_CREDENTIALS.accessKeyId,
      secretAccessKey: env.LOCAL_ADMIN_SECRET_ACCESS_KEY ?? DEFAULT_LOCAL_ADMIN_CREDENTIALS.secretAccessKey,
    },
  };
}

const cell = (value: unknown) => (value === null || value === undefined ? '-' : String(value));

/** Rows as an aligned text table. */
export function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string[] {
  if (rows.length === 0) return ['  (none)'];
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) => `  ${values.map((value, index) => value.padEnd(widths[index]!)).join('  ')}`.trimEnd();
  return [line([...columns]), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(columns.map((column) => cell(row[column]))))];
}

/** The readable form of an answer. */
function readable(command: string, response: AdminResponse): string[] {
  if (command === 'audit') {
    const lines = table(response.body as Schemas['AdminAuditEntry'][], ['at', 'operation', 'userId', 'sn', 'status', 'actor', 'reason']);
    const next = response.headers.get('x-next-cursor');
    return next ? [...lines, `more: --cursor ${next}`] : lines;
  }
  if (command === 'delete') return [(response.body as Schemas['Success']).message];
  if (command === 'release-device') {
    const released = response.body as Schemas['AdminReleasedDevice'];
    return [`Serial ${released.sn} released from user ${released.userId}.`];
  }
  const body = response.body as AdminUser;
  const signIn = body.signIn;
  return [
    `user ${body.userId}  ${String(body.status).toUpperCase()}${body.disabledAt ? ` since ${body.disabledAt}` : ''}`,
    `  e-mail     ${cell(body.email)}`,
    `  phone      ${cell(body.phone)}`,
    `  created    ${cell(body.createdAt)}   updated ${cell(body.updatedAt)}`,
    `  time zone  ${cell(body.timeZone)}   locale ${cell(body.locale)}`,
    `  password   ${signIn.passwordSet ? 'set' : 'not set'}   failed attempts ${cell(signIn.failedAttempts)}   locked until ${cell(signIn.lockedUntil)}`,
    `  usage      ${cell(body.usage.totalSeconds)} s in total`,
    ...speechLines(body.speech),
    'passkeys',
    ...table(signIn.passkeys, ['name', 'createdAt', 'lastUsedAt']),
    'Apple, Google, WeChat',
    ...table(signIn.identities, ['provider', 'linkedAt', 'lastUsedAt']),
    'devices',
    ...table(body.devices, ['sn', 'productModel', 'createdAt']),
    'sessions',
    ...table(body.sessions, ['sessionId', 'clientName', 'createdAt', 'lastUsedAt']),
  ];
}

/** Speech seconds used today and this month against the account's limits, and whose limits they are. */
function speechLines(speech: AdminUser['speech']): string[] {
  if (!speech) return [];
  const whose = speech.ownLimits ? 'set by support' : "the deployment's";
  return [
    `  speech     today ${speech.day.date} ${speech.day.usedSeconds} of ${speech.day.limitSeconds} s   month ${speech.month.date} ${speech.month.usedSeconds} of ${speech.month.limitSeconds} s   limits ${whose}   live sessions ${speech.liveSessions}`,
  ];
}

const exitOf = (status: number) => (status === 200 ? EXIT.ok : status === 404 ? EXIT.notFound : status === 403 || status === 401 ? EXIT.forbidden : EXIT.error);

/** Runs one command; answers the exit code. */
export async function runAdminCli(argv: readonly string[], io: CliIo): Promise<number> {
  let values: Values;
  let command: string | undefined;
  try {
    const parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    values = parsed.values;
    command = parsed.positionals[0];
    if (values.help || !command) {
      io.out(USAGE);
      return values.help ? EXIT.ok : EXIT.error;
    }
    if (parsed.positionals.length > 1) throw new UsageError(`one command at a time, not ${parsed.positionals.join(' ')}`);
    const request = requestOf(command, values);
    const options = clientOptionsOf(values, io.env);
    if (command === 'delete' && !values.yes) {
      const answer = io.ask ? await io.ask(`Delete user ${values.user} and all of its data? Type the user id to confirm: `) : undefined;
      if (answer?.trim() !== values.user) {
        io.err(io.ask ? 'Not confirmed: nothing deleted.' : 'No terminal to confirm on: add --yes to delete.');
        return EXIT.error;
      }
    }
    const response = await sendAdminRequest(options, request);
    if (values.json) io.out(JSON.stringify(response.body, null, 2));
    else if (response.status === 200) for (const line of readable(command, response)) io.out(line);
    if (response.status !== 200) {
      const body = response.body as { message?: string; error?: string } | undefined;
      io.err(`${response.status} ${body?.error ?? ''}: ${body?.message ?? JSON.stringify(response.body)}`);
    }
    return exitOf(response.status);
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(error as Error).message}\n\n${USAGE}`);
      return EXIT.error;
    }
    io.err(`failed: ${(error as Error).message}`);
    return EXIT.error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const terminal = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const code = await runAdminCli(process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    ...(terminal ? { ask: (question: string) => terminal.question(question) } : {}),
    env: process.env,
  });
  terminal?.close();
  process.exit(code);
}
