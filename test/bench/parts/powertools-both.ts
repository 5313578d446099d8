// Logger and metrics together, as every route function bundles them: they share the commons.
import { powertoolsMetricSink } from '../../../shared/adapters/powertools-metrics';
import { createLogging } from '../../../shared/logging/logger';

export function firstUse(): void {
  createLogging({ level: 'info', serviceName: 'bench', sink: () => undefined }).logger({ requestId: 'r1', route: 'GET /api/health' }).info('request', { status: 200, durationMs: 1 });
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    powertoolsMetricSink('bench').publish([{ name: 'RecordsSaved', dimensions: {}, value: 1 }]);
  } finally {
    process.stdout.write = write;
  }
}
