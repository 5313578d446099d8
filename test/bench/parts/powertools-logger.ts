// The service's logger as the functions bundle it: shared/logging/logger.ts on
// @aws-lambda-powertools/logger (and its commons); `firstUse` writes one request line (dropped:
// the probe reports on stdout).
import { createLogger, setLogSink } from '../../../shared/logging/logger';

setLogSink(() => undefined);

export function firstUse(): void {
  createLogger('info', { requestId: 'r1', route: 'GET /api/health' }, { serviceName: 'bench' }).info('request', { status: 200, durationMs: 1 });
}
