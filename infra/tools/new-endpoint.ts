import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { PROJECT_ROOT } from '../project-root';
import { routeId, routes } from '../../shared/routes';
import type { RouteDefinition, TableAction } from '../../shared/routes';

/**
 * `npm run new:endpoint -- 'GET /api/devices/{sn}' [options]`: the plumbing of a new route in one
 * step (issue 35), so its author writes behaviour. It writes the route line, the handler from a
 * template, a test file with the cases every route needs, and an entry in each place a route must
 * appear (test/support/route-coverage.ts lists them) that it can write; where an entry needs what
 * only the author knows (an item to read, a valid body) it writes the entry with the marker
 * `TODO(new:endpoint)`, and test/unit/route-coverage.test.ts names every marker left. Then it runs
 * the generators. docs/contributing.md explains each place.
 *
 *   --template read|write|list|public
 *                     read: GET of one item by its path parameters; list: GET of a page of the
 *                     caller's items; write: POST/PUT/PATCH/DELETE; public: `auth: 'none'`.
 *                     Default: from the method and whether the path has a parameter.
 *   --auth KIND       the route's `auth` (default bearer; none for public). A kind this tool does not
 *                     know (issue 37's iam) is written as given; add it to AUTH_KINDS below to say
 *                     how a request without credentials is refused, else its test case is a marker.
 *   --table none|read|read-write     default: read for read/list, read-write for write
 *   --actions A,B     the DynamoDB actions it issues (IAM names; default by template)
 *   --indexes I,J     secondary indexes it queries
 *   --response NAME   the response schema (shared/http/response-contract.ts; default successSchema,
 *                     required for a list)
 *   --summary TEXT    the reference's summary of the operation
 *   --handler FILE    functions/<area>/<name>.ts (default from the path and template)
 *   --calls N         calls per user a month in cost/usage-profile.json (default 0)
 *   --secret --sender --hashes-passwords --strict    the route's other needs
 *   --like 'METHOD /path'   made like that route of shared/routes.ts (issue 47): its route line's
 *                     needs for the new path, its handler and its test cases copied with the
 *                     sibling's names renamed and every line that differs in meaning marked, and
 *                     the other places as for a template (of the options above only --handler and
 *                     --calls then apply); the generators run on the copied handler, and the last
 *                     line printed is the command to run once the markers are resolved
 *   --no-generate     skip npm run generate:openapi and docs:generate
 *   --regenerate      run only those two generators (after the markers are resolved)
 *   --dry-run         print what it would write, write nothing
 *
 * After the behaviour works: `npm run cost -- --write-budget '<id>'` measures the route alone and
 * adds its capacity-budget row; `npm run cost -- --only '<id>'` its measured figures and the report.
 */

/** How a request without credentials is refused, per `auth` kind; `callerIsUser`: the caller is an account (isolation applies). */
export const AUTH_KINDS: Record<string, { unauthenticatedStatus: number; callerIsUser: boolean } | undefined> = {
  bearer: { unauthenticatedStatus: 401, callerIsUser: true },
  // The support team's /admin routes (issue 37): unsigned requests are refused by the gateway's AWS_IAM (the local server's SigV4 check).
  iam: { unauthenticatedStatus: 403, callerIsUser: false },
  none: undefined,
};

export const MARKER = `TODO(${'new:endpoint'})`;
type Template = 'read' | 'write' | 'list' | 'public';

interface Plan {
  id: string;
  method: string;
  path: string;
  params: string[];
  template: Template;
  auth: string;
  table: 'none' | 'read' | 'read-write';
  actions: string[];
  indexes: string[];
  response: string;
  summary: string;
  handler: string;
  testFile: string;
  calls: number;
  needs: { secret: boolean; sender: boolean; hashesPasswords: boolean; strict: boolean };
  /** --like: the sibling route the new one is made from. */
  like?: RouteDefinition;
}

const args = process.argv.slice(2);
const optionIn = (argv: readonly string[], name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const flag = (name: string) => args.includes(name);
const list = (value: string | undefined) => (value ? value.split(',').map((part) => part.trim()).filter(Boolean) : undefined);

const VERB: Record<string, string> = { POST: 'create', PUT: 'put', PATCH: 'update', DELETE: 'delete' };

export function planOf(argv: readonly string[]): Plan {
  const option = (name: string) => optionIn(argv, name);
  const flag = (name: string) => argv.includes(name);
  const id = argv.find((arg, at) => /^(GET|POST|PUT|PATCH|DELETE) \/(api|admin)\//.test(arg) && argv[at - 1] !== '--like');
  if (!id) throw new Error("give the route as 'METHOD /api/path', e.g. 'GET /api/devices/{sn}' (or 'METHOD /admin/path' --auth iam)");
  const [method, path] = id.split(' ') as [string, string];
  if (routes.some((route) => `${route.method} ${route.path}` === id)) throw new Error(`${id} is in shared/routes.ts already`);
  if (option('--like') !== undefined) return likePlanOf(id, option('--like')!, argv);
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const isAdminPath = path.startsWith('/admin/');
  const auth = option('--auth') ?? (isAdminPath ? 'iam' : option('--template') === 'public' ? 'none' : 'bearer');
  // The support team's API (issue 37): /admin paths and IAM signatures go together (shared/routes.ts ADMIN_PATH_PREFIX).
  if (isAdminPath !== (auth === 'iam')) throw new Error(`${id}: /admin routes, and only they, are --auth iam`);
  if (auth === 'iam' && !['GET', 'POST', 'PUT', 'DELETE'].includes(method)) throw new Error(`${id}: the admin API (and its CLI's client) takes GET, POST, PUT and DELETE`);
  // An admin read is one answer (support looks one thing up), a list only with its own paging: --template list is for /api.
  const template = (option('--template') ?? (auth === 'none' ? 'public' : method === 'GET' ? (params.length > 0 || auth === 'iam' ? 'read' : 'list') : 'write')) as Template;
  if (auth === 'iam' && !['read', 'write'].includes(template)) throw new Error(`${id}: an /admin route is --template read or write`);
  if (!['read', 'write', 'list', 'public'].includes(template)) throw new Error(`--template ${template}: read, write, list or public`);
  const table = (option('--table') ?? (template === 'write' ? 'read-write' : 'read')) as Plan['table'];
  const defaultActions: Record<Template, TableAction[]> = {
    read: ['GetItem'],
    list: ['GetItem', 'Query'],
    write: ['UpdateItem', 'ConditionCheckItem'],
    public: ['GetItem'],
  };
  // A delete removes its item, conditioned on the account (ConditionCheckItem in the same transaction).
  const fallback = method === 'DELETE' ? ['DeleteItem', 'ConditionCheckItem'] : defaultActions[template];
  const given = table === 'none' ? [] : (list(option('--actions')) ?? fallback);
  // Every admin request writes its audit entry (a PutItem) whatever it does itself.
  const actions = auth === 'iam' && !given.includes('PutItem') ? [...given, 'PutItem'] : given;
  const response = option('--response') ?? (template === 'list' ? '' : 'successSchema');
  if (!response) throw new Error('a list needs --response, the list schema it answers (e.g. deviceListSchema)');
  // An /admin route's handler is in functions/admin/, named by the whole path: /admin/users/{userId}/notes -> create-users-notes.
  const segments = isAdminPath ? ['admin', ...path.replace(/^\/admin\//, '').split('/')] : path.replace(/^\/api\//, '').split('/');
  const area = segments[0]!;
  const rest = segments.slice(1).filter((segment) => !segment.startsWith('{'));
  const verb = template === 'list' ? 'list' : method === 'GET' ? 'get' : VERB[method]!;
  const name = [verb, ...rest].join('-');
  const handler = option('--handler') ?? `functions/${area}/${name}.ts`;
  const testFile = `test/integration/${handler.replace(/^functions\//, '').replace(/\.ts$/, '').replaceAll('/', '-')}.test.ts`;
  return {
    id,
    method,
    path,
    params,
    template,
    auth,
    table: auth === 'iam' ? 'read-write' : table,
    actions,
    indexes: list(option('--indexes')) ?? [],
    response,
    summary: option('--summary') ?? `${MARKER}: what it does, in a few words`,
    handler,
    testFile,
    calls: Number(option('--calls') ?? 0),
    needs: { secret: flag('--secret'), sender: flag('--sender'), hashesPasswords: flag('--hashes-passwords'), strict: flag('--strict') },
  };
}

/**
 * --like: the plan of the sibling's needs for the new path. The template only picks which places
 * apply (a body, an item); the handler and test are the sibling's, copied.
 */
function likePlanOf(id: string, likeId: string, argv: readonly string[]): Plan {
  const like = routes.find((route) => routeId(route) === likeId);
  if (!like) throw new Error(`--like ${likeId}: no such route in shared/routes.ts`);
  const [method, path] = id.split(' ') as [string, string];
  if ((like.auth === 'iam') !== path.startsWith('/admin/')) throw new Error(`${id}: /admin routes, and only they, are like an /admin route`);
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const template: Template = like.auth === 'none' ? 'public' : method !== 'GET' ? 'write' : params.length > 0 || like.auth === 'iam' ? 'read' : 'list';
  const base = planOf([id, '--template', template, '--auth', like.auth, ...(template === 'list' ? ['--response', 'like'] : []), ...argv.filter((arg) => ['--handler', '--calls'].includes(arg)).flatMap((arg) => [arg, optionIn(argv, arg)!])]);
  return {
    ...base,
    table: like.table,
    actions: [...(like.dynamodb?.actions ?? [])],
    indexes: [...(like.dynamodb?.indexes ?? [])],
    needs: { secret: like.secret, sender: like.sender, hashesPasswords: like.hashesPasswords, strict: like.throttle === 'strict' },
    like,
  };
}

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
/** A path for a request: each parameter a template interpolation of `values`. */
const requestPath = (plan: Plan, values: string) =>
  plan.params.length === 0 ? quote(plan.path) : `\`${plan.path.replace(/\{(\w+)\}/g, (_, name: string) => `\${${values}.${name}}`)}\``;
/** A well-formed value of the scaffold's parameter schema. */
const EXAMPLE_VALUE = 'A1';
const examplePath = (plan: Plan) => quote(plan.path.replace(/\{\w+\}/g, EXAMPLE_VALUE));

export function routeLine(plan: Plan): string {
  if (plan.auth === 'iam') {
    // shared/routes.ts's `admin(support, actions, indexes)`: IAM-signed, the admin throttle, its support policy, read-write (the audit entry).
    const support = plan.method === 'GET' ? 'read' : plan.method === 'DELETE' ? 'delete' : 'write';
    const indexes = plan.indexes.length > 0 ? `, [${plan.indexes.map(quote).join(', ')}]` : '';
    return `  route(${quote(plan.method)}, ${quote(plan.path)}, ${quote(plan.handler)}, admin(${quote(support)}, [${plan.actions.map(quote).join(', ')}]${indexes})),\n`;
  }
  const needs: string[] = [];
  if (plan.auth !== 'bearer') needs.push(`auth: ${quote(plan.auth)}`);
  if (plan.needs.strict) needs.push("throttle: 'strict'");
  if (plan.table !== 'read') needs.push(`table: ${quote(plan.table)}`);
  if (plan.needs.secret) needs.push('secret: true');
  if (plan.needs.sender) needs.push('sender: true');
  if (plan.needs.hashesPasswords) needs.push('hashesPasswords: true');
  if (plan.table !== 'none') {
    const indexes = plan.indexes.length > 0 ? `, indexes: [${plan.indexes.map(quote).join(', ')}]` : '';
    needs.push(`dynamodb: { actions: [${plan.actions.map(quote).join(', ')}]${indexes} }`);
  }
  return `  route(${quote(plan.method)}, ${quote(plan.path)}, ${quote(plan.handler)}${needs.length > 0 ? `, { ${needs.join(', ')} }` : ''}),\n`;
}

/** The route line goes after the last route of its area (the first path segment), else at the end of the table. */
export function withRoute(source: string, plan: Plan): string {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => line.startsWith('export const routes = ['));
  const end = lines.findIndex((line, at) => at > start && line.startsWith('] as const'));
  if (start < 0 || end < 0) throw new Error('shared/routes.ts: no `export const routes = [ ... ] as const` found');
  const admin = plan.path.startsWith('/admin/');
  const area = admin ? `/admin/${plan.path.replace(/^\/admin\//, '').split('/')[0]}` : `/api/${plan.path.replace(/^\/api\//, '').split('/')[0]}`;
  let insertAt = end;
  for (let at = start + 1; at < end; at++) {
    const match = /^ {2}route\('\w+', '([^']+)'/.exec(lines[at]!);
    // An /admin route of a new area goes after the other /admin routes.
    if (!match || !(match[1] === area || match[1]!.startsWith(`${area}/`) || (admin && match[1]!.startsWith('/admin/') && !lines.slice(start, end).some((line) => line.includes(`'${area}/`) || line.includes(`'${area}'`))))) continue;
    // The end of this route( ... ) call: where its parentheses balance.
    let depth = 0;
    for (let line = at; line < end; line++) {
      for (const char of lines[line]!) depth += char === '(' ? 1 : char === ')' ? -1 : 0;
      if (depth === 0) {
        insertAt = line + 1;
        break;
      }
    }
  }
  lines.splice(insertAt, 0, (plan.like ? likeRouteLine(source, plan, plan.like) : routeLine(plan)).replace(/\n$/, ''));
  return lines.join('\n');
}

/** --like: the sibling's route( ... ) call as it is written (its needs, comments and all), for the new method, path and handler. */
export function likeRouteLine(source: string, plan: Plan, like: RouteDefinition): string {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  route(${quote(like.method)}, ${quote(like.path)},`));
  if (start < 0) throw new Error(`shared/routes.ts: no line route(${quote(like.method)}, ${quote(like.path)}, ...`);
  let depth = 0;
  for (let line = start; line < lines.length; line++) {
    for (const char of lines[line]!) depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (depth === 0) {
      const call = lines.slice(start, line + 1).join('\n');
      return call.replace(`route(${quote(like.method)}, ${quote(like.path)}, ${quote(like.entry)}`, `route(${quote(plan.method)}, ${quote(plan.path)}, ${quote(plan.handler)}`);
    }
  }
  throw new Error(`shared/routes.ts: the route( ... ) of ${routeId(like)} does not close`);
}

/** An import specifier of `to` from the file `from` (both relative to the project root). */
const relative = (from: string, to: string) => {
  const path = posix.relative(posix.dirname(from), to).replace(/\.ts$/, '');
  return path.startsWith('.') ? path : `./${path}`;
};

export function handlerSource(plan: Plan): string {
  const shared = (file: string) => quote(relative(plan.handler, file));
  const docs = `docs: { summary: ${quote(plan.summary)}${plan.template === 'read' || (plan.template === 'write' && plan.params.length > 0) ? ", errors: ['NOT_FOUND']" : ''} }`;
  if (plan.template === 'list') {
    return `import { listEndpoint } from ${shared('shared/http/list-endpoint.ts')};

/** ${MARKER}: what the list holds, in which order. */
export const handler = listEndpoint(${quote(plan.id)}, {
  response: ${quote(plan.response)},
  ${docs},
  // ${MARKER}: one page of the caller's items, in a service of shared/<area>/ reading through
  // a repository function of shared/db/, inside readForAccount (shared/db/account-guard.ts): a
  // deleted account's token must get 401, never its half-purged items.
  list: async () => {
    throw new Error(${quote(`${plan.id}: ${MARKER}`)});
  },
});
`;
  }
  const iam = plan.auth === 'iam';
  const wrapper = iam ? 'adminEndpoint' : 'endpoint';
  const imports = [iam ? `import { adminEndpoint } from ${shared('shared/http/admin-endpoint.ts')};` : `import { endpoint } from ${shared('shared/http/endpoint.ts')};`];
  const fields: string[] = [];
  if (plan.params.length > 0) {
    imports.unshift("import * as z from 'zod/mini';");
    const schema = `z.string().check(z.regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"'))`;
    fields.push(`  // ${MARKER}: the parameters' real schema, shared with the routes that take the same ids (e.g. shared/devices/parameters.ts).`);
    fields.push(`  params: z.object({ ${plan.params.map((name) => `${name}: ${schema}`).join(', ')} }),`);
  }
  if (iam && plan.template === 'write') {
    // Every change of the admin API takes {reason} (docs/support.md), its DELETEs included.
    imports.push(`import { adminReasonBody } from ${shared('shared/admin/schemas.ts')};`);
    fields.push(`  // ${MARKER}: {reason} (adminReasonBody), extended with what else the change takes.`);
    fields.push('  body: adminReasonBody,');
  } else if (plan.template === 'write' && plan.method !== 'DELETE') {
    if (!imports[0]!.includes('zod')) imports.unshift("import * as z from 'zod/mini';");
    fields.push(`  // ${MARKER}: the body's schema (a schemas.ts of shared/<area>/ if another route shares it).`);
    fields.push('  body: z.object({}),');
  }
  const input = [...(iam ? [] : ['caller']), ...(plan.params.length > 0 ? ['params'] : []), ...(fields.some((line) => line.startsWith('  body')) ? ['body'] : [])];
  const readNote = iam
    ? 'shared/admin/admin-service.ts: the audit entry is written by the wrapper'
    : plan.template === 'write'
      ? 'every write conditioned on the account being current (accountIsCurrent, shared/db/account-guard.ts)'
      : 'the read inside readForAccount (shared/db/account-guard.ts), so a deleted account gets 401';
  return `${imports.join('\n')}

/** ${MARKER}: what it answers; what answers 404. */
export const handler = ${wrapper}(${quote(plan.id)}, {
${fields.join('\n')}${fields.length > 0 ? '\n' : ''}  response: ${quote(plan.response)},
  ${docs},
  // ${MARKER}: call one function of a service in shared/<area>/ (${readNote}).
  run: async (_input, _ctx) => {
    // (${(plan.auth === 'none' ? input.filter((name) => name !== 'caller') : input).join(', ')}) from _input; the services take ctx.
    throw new Error(${quote(`${plan.id}: ${MARKER}`)});
  },
});
`;
}

export function testSource(plan: Plan): string {
  const support = (file: string) => quote(relative(plan.testFile, file));
  const auth = AUTH_KINDS[plan.auth];
  const known = plan.auth === 'none' || auth !== undefined;
  const isUser = auth?.callerIsUser ?? false;
  const hasItem = plan.params.length > 0;
  const paramType = `{ ${plan.params.map((name) => `${name}: string`).join('; ')} }`;
  const iam = plan.auth === 'iam';
  const body = iam
    ? plan.template === 'write'
      ? ', body: { reason: REASON }'
      : ''
    : plan.template === 'write' && plan.method !== 'DELETE'
      ? `, body: {} /* ${MARKER}: a valid body */`
      : '';
  const token = (who: string) => (plan.auth === 'none' ? '' : `, token: ${who}.token`);
  const opts = (who: string, extra = body) => (plan.auth === 'none' && !extra ? '' : `, { ${`${token(who)}${extra}`.replace(/^, /, '')} }`);
  /** A request of the route: signed as the support CLI signs (an iam route), else with `who`'s token. */
  const request = (path: string, who: string) => (iam ? `admin.call({ method: ${quote(plan.method)}, path: ${path}${body} })` : `api.request(${quote(plan.method)}, ${path}${opts(who)})`);
  const cases: string[] = [];
  cases.push(`  it(${quote(hasItem ? (iam ? 'answers 200 for an existing one' : "answers 200 for the caller's own") : 'answers 200')}, async () => {
    ${hasItem ? 'const item = await itemOf(owner);\n    ' : ''}const response = await ${request(hasItem ? requestPath(plan, 'item') : quote(plan.path), 'owner')};
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    // ${MARKER}: what the body holds, and what changed if it writes.
  });`);
  if (hasItem) {
    const malformed = `\`${plan.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === plan.params[0] ? 'not%20an%20id' : `\${item.${name}}`))}\``;
    cases.push(`  it(${quote(`answers 400 naming path.${plan.params[0]} for a malformed ${plan.params[0]}`)}, async () => {
    ${plan.params.length > 1 ? 'const item = await itemOf(owner);\n    ' : ''}const response = await ${request(malformed, 'owner')};
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.${plan.params[0]}' })] });
  });`);
  }
  if (plan.auth !== 'none') {
    const status = auth ? String(auth.unauthenticatedStatus) : `0 /* ${MARKER}: how ${plan.auth} refuses a request without credentials (add the kind to AUTH_KINDS in infra/tools/new-endpoint.ts) */`;
    cases.push(`  it(${quote(iam ? 'refuses a request without a signature' : 'refuses a request without credentials')}, async () => {
    const response = await api.request(${quote(plan.method)}, ${examplePath(plan)}${body ? `, { ${body.replace(/^, /, '')} }` : ''});
    expect(response.status).toBe(${status});
  });`);
  }
  if (hasItem && (isUser || !known)) {
    cases.push(`  it("answers 404 for an unknown ${plan.params.join(' and ')} and for another account's, which stays as it was", async () => {
    expect((await api.request(${quote(plan.method)}, ${examplePath(plan)}${opts('owner')})).status).toBe(404);
    const item = await itemOf(owner);
    const response = await api.request(${quote(plan.method)}, ${requestPath(plan, 'item')}${opts('stranger')});
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    // ${MARKER}: the owner's item is unchanged.
  });`);
  }
  // An admin route acts on an account only when its path names one (the item); else it needs none.
  const accounts = isUser || !known ? 'owner, stranger' : iam && !hasItem ? '' : 'owner';
  const adminImport = iam ? `import { adminHelpers } from ${support('test/support/admin.ts')};\n` : '';
  const adminSetup = iam
    ? `\n/** Signs as the support CLI does (SigV4 with the local admin credentials, infra/tools/admin-client.ts). */\nlet admin: ReturnType<typeof adminHelpers>;${body ? "\nconst REASON = 'Ticket 4711: test';" : ''}`
    : '';
  const accountImports = accounts ? `import { newAccount } from ${support('test/support/resources.ts')};\nimport type { Account } from ${support('test/support/resources.ts')};\n` : '';
  const accountLets = accounts ? `\nlet ${accounts.split(', ').join(': Account;\nlet ')}: Account;` : '';
  const accountSetup = accounts
    ? `\n  [${accounts}] = await Promise.all([${accounts
        .split(', ')
        .map((who) => `newAccount(api, ${quote(who)})`)
        .join(', ')}]);`
    : '';
  return `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
${adminImport}import { startLocalApi } from ${support('test/support/local-api.ts')};
import type { LocalApi } from ${support('test/support/local-api.ts')};
${accountImports}
/**
 * ${plan.id}: the cases every route needs (written by npm run new:endpoint), through the local
 * server over HTTP against DynamoDB Local. Add the behaviour's own cases here.
 */
let api: LocalApi;${accountLets}${adminSetup}
${
  hasItem
    ? `
/** ${MARKER}: make an item of \`account\` this route acts on (through the API), and return its path parameters. */
async function itemOf(account: Account): Promise<${paramType}> {
  throw new Error(\`${MARKER}: an item of account \${account.userId}\`);
}
`
    : ''
}
beforeAll(async () => {
  api = await startLocalApi();${iam ? '\n  admin = adminHelpers(api);' : ''}${accountSetup}
});
afterAll(() => api?.close());

describe(${quote(plan.id)}, () => {
${cases.join('\n\n')}
});
`;
}

/** A path's last literal segment, as words: /api/behavior/subtitle-layout -> ['subtitle', 'layout']. */
const nameWords = (path: string) => path.split('/').filter((segment) => segment && !segment.startsWith('{')).at(-1)!.split(/[-_]/).filter(Boolean);
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const STRING = /('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\\n]|\\.)*`)/;

/**
 * --like: a file of the sibling made the new route's. Identifiers that name the sibling
 * (`translation`, `newestTranslation`) are renamed (`subtitleLayout`); in strings its id and path
 * (also as /api/v1/...) become the new route's. A line whose strings still name the sibling (an
 * event type, an entity, a message), or a value written beside such a name elsewhere (its 'true'
 * and 'false'), whose path was replaced, or that holds a summary or description gets a marker
 * above it: whether it means the same for the new route only its author knows.
 */
export function likeText(text: string, plan: Plan, like: RouteDefinition): string {
  const [from, to] = [nameWords(like.path), nameWords(plan.path)];
  const same = from.join('-') === to.join('-');
  const camel = (words: string[]) => words[0]! + words.slice(1).map(capital).join('');
  const pascal = (words: string[]) => words.map(capital).join('');
  const names = new RegExp(from.map(escape).join('[-_ ]?'), 'i');
  const path = new RegExp(`${escape(like.path).replace('/api/', '/api/(v1/)?')}(?![\\w-])`, 'g');
  const strings = (line: string) => line.split(STRING).filter((_, at) => at % 2 === 1);
  // The values that go with the sibling's name: the other strings of a line that names it (not paths).
  const values = new Set(
    same ? [] : text.split('\n').flatMap((line) => (strings(line).some((part) => names.test(part)) ? strings(line).filter((part) => !names.test(part) && !part.slice(1).startsWith('/') && part.length > 2) : [])),
  );
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    let marked = /^\s*(summary|description):|docs: \{/.test(line) || strings(line).some((part) => values.has(part));
    const parts = line.split(STRING).map((part, at) => {
      if (at % 2 === 0) return same ? part : part.replaceAll(pascal(from), pascal(to)).replace(new RegExp(`(?<![\\w$])${escape(camel(from))}`, 'g'), camel(to));
      const aimed = part.replaceAll(routeId(like), plan.id).replace(path, (_, v1: string | undefined) => plan.path.replace('/api/', `/api/${v1 ?? ''}`));
      if (aimed !== part || (!same && names.test(aimed))) marked = true;
      return aimed;
    });
    if (marked && !line.trimStart().startsWith('import ')) {
      lines.push(`${/^\s*/.exec(line)![0]}// ${MARKER}: like ${routeId(like)}; make what this line means ${plan.id}'s (its path, what it reads, its words).`);
    }
    lines.push(parts.join(''));
  }
  return lines.join('\n');
}

/** The relative imports of a file moved from `from` to `to` (both relative to the project root), still pointing at the same files. */
const reimported = (text: string, from: string, to: string) =>
  text.replace(/(from |import\()'(\.{1,2}\/[^']*)'/g, (_, lead: string, specifier: string) => `${lead}${quote(relative(to, posix.join(posix.dirname(from), `${specifier}.ts`)))}`);

/**
 * --like: the sibling's test cases re-aimed at the new route. Its own test file (the scaffold's
 * name for it) whole; else, from the test file of its area that requests it most, the file's
 * set-up (what precedes its first describe) and each case that requests it. Undefined when no
 * test requests it (then the template's cases).
 */
export function likeTestSource(plan: Plan, like: RouteDefinition, root = PROJECT_ROOT): string | undefined {
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  const own = `test/integration/${like.entry.replace(/^functions\//, '').replace(/\.ts$/, '').replaceAll('/', '-')}.test.ts`;
  if (existsSync(join(root, own))) return likeText(reimported(read(own), own, plan.testFile), plan, like);
  const area = like.path.split('/')[like.auth === 'iam' ? 1 : 2]!;
  const requests = (text: string) => text.match(new RegExp(`['\`]${escape(like.path).replace('/api/', '/api/(v1/)?')}(?![\\w-])`, 'g'))?.length ?? 0;
  const [file, text] =
    readdirSync(join(root, 'test/integration'))
      .filter((name) => name.startsWith(area) && name.endsWith('.test.ts'))
      .map((name) => [`test/integration/${name}`, read(`test/integration/${name}`)] as const)
      .sort((a, b) => requests(b[1]) - requests(a[1]))[0] ?? [];
  if (!file || !text || requests(text) === 0) return undefined;
  const lines = text.split('\n');
  const firstDescribe = lines.findIndex((line) => line.startsWith('describe('));
  const cases: string[] = [];
  for (let at = firstDescribe; at < lines.length; at++) {
    if (!/^ {2}it(\.each)?\(/.test(lines[at]!)) continue;
    const end = lines.findIndex((line, index) => index > at && /^ {2}\}/.test(line));
    if (end < 0) break;
    const block = lines.slice(at, end + 1).join('\n');
    if (requests(block) > 0) cases.push(block);
    at = end;
  }
  const setUp = lines.slice(0, firstDescribe).join('\n').replace(/\n+$/, '');
  return `${likeText(reimported(setUp, file, plan.testFile), plan, like)}

/** ${plan.id}: the cases of ${file} that request ${routeId(like)}, re-aimed at it by npm run new:endpoint --like. */
describe(${quote(plan.id)}, () => {
${likeText(cases.join('\n\n'), plan, like)}
});
`;
}

/** Inserts `text` before the first line matching `anchor` in `file`'s source. */
function insertBefore(source: string, anchor: RegExp, text: string, file: string): string {
  const lines = source.split('\n');
  const at = lines.findIndex((line) => anchor.test(line));
  if (at < 0) throw new Error(`${file}: no line matching ${anchor} to insert before`);
  lines.splice(at, 0, text.replace(/\n$/, ''));
  return lines.join('\n');
}

interface Edit {
  file: string;
  what: string;
  apply(source: string): string;
}

export function editsOf(plan: Plan): Edit[] {
  const edits: Edit[] = [{ file: 'shared/routes.ts', what: 'the route line', apply: (source) => withRoute(source, plan) }];
  const hasItem = plan.params.length > 0;
  const iam = plan.auth === 'iam';
  const body = plan.template === 'write' && (plan.method !== 'DELETE' || iam);
  // The cost driver: one typical successful call. An admin call needs no credentials there (the harness calls the handler) and takes {reason}.
  const spec = [
    plan.auth === 'none' || iam ? '' : plan.auth === 'bearer' ? 'account: typical' : `/* ${MARKER}: the ${plan.auth} credentials */`,
    hasItem ? `pathParameters: { ${plan.params.map((name) => `${name}: '${MARKER}'`).join(', ')} }` : '',
    body ? (iam ? 'body: { reason: SUPPORT_REASON }' : `body: { /* ${MARKER} */ }`) : '',
  ].filter(Boolean);
  const needsMarker = hasItem || (body && !iam) || (plan.auth !== 'none' && plan.auth !== 'bearer' && !iam);
  edits.push({
    file: 'test/bench/cost-drivers.ts',
    what: 'the cost driver',
    apply: (source) =>
      insertBefore(
        source,
        /^};$/,
        `${needsMarker ? `  // ${MARKER}: the request of one typical successful call (prepare makes what it needs first, unmeasured).\n` : ''}  ${quote(plan.id)}: { prepare: async (${spec.some((part) => part.includes('typical')) ? '{ typical }' : ''}) => ({ ${spec.join(', ')} }) },\n`,
        'test/bench/cost-drivers.ts',
      ),
  });
  edits.push({
    file: 'cost/usage-profile.json',
    what: `the usage-profile entry (${plan.calls} calls)`,
    apply: (source) => {
      const profile = JSON.parse(source) as { callsPerUserPerMonth: Record<string, number> };
      profile.callsPerUserPerMonth[plan.id] = plan.calls;
      // The file's layout: one call count a line, the short objects on one line.
      return source.replace(/("callsPerUserPerMonth": \{\n)([\s\S]*?)(\n {2}\})/, (_, open: string, rows: string, close: string) => `${open}${rows},\n    ${JSON.stringify(plan.id)}: ${plan.calls}${close}`);
    },
  });
  if (plan.method === 'GET' && plan.table !== 'none' && hasItem) {
    edits.push({
      file: 'test/bench/fixtures.ts',
      what: 'the bench read fixture',
      apply: (source) =>
        source.replace(
          /(export const READ_FIXTURES[^\n]*\{\n)([\s\S]*?)(\n\};)/,
          (_, open: string, rows: string, close: string) =>
            `${open}${rows}\n  // ${MARKER}: which item of the typical account it reads.\n  ${quote(plan.id)}: () => ({ pathParameters: { ${plan.params.map((name) => `${name}: '${MARKER}'`).join(', ')} } }),${close}`,
        ),
    });
  }
  if (plan.auth === 'bearer') {
    edits.push({
      file: 'test/integration/account-deletion.test.ts',
      what: "the deleted account's 401",
      apply: (source) =>
        insertBefore(
          source,
          /^ {6}api\.request\('DELETE', '\/api\/users\/me', \{ token: account\.token \}\),$/,
          `      ${body ? `// ${MARKER}: a body it would otherwise take.\n      ` : ''}api.request(${quote(plan.method)}, ${examplePath(plan)}, { token: account.token${body ? ', body: {}' : ''} }),\n`,
          'test/integration/account-deletion.test.ts',
        ),
    });
  }
  if (plan.table !== 'none') {
    const slug = plan.id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    edits.push({
      file: 'test/integration/table-grants.test.ts',
      what: 'the table-grants flow',
      apply: (source) =>
        insertBefore(
          source,
          /^\}, 180_000\);$/,
          `  // ${plan.id}: ${MARKER}: calls that take each branch, so each declared action is issued (and nothing undeclared).
  await world(async (api) => {
    ${
      iam
        ? `expect((await signedCall(api, ${quote(plan.method)}, ${examplePath(plan)}${body ? ", { reason: 'Ticket 4711: grants' }" : ''})).status).toBe(200);`
        : `${plan.auth === 'none' ? '' : `const { token } = await signIn(api, uniqueEmail(${quote(`grants-${slug}`)}));
    `}expect((await call(api, ${quote(plan.method)}, ${examplePath(plan)}${plan.auth === 'none' ? '' : ', { token }'})).status).toBe(200);`
    }
  });
`,
          'test/integration/table-grants.test.ts',
        ),
    });
  }
  if (iam) {
    // The admin API has its own document and conformance test (test/support/route-coverage.ts 'admin conformance').
    edits.push({
      file: 'test/integration/admin-conformance.test.ts',
      what: 'the admin conformance case',
      apply: (source) =>
        insertBefore(
          source,
          /^ {2}it\('drove every operation to 200/,
          `  it(${quote(`${plan.id}: 200 and every documented error`)}, async () => {
    // ${MARKER}: drive it to 200 and to each error status its document lists (400, 403 unsigned, 404, 413, ...).
    expect((await call(${quote(plan.method)}, ${examplePath(plan)}${body ? ', { body: reason }' : ''})).status).toBe(200);
  });

`,
          'test/integration/admin-conformance.test.ts',
        ),
    });
    return edits;
  }
  edits.push({
    file: 'test/integration/openapi-conformance.test.ts',
    what: 'the conformance block',
    apply: (source) =>
      insertBefore(
        source,
        /^describe\('coverage'/,
        `describe(${quote(plan.id)}, () => {
  it('200 and every documented error', async () => {
    // ${MARKER}: drive it to 200 and to each error status its document lists (400, 401, 404, ...).
    expect((await call(${quote(plan.method)}, ${examplePath(plan)}${plan.auth === 'bearer' ? ', { token: alice.token }' : ''})).status).toBe(200);
  });
});

`,
        'test/integration/openapi-conformance.test.ts',
      ),
  });
  return edits;
}

function run(command: string, commandArgs: string[]) {
  process.stderr.write(`$ ${command} ${commandArgs.join(' ')}\n`);
  execFileSync(command, commandArgs, { cwd: PROJECT_ROOT, stdio: 'inherit' });
}

function regenerate() {
  run('npm', ['run', '--silent', 'generate:openapi']);
  run('npm', ['run', '--silent', 'docs:generate']);
}

function main() {
  if (flag('--regenerate') && !args.some((arg) => /^(GET|POST|PUT|PATCH|DELETE) \//.test(arg))) return regenerate();
  const plan = planOf(args);
  const dry = flag('--dry-run');
  const write = (file: string, text: string, what: string) => {
    process.stdout.write(`${dry ? 'would write' : 'wrote'} ${file}: ${what}\n`);
    if (dry) return;
    mkdirSync(dirname(join(PROJECT_ROOT, file)), { recursive: true });
    writeFileSync(join(PROJECT_ROOT, file), text);
  };
  for (const file of [plan.handler, plan.testFile]) if (existsSync(join(PROJECT_ROOT, file))) throw new Error(`${file} exists; name another with --handler`);
  const edited = editsOf(plan).map((edit) => {
    const source = readFileSync(join(PROJECT_ROOT, edit.file), 'utf8');
    const text = edit.apply(source);
    if (text === source) throw new Error(`${edit.file}: found no place for ${edit.what}; its layout changed: update editsOf in infra/tools/new-endpoint.ts`);
    return { ...edit, text };
  });
  if (plan.like) {
    const like = plan.like;
    write(plan.handler, likeText(reimported(readFileSync(join(PROJECT_ROOT, like.entry), 'utf8'), like.entry, plan.handler), plan, like), `the handler of ${routeId(like)}, its differences marked`);
    const cases = likeTestSource(plan, like);
    write(plan.testFile, cases ?? testSource(plan), cases ? `the cases of ${routeId(like)}, re-aimed` : 'the cases every route needs (no test requests the sibling)');
  } else {
    write(plan.handler, handlerSource(plan), `the handler (${plan.template} template)`);
    write(plan.testFile, testSource(plan), 'the cases every route needs');
  }
  for (const edit of edited) write(edit.file, edit.text, edit.what);
  if (dry) return;
  // The handler is written (a copy that works, with --like), so the generators document it now; its summary and description are final once its markers are.
  if (!flag('--no-generate')) regenerate();
  process.stdout.write(
    [
      '',
      `Next, for ${plan.id}:`,
      `  1. the behaviour: every ${MARKER} in ${plan.handler} and ${plan.testFile}, then the other markers;`,
      '     npx vitest run test/unit/route-coverage.test.ts lists each marker and each place still missing',
      `  2. npm run cost -- --write-budget ${quote(plan.id)}   (its capacity-budget row, measured alone)`,
      `  3. npm run cost -- --only ${quote(plan.id)}   (its measured figures and the priced report)`,
      // Last, the one command to run once the markers are resolved: the reference and docs then say what the new route does.
      ...(plan.like ? ['After resolving the markers, regenerate the reference and docs:', 'npm run new:endpoint -- --regenerate'] : []),
      '',
    ].join('\n'),
  );
}

if (process.argv[1]?.endsWith('new-endpoint.ts')) main();
