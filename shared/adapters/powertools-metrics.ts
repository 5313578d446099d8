import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { METRIC_NAMESPACE } from '../ports/metrics';
import type { MetricCount, MetricSink } from '../ports/metrics';

/**
 * Business metrics as CloudWatch Embedded Metric Format lines on stdout, through Powertools: the
 * Lambda log agent turns them into metrics without an API call. `service` is the only default
 * dimension (the stack sets it per stage), so stages in one account do not mix. EMF shares one
 * dimension set per line: the metrics without a dimension go out together in one line, each
 * dimensioned metric in a line of its own (Powertools' single-metric lines).
 */
export function powertoolsMetricSink(serviceName: string): MetricSink {
  const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName });
  return {
    publish(counts: readonly MetricCount[]) {
      for (const { name, dimensions, value } of counts) {
        const entries = Object.entries(dimensions);
        if (entries.length === 0) {
          metrics.addMetric(name, MetricUnit.Count, value);
          continue;
        }
        const single = metrics.singleMetric();
        for (const [key, dimensionValue] of entries) single.addDimension(key, dimensionValue);
        single.addMetric(name, MetricUnit.Count, value);
      }
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    },
  };
}
