import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-root';
import { authorizer, jobs, routeId, routes, versionedPaths } from '../../shared/routes';
import { COST_DOCS_FILE, COST_REPORT_FILE, costDocsSections } from '../../test/bench/cost-docs';
import type { DocumentedCostReport } from '../../test/bench/cost-docs';
import type { JobDefinition, RouteDefinition } from '../../shared/routes';

/**
 * The figures of the documents that the code determines, rendered as the generated sections hold
 * them. `npm run docs:generate` writes them; test/unit/docs-generated.test.ts compares them.
 */
export const OPENAPI_DOCUMENT_FILE = 'shared/http/openapi-document.generated.json';
/** The support team's admin API has its own document (issue 37): the app's does not list it. */
export const ADMIN_OPENAPI_DOCUMENT_FILE = 'shared/http/admin-openapi-document.generated.json';

interface OpenApiOperation {
  summary?: string;
  parameters?: { $ref?: string; name?: string }[];
}
type OpenApiDocument = { info: { description?: string }; paths: Record<string, Record<string, OpenApiOperation>> };

const readOpenApi = (): OpenApiDocument => JSON.parse(readFileSync(join(PROJECT_ROOT, OPENAPI_DOCUMENT_FILE), 'utf8')) as OpenApiDocument;
const readAdminOpenApi = (): OpenApiDocument => JSON.parse(readFileSync(join(PROJECT_ROOT, ADMIN_OPENAPI_DOCUMENT_FILE), 'utf8')) as OpenApiDocument;

/** The document's operation of a route (its paths are relative to `/api`; the admin document's are whole), if the document has it yet. */
function operationOf(document: OpenApiDocument, route: RouteDefinition): OpenApiOperation | undefined {
  return document.paths[route.path.replace(/^\/api(?=\/)/, '')]?.[route.method.toLowerCase()];
}

const takesIdempotencyKey = (operation: OpenApiOperation | undefined) =>
  (operation?.parameters ?? []).some((parameter) => parameter.name === 'Idempotency-Key' || /IdempotencyKey$/.test(parameter.$ref ?? ''));

/** The auth column: a lock for a session's Bearer token, nothing for a public route, any other kind by its name. */
const authMark = (auth: string) => (auth === 'bearer' ? '🔒' : auth === 'none' ? '' : `\`${auth}\``);

/** docs/api.md: every operation of the route table, with its summary from the OpenAPI document. */
export function routesSection(document: OpenApiDocument = readOpenApi(), adminDocument: OpenApiDocument = readAdminOpenApi()): string {
  const row = (route: RouteDefinition) => {
    const operation = operationOf(route.auth === 'iam' ? adminDocument : document, route);
    const notes = [route.throttle === 'strict' ? 'strict' : '', takesIdempotencyKey(operation) ? '`Idempotency-Key`' : ''].filter(Boolean).join(', ');
    return `| ${route.method} | \`${route.path}\` | ${authMark(route.auth)} | ${operation?.summary ?? '(not in the OpenAPI document yet: npm run generate:openapi)'} | ${notes} |`;
  };
  const app = routes.filter((route: RouteDefinition) => route.auth !== 'iam');
  const admin = routes.filter((route: RouteDefinition) => route.auth === 'iam');
  const header = ['| method | path | auth | what | notes |', '|---|---|---|---|---|'];
  return [
    `${app.length} operations; each also answers at \`${versionedPaths('/api/…')[1]}\`.`,
    '',
    ...header,
    ...app.map(row),
    ...(admin.length === 0
      ? []
      : [
          '',
          `And ${plural(admin.length, 'operation')} of the support team's admin API, IAM-signed (\`iam\`), without an alias, in a document of its own (\`${ADMIN_OPENAPI_DOCUMENT_FILE}\`), not in the app's reference ([support](support.md)):`,
          '',
          ...header,
          ...admin.map(row),
        ]),
    '',
  ].join('\n');
}

/** docs/api.md: the error table of the OpenAPI document's description (one row per `error` name of shared/errors.ts). */
export function errorsSection(document: OpenApiDocument = readOpenApi()): string {
  const lines = (document.info.description ?? '').split('\n');
  const start = lines.findIndex((line) => line.startsWith('| HTTP | code | error |'));
  if (start < 0) throw new Error(`${OPENAPI_DOCUMENT_FILE} has no error table in info.description`);
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return `${lines.slice(start, end < 0 ? undefined : end).join('\n')}\n`;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** Every Lambda function the stack deploys: one per route, the authorizer, one per job. */
export const functionCount = () => routes.length + 1 + jobs.length;

/** README.md: the sentence that names how many operations and functions there are. */
export function summarySection(): string {
  return `Today: ${plural(routes.length, 'operation')} and ${functionCount()} Lambda functions (one per operation, the authorizer, ${plural(jobs.length, 'scheduled job')}).\n`;
}

/** docs/architecture.md: the count of functions by kind. */
export function functionCountSection(): string {
  const bearer = routes.filter((route) => route.auth === 'bearer').length;
  const iam = routes.filter((route) => route.auth === 'iam').length;
  return (
    `The stack deploys ${functionCount()} Lambda functions: ${plural(routes.length, 'route')} (${bearer} behind the authorizer, ` +
    `${iam > 0 ? `${iam} IAM-signed for support, ` : ''}${routes.length - bearer - iam} public), the authorizer (\`${authorizer.entry}\`) and ${plural(jobs.length, 'scheduled job')}.\n`
  );
}

/** An EventBridge `rate(...)` or `cron(...)` expression in words, the expression beside it. */
function scheduleInWords(schedule: string): string {
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(schedule);
  if (!rate) return `\`${schedule}\``;
  const [, amount, unit] = rate;
  return `every ${amount === '1' ? unit!.replace(/s$/, '') : `${amount} ${unit}`} (\`${schedule}\`)`;
}

/** docs/architecture.md: the scheduled jobs and when they run. */
export function jobsSection(): string {
  return [
    '| job | runs | handler | timeout | table actions |',
    '|---|---|---|---|---|',
    ...jobs.map(
      (job: JobDefinition) =>
        `| \`${job.name}\` | ${scheduleInWords(job.schedule)} | \`${job.entry}\` | ${job.timeoutSeconds} s | ${job.dynamodb.actions.join(', ')} |`,
    ),
    '',
  ].join('\n');
}

const readCostReport = (): DocumentedCostReport => JSON.parse(readFileSync(join(PROJECT_ROOT, COST_REPORT_FILE), 'utf8')) as DocumentedCostReport;

/**
 * The sections computed from the code and the committed reports (no synthesis), by file. The cost
 * page is rendered from `cost/report.json`, which `npm run cost` writes together with the page.
 */
export function codeSections(): Record<string, Record<string, string>> {
  return {
    'README.md': { summary: summarySection() },
    'docs/api.md': { routes: routesSection(), errors: errorsSection() },
    'docs/architecture.md': { 'function-count': functionCountSection(), jobs: jobsSection() },
    [COST_DOCS_FILE]: costDocsSections(readCostReport()),
  };
}

export interface StackCount {
  /** The stack's name or the nested stack's logical id. */
  name: string;
  resources: number;
}

/** docs/architecture.md: resources per synthesized template (the stack, and each nested stack). */
export function resourcesSection(stacks: readonly StackCount[]): string {
  const [main, ...nested] = stacks;
  const context = '`cdk synth -c stage=prod` with a sender address, one CORS origin and an alarm topic';
  if (nested.length === 0) return `The production stack (${context}) has **${main!.resources}** resources.\n`;
  const total = stacks.reduce((sum, stack) => sum + stack.resources, 0);
  return [
    `Resources per template of the production stack (${context}), against CloudFormation's 500 per template:`,
    '',
    '| stack | resources |',
    '|---|--:|',
    `| \`${main!.name}\` (the parent) | ${main!.resources} |`,
    ...nested.map((stack) => `| \`${stack.name}\` (nested) | ${stack.resources} |`),
    `| all together | ${total} |`,
    '',
  ].join('\n');
}

export { routeId };
