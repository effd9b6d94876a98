/**
 * The metric names Tradewind's processes expose, found in the source: every `tradewind_*` string
 * literal in services/ and web/server (tests excluded), each service's HTTP histogram
 * (`createHttpApp({ service })` → tradewind_<service>_http_request_duration_seconds) and Node's
 * default metrics as `createRegistry(service)` registers them. The dashboards and rules test uses
 * it so a renamed metric fails there instead of showing an empty panel in production.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRegistry } from '@tradewind/lib';

/** Source files (.ts) under `dir`, skipping tests, test helpers, generated code and node_modules. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!['node_modules', 'test', 'testing', 'gen', 'dist'].includes(entry)) out.push(...sourceFiles(path));
    } else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts') && !entry.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

/** What the source registers. */
export interface SourceMetrics {
  /** Every exact metric name (histograms by their base name). */
  names: Set<string>;
  /** Services that register an HTTP histogram through createHttpApp. */
  httpServices: string[];
  /** Services that create their registry (and default metrics) through createRegistry. */
  registryServices: string[];
}

/**
 * Scans services/*\/src and web/server under `root`.
 * @returns the names and the services found; histograms are listed by base name (no _bucket/_count/_sum).
 */
export async function sourceMetricNames(root: string): Promise<SourceMetrics> {
  const dirs = [...readdirSync(join(root, 'services')).map((s) => join(root, 'services', s, 'src')), join(root, 'web/server')].filter((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  });
  const names = new Set<string>();
  const httpServices = new Set<string>();
  const registryServices = new Set<string>();
  for (const file of dirs.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/['"`](tradewind_[a-z0-9_]+)['"`]/g)) names.add(m[1]!);
    for (const m of text.matchAll(/createHttpApp\(\{[^}]*?\bservice:\s*'([a-z-]+)'/g)) httpServices.add(m[1]!);
    for (const m of text.matchAll(/createRegistry\('([a-z-]+)'\)/g)) registryServices.add(m[1]!);
  }
  for (const service of httpServices) names.add(`tradewind_${service.replace(/-/g, '_')}_http_request_duration_seconds`);
  for (const service of registryServices) {
    const registry = createRegistry(service);
    for (const metric of await registry.getMetricsAsJSON()) names.add(metric.name);
  }
  return { names, httpServices: [...httpServices].sort(), registryServices: [...registryServices].sort() };
}

/** `name` and, for histograms and summaries, the series names Prometheus stores. */
export function seriesNames(name: string): string[] {
  return [name, `${name}_bucket`, `${name}_count`, `${name}_sum`];
}

/** `name` without a histogram/summary series suffix. */
export function baseName(name: string): string {
  return name.replace(/_(bucket|count|sum)$/, '');
}
