// The business metrics sink as the functions bundle it: @aws-lambda-powertools/metrics (and its
// commons), one Metrics object built; `firstUse` publishes one invocation's counts as EMF (the
// line is swallowed: the probe reports on stdout).
import { powertoolsMetricSink } from '../../../shared/adapters/powertools-metrics';

const sink = powertoolsMetricSink('bench');

export function firstUse(): void {
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    sink.publish([{ name: 'RecordsSaved', dimensions: {}, value: 1 }]);
  } finally {
    process.stdout.write = write;
  }
}
