// The service's logger as the functions bundle it: shared/logging/logger.ts on
// @aws-lambda-powertools/logger (and its commons); `firstUse` writes one request line (dropped:
// the probe reports on stdout).
import { createLogging } from '../../../shared/logging/logger';

export function firstUse(): void {
  createLogging({ level: 'info', serviceName: 'bench', sink: () => undefined }).logger({ requestId: 'r1', route: 'GET /api/health' }).info('request', { status: 200, durationMs: 1 });
}
