import type { MetricCount, MetricSink } from '../../shared/ports/metrics';

export interface MetricTotal {
  name: string;
  dimensions: Record<string, string>;
  value: number;
}

/**
 * Local mode's business metrics: the same counts the functions publish as EMF on AWS, summed
 * since the server started and served at `GET /dev/metrics` (EMF lines would drown the console).
 */
export class DevMetrics implements MetricSink {
  readonly #totals = new Map<string, MetricTotal>();

  publish(counts: readonly MetricCount[]): void {
    for (const { name, dimensions, value } of counts) {
      const key = JSON.stringify([name, Object.entries(dimensions).sort()]);
      const total = this.#totals.get(key);
      if (total) total.value += value;
      else this.#totals.set(key, { name, dimensions: { ...dimensions }, value });
    }
  }

  /** Every metric counted so far, by name, then dimensions. */
  summary(): MetricTotal[] {
    return [...this.#totals.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, total]) => ({ ...total, dimensions: { ...total.dimensions } }));
  }
}
