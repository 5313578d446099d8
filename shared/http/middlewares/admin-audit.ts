import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { AppContext } from '../../context';
import { appendAuditEntry } from '../../db/audit-repository';
import type { AuditEntry } from '../../db/audit-repository';
import { ServiceUnavailableError, UnauthorizedError } from '../../errors';
import { codePointLength } from '../../fields';
import { epochSeconds } from '../../ports/clock';
import { errorToResult } from '../response';
import type { EndpointMiddleware, EndpointRequest } from './invocation';

const DAY_SECONDS = 86_400;
const USER_ID = /^[1-9]\d{0,15}$/;
const SN = /^[A-Za-z0-9._-]{1,64}$/;

/** The kind of IAM principal an ARN names: `assumed-role`, `user`, `root`, `federated-user`; `local` for the local server's admin. */
export function actorKindOf(arn: string): string {
  if (/^arn:aws:iam::000000000000:/.test(arn)) return 'local';
  const resource = /^arn:[\w-]+:(?:iam|sts)::\d{12}:([\w-]+)/.exec(arn)?.[1];
  return resource ?? 'unknown';
}

/** The caller's ARN, from the request context API Gateway fills for an AWS_IAM method. */
function actorOf(event: APIGatewayProxyEvent): string | undefined {
  const arn = event.requestContext?.identity?.userArn;
  return typeof arn === 'string' && arn.startsWith('arn:') ? arn : undefined;
}

/** The short name of an operation for its metric: `find-user`, `disable` ... (its handler file's name). */
const operationName = (entry: string) => entry.replace(/^.*\//, '').replace(/\.ts$/, '');

/** The account or serial a request acted on: its path or query, or the account its answer names. */
function targetOf(request: EndpointRequest): Pick<AuditEntry, 'userId' | 'sn'> {
  const given = { ...request.event.queryStringParameters, ...request.event.pathParameters };
  let userId = given.userId !== undefined && USER_ID.test(given.userId) ? Number(given.userId) : null;
  const sn = given.sn !== undefined && SN.test(given.sn) ? given.sn : null;
  const response = request.response as APIGatewayProxyResult | undefined;
  if (userId === null && response?.statusCode === 200) {
    try {
      const body = JSON.parse(response.body) as { userId?: unknown };
      if (Number.isSafeInteger(body.userId)) userId = body.userId as number;
    } catch {
      // Not an object naming an account: the target stays what the request named.
    }
  }
  return { userId, sn };
}

/** The reason the request gave, when it is one (1-500 characters, not blank); null otherwise. */
function reasonOf(request: EndpointRequest): string | null {
  let body: unknown = request.context.body;
  if (body === undefined && request.event.body) {
    try {
      body = JSON.parse(request.event.body);
    } catch {
      return null;
    }
  }
  const reason = (body as { reason?: unknown } | null | undefined)?.reason;
  return typeof reason === 'string' && reason.trim() !== '' && codePointLength(reason) <= 500 ? reason : null;
}

/**
 * The admin API's audit trail (issue 37): every request that reaches an `/admin` function,
 * answered or refused (400, 404 ...), appends one entry once its answer is known: the time, the
 * IAM principal that signed it, the operation, the account or serial, the reason, the status and
 * the request id; never an e-mail, a phone or a token. Outside the error mapping, so it sees the
 * status the caller gets; an entry that cannot be written turns the answer into a 503 (the
 * action is not left unrecorded as a success). Also counts the operation's metrics.
 */
export function adminAudit(app: Pick<AppContext, 'db' | 'clock' | 'config' | 'logging'>, route: { method: string; path: string; entry: string }): EndpointMiddleware {
  const operation = `${route.method} ${route.path}`;
  const name = operationName(route.entry);
  const record = async (request: EndpointRequest) => {
    const actor = actorOf(request.event);
    // Refused before the audit (no IAM principal): nothing reached the operation.
    if (!actor) return;
    const response = request.response as APIGatewayProxyResult | undefined;
    const status = response?.statusCode ?? 500;
    const now = app.clock.now();
    const entry: AuditEntry = {
      at: now.toISOString(),
      actor,
      actorKind: actorKindOf(actor),
      operation,
      ...targetOf(request),
      reason: reasonOf(request),
      status,
      requestId: request.event.requestContext?.requestId ?? request.context.awsRequestId,
    };
    const metrics = request.context.metrics;
    metrics?.count('AdminRequests', name);
    metrics?.count('AdminRequestsByActor', entry.actorKind);
    if (status === 200 && (name === 'delete-user' || name === 'disable')) metrics?.count('AdminAccountRemovals');
    try {
      await appendAuditEntry(app.db, entry, epochSeconds(now) + app.config.AUDIT_RETENTION_DAYS * DAY_SECONDS);
    } catch (error) {
      const log = request.context.log ?? app.logging.logger({ route: operation });
      log.error('audit entry not written', { errorName: (error as Error).name, status });
      request.response = errorToResult(new ServiceUnavailableError('The action could not be recorded; check its effect before repeating it.'), request.event, app.config, log);
    }
  };
  return {
    before: async ({ event }) => {
      // API Gateway's AWS_IAM (or the local server's check) names the signer; without one, nothing runs.
      if (!actorOf(event)) throw new UnauthorizedError('Unauthorized');
    },
    after: record,
    onError: record,
  };
}
