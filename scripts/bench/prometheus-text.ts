/**
 * Reading a Prometheus text exposition (a service's /metrics), for the benches, the soak and the chaos suite.
 * https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */

/** Sum of every sample of `name` (all label sets) in a Prometheus text exposition; undefined when it has none. */
export function metricSum(text: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const next = line[name.length];
    if (next !== '{' && next !== ' ') continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}

/** One cumulative histogram bucket: observations ≤ `le` (seconds for `_seconds` histograms; `Infinity` for `+Inf`). */
export interface HistogramBucket {
  readonly le: number;
  readonly count: number;
}

/**
 * The cumulative buckets of histogram `name` (its `<name>_bucket{…le="…"}` samples, summed over every other label
 * set), sorted by `le`; empty when it has none.
 */
export function histogramBuckets(text: string, name: string): HistogramBucket[] {
  const byLe = new Map<number, number>();
  const prefix = `${name}_bucket{`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const le = /(?:^|[{,])le="([^"]+)"/.exec(line.slice(name.length + 7))?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (le === undefined || !Number.isFinite(value)) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    byLe.set(bound, (byLe.get(bound) ?? 0) + value);
  }
  return [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

/**
 * The upper bound of the bucket holding quantile `q` (0 < q ≤ 1) of a cumulative histogram: at least a
 * fraction `q` of the observations were ≤ it. undefined without observations; `Infinity` when they lie past
 * the last finite bucket.
 */
export function bucketQuantile(buckets: readonly HistogramBucket[], q: number): number | undefined {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return undefined;
  return buckets.find((b) => b.count >= q * total)?.le;
}
