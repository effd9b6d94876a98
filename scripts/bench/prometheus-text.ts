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
