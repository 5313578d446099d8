/** Small statistics for the benchmarks: order statistics only, never means (one slow GC pause skews a mean). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Rounds for the report: ratios to 3 decimals, times to 2 (ms) or whole microseconds. */
export const round = (value: number, digits: number): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

export const ratio = (value: number, floor: number): number => round(value / floor, 3);

/**
 * The median of the ratios of samples taken next to each other (`values[i]` with `floors[i]`):
 * a load that comes and goes between pairs moves both sides of a pair, not its ratio. On the
 * two-core development machine a floor's median wanders by up to 25 % between otherwise equal
 * series of 30 imports, which the ratio of two medians passes on in full.
 */
export function pairedRatio(values: readonly number[], floors: readonly number[]): number {
  if (values.length !== floors.length) throw new Error(`unpaired samples: ${values.length} vs ${floors.length}`);
  return round(median(values.map((value, index) => value / floors[index]!)), 3);
}

/** Fisher-Yates, for measuring in an order that no periodic disturbance can line up with. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
