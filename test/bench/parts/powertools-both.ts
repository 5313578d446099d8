// Logger and metrics together, as every route function bundles them: they share the commons.
import { powertoolsMetricSink } from '../../../shared/adapters/powertools-metrics';
import { createLogger, setLogSink } from '../../../shared/logging/logger';

setLogSink(() => undefined);

export function firstUse(): void {
  createLogger('info', { requestId: 'r1', route: 'GET /api/health' }, { serviceName: 'bench' }).info('request', { status: 200, durationMs: 1 });
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    powertoolsMetricSink('bench').publish([{ name: 'RecordsSaved', dimensions: {}, value: 1 }]);
  } finally {
    process.stdout.write = write;
  }
}
