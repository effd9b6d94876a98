/**
 * Proves the observability setup against a running local stack (`npm start`): starts Debian's
 * Prometheus on a free port with deploy/prometheus/prometheus.local.yml (intervals rewritten to
 * 1 s) and deploy/prometheus/rules, then checks that
 *   1. every scrape target reports health "up" (within `targetsTimeoutMs`),
 *   2. every rule group was evaluated after that and every rule has health "ok" and no lastError,
 *   3. every Grafana panel query in deploy/grafana/dashboards runs through /api/v1/query with
 *      status "success" (template variables substituted: $__rate_interval → 1m, $job → a job
 *      Prometheus scrapes, the datasource variable ignored).
 * Prometheus is stopped and its temporary directory removed at the end.
 *
 *   npx tsx scripts/prometheus-check.ts [--prometheus /usr/bin/prometheus] [--job auth] [--timeout 60]
 *
 * Prints a report (targets up N/N, rules ok N/N, dashboard queries ok N/N); exit 1 on any failure,
 * 2 on bad arguments. docs/observability.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '@tradewind/dev';
import { PATHS, REPO_ROOT, readDashboards, readRules, readYaml, substituteVariables } from './lib/observability.js';

/** The Prometheus binary Debian's `prometheus` package installs. */
export const DEFAULT_PROMETHEUS = '/usr/bin/prometheus';
/** How long every target has to report "up", ms. */
export const TARGETS_UP_TIMEOUT_MS = 60_000;
/** How long a rule evaluation may take to show up after the targets are up, ms. */
export const RULE_EVALUATION_TIMEOUT_MS = 30_000;
/** How long Prometheus may take to answer /-/ready, ms. */
export const PROMETHEUS_READY_TIMEOUT_MS = 30_000;

/** Options of {@link checkPrometheus}. */
export interface PrometheusCheckOptions {
  /** Prometheus binary (default {@link DEFAULT_PROMETHEUS}, or env PROMETHEUS_BIN). */
  prometheus?: string;
  /** Repository root holding deploy/ (default: this checkout). */
  root?: string;
  /** Job substituted for the dashboards' `$job` (default: auth when scraped, else the first job). */
  job?: string;
  /** Ms every target has to report "up" (default {@link TARGETS_UP_TIMEOUT_MS}). */
  targetsTimeoutMs?: number;
  /** Ms to wait for the rule evaluation after that (default {@link RULE_EVALUATION_TIMEOUT_MS}). */
  rulesTimeoutMs?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** One scrape target as Prometheus reports it. */
export interface TargetResult {
  job: string;
  instance: string;
  health: string;
  lastError: string;
}

/** One rule as Prometheus reports it after evaluating it. */
export interface RuleResult {
  group: string;
  name: string;
  type: 'alerting' | 'recording';
  health: string;
  lastError: string;
  /** Alerting rules: inactive, pending or firing. */
  state: string | undefined;
}

/** One dashboard panel query run through /api/v1/query. */
export interface QueryResult {
  dashboard: string;
  panel: string;
  refId: string;
  /** The query as sent (variables substituted). */
  expr: string;
  ok: boolean;
  error: string | undefined;
  /** Series (or 1 for a scalar) in the answer. */
  series: number;
}

/** What {@link checkPrometheus} found. `ok` is true when `failures` is empty. */
export interface PrometheusCheckReport {
  ok: boolean;
  prometheusVersion: string;
  job: string;
  targets: TargetResult[];
  rules: RuleResult[];
  queries: QueryResult[];
  /** One line per failed check. */
  failures: string[];
}

/** The Prometheus binary is not there; the message says how to install it. */
export class PrometheusNotFoundError extends Error {
  constructor(readonly path: string) {
    super(`prometheus binary not found at ${path}: apt-get install prometheus (Debian's package), or pass --prometheus <path> / set PROMETHEUS_BIN`);
    this.name = 'PrometheusNotFoundError';
  }
}

/** Prometheus exited or did not become ready; `log` is the end of its output. */
export class PrometheusStartError extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(`${message}\n${log}`);
    this.name = 'PrometheusStartError';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ApiResponse<T> {
  status: 'success' | 'error';
  data: T;
  error?: string;
  errorType?: string;
}

/** The local config with every interval set to 1 s; fails when the file no longer has them. */
export function rewriteIntervals(config: string): string {
  let count = 0;
  const out = config.replace(/^(\s*(?:scrape_interval|scrape_timeout|evaluation_interval):\s*)\S+/gm, (_m, key: string) => {
    count += 1;
    return `${key}1s`;
  });
  if (!/^global:\s*$/m.test(config) || count < 3)
    throw new Error(`${PATHS.prometheusLocalConfig}: expected global scrape_interval, scrape_timeout and evaluation_interval to rewrite`);
  return out;
}

/**
 * Runs the check against the stack listening on the local admin ports (9301–9307).
 * @returns the report; failures of the stack are in it, not thrown.
 * @throws PrometheusNotFoundError when the binary is missing; PrometheusStartError when Prometheus
 *   rejects the config or does not become ready.
 */
export async function checkPrometheus(options: PrometheusCheckOptions = {}): Promise<PrometheusCheckReport> {
  const root = options.root ?? REPO_ROOT;
  const bin = options.prometheus ?? process.env.PROMETHEUS_BIN ?? DEFAULT_PROMETHEUS;
  const log = options.log ?? (() => undefined);
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new PrometheusNotFoundError(bin);
  }

  const dir = mkdtempSync(join(tmpdir(), 'tw-prometheus-'));
  let proc: ChildProcess | undefined;
  try {
    // The config's `rule_files: [rules/*.yml]` is relative to the config file: copy the rules beside it.
    writeFileSync(join(dir, 'prometheus.yml'), rewriteIntervals(readFileSync(join(root, PATHS.prometheusLocalConfig), 'utf8')));
    cpSync(join(root, PATHS.rulesDir), join(dir, 'rules'), { recursive: true });
    const expectedTargets = countStaticTargets(root);
    const expectedRules = readRules(root);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let output = '';
    proc = spawn(
      bin,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1h',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    proc.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    const exited = new Promise<number | null>((ok) => proc!.once('exit', (code) => ok(code)));
    proc.once('error', () => undefined);

    const api = async <T>(path: string): Promise<ApiResponse<T>> => {
      const res = await fetch(`${base}${path}`);
      return (await res.json()) as ApiResponse<T>;
    };

    const readyBy = Date.now() + PROMETHEUS_READY_TIMEOUT_MS;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new PrometheusStartError(`prometheus exited (${proc.exitCode ?? proc.signalCode}) before it was ready`, output.slice(-3000));
      if (Date.now() > readyBy)
        throw new PrometheusStartError(`prometheus not ready within ${PROMETHEUS_READY_TIMEOUT_MS} ms (PROMETHEUS_READY_TIMEOUT_MS)`, output.slice(-3000));
      try {
        if ((await fetch(`${base}/-/ready`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    const build = await api<{ version: string }>('/api/v1/status/buildinfo');
    const prometheusVersion = build.data.version;
    log(`prometheus ${prometheusVersion} on ${base}, ${PATHS.prometheusLocalConfig} with 1 s intervals`);

    const failures: string[] = [];

    // 1. Targets.
    const targetsTimeoutMs = options.targetsTimeoutMs ?? TARGETS_UP_TIMEOUT_MS;
    let targets: TargetResult[] = [];
    const targetsBy = Date.now() + targetsTimeoutMs;
    for (;;) {
      const res = await api<{ activeTargets: Array<{ labels: Record<string, string>; health: string; lastError: string }> }>('/api/v1/targets?state=active');
      targets = res.data.activeTargets
        .map((t) => ({ job: t.labels.job ?? '', instance: t.labels.instance ?? '', health: t.health, lastError: t.lastError }))
        .sort((a, b) => a.job.localeCompare(b.job));
      if (targets.length === expectedTargets && targets.every((t) => t.health === 'up')) break;
      if (Date.now() > targetsBy) {
        if (targets.length !== expectedTargets) failures.push(`targets: ${targets.length} active, the config lists ${expectedTargets}`);
        for (const t of targets.filter((x) => x.health !== 'up')) {
          failures.push(
            `target ${t.job} ${t.instance} is ${t.health} after ${targetsTimeoutMs} ms (TARGETS_UP_TIMEOUT_MS)${t.lastError ? `: ${t.lastError}` : ''}`,
          );
        }
        break;
      }
      await sleep(250);
    }
    const upAt = Date.now();
    log(`targets up ${targets.filter((t) => t.health === 'up').length}/${targets.length}`);

    // 2. Rules: wait for an evaluation that started after the targets were up.
    const rulesTimeoutMs = options.rulesTimeoutMs ?? RULE_EVALUATION_TIMEOUT_MS;
    type ApiRule = { name: string; type: 'alerting' | 'recording'; health: string; lastError?: string; state?: string; lastEvaluation: string };
    let rules: RuleResult[] = [];
    const rulesBy = Date.now() + rulesTimeoutMs;
    for (;;) {
      const res = await api<{ groups: Array<{ name: string; rules: ApiRule[] }> }>('/api/v1/rules');
      const all = res.data.groups.flatMap((g) => g.rules.map((r) => ({ group: g.name, rule: r })));
      const evaluated = all.length > 0 && all.every(({ rule }) => Date.parse(rule.lastEvaluation) > upAt);
      rules = all.map(({ group, rule }) => ({
        group,
        name: rule.name,
        type: rule.type,
        health: rule.health,
        lastError: rule.lastError ?? '',
        state: rule.state,
      }));
      if (evaluated) break;
      if (Date.now() > rulesBy) {
        failures.push(`rules: no complete evaluation within ${rulesTimeoutMs} ms after the targets were up (RULE_EVALUATION_TIMEOUT_MS)`);
        break;
      }
      await sleep(250);
    }
    if (rules.length !== expectedRules.length) {
      failures.push(`rules: Prometheus loaded ${rules.length}, ${PATHS.rulesDir}/*.yml define ${expectedRules.length}`);
    }
    for (const r of rules.filter((x) => x.health !== 'ok' || x.lastError !== '')) {
      failures.push(`rule ${r.group}/${r.name} health ${r.health}${r.lastError ? `: ${r.lastError}` : ''}`);
    }
    log(`rules ok ${rules.filter((r) => r.health === 'ok' && r.lastError === '').length}/${rules.length}`);

    // 3. Dashboard queries.
    const jobs = [...new Set(targets.map((t) => t.job))];
    const job = options.job ?? (jobs.includes('auth') ? 'auth' : (jobs[0] ?? 'auth'));
    if (!jobs.includes(job)) failures.push(`dashboards: $job=${job} is not a scraped job (${jobs.join(', ')})`);
    const queries: QueryResult[] = [];
    for (const dashboard of readDashboards(root)) {
      const vars: Record<string, string> = {};
      for (const v of dashboard.variables) if (v.type === 'datasource') vars[v.name] = '';
      if (dashboard.variables.some((v) => v.name === 'job')) vars.job = job;
      for (const panel of dashboard.panels) {
        for (const q of panel.queries) {
          const { expr, unknown } = substituteVariables(q.expr, vars);
          const where = `${dashboard.file} "${panel.title}" ${q.refId}`;
          if (unknown.length > 0) {
            queries.push({
              dashboard: dashboard.file,
              panel: panel.title,
              refId: q.refId,
              expr,
              ok: false,
              error: `unknown variables ${unknown.join(', ')}`,
              series: 0,
            });
            failures.push(`query ${where}: unknown template variables ${unknown.join(', ')}`);
            continue;
          }
          const res = await api<{ resultType: string; result: unknown[] | unknown }>(`/api/v1/query?query=${encodeURIComponent(expr)}`);
          const ok = res.status === 'success';
          const series = ok ? (Array.isArray(res.data.result) ? res.data.result.length : 1) : 0;
          queries.push({ dashboard: dashboard.file, panel: panel.title, refId: q.refId, expr, ok, error: res.error, series });
          if (!ok) failures.push(`query ${where}: ${res.errorType ?? 'error'}: ${res.error ?? ''}`);
        }
      }
    }
    log(`dashboard queries ok ${queries.filter((q) => q.ok).length}/${queries.length}`);

    return { ok: failures.length === 0, prometheusVersion, job, targets, rules, queries, failures };
  } finally {
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const done = new Promise((ok) => proc!.once('exit', ok));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc!.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Static targets in the local config (its scrape_configs' static_configs). */
function countStaticTargets(root: string): number {
  const config = readYaml(root, PATHS.prometheusLocalConfig) as { scrape_configs?: Array<{ static_configs?: Array<{ targets?: unknown[] }> }> };
  return (config.scrape_configs ?? []).reduce((n, sc) => n + (sc.static_configs ?? []).reduce((m, s) => m + (s.targets?.length ?? 0), 0), 0);
}

/** The report as text: the three totals, then every failure, then firing alerts and empty queries. */
export function formatReport(report: PrometheusCheckReport): string {
  const up = report.targets.filter((t) => t.health === 'up').length;
  const rulesOk = report.rules.filter((r) => r.health === 'ok' && r.lastError === '').length;
  const queriesOk = report.queries.filter((q) => q.ok).length;
  const empty = report.queries.filter((q) => q.ok && q.series === 0);
  const active = report.rules.filter((r) => r.state === 'firing' || r.state === 'pending');
  const lines = [
    `Prometheus ${report.prometheusVersion} against the local stack (${PATHS.prometheusLocalConfig}, 1 s intervals)`,
    `targets up ${up}/${report.targets.length}: ${report.targets.map((t) => `${t.job}${t.health === 'up' ? '' : ` (${t.health})`}`).join(', ')}`,
    `rules ok ${rulesOk}/${report.rules.length} (${report.rules.filter((r) => r.type === 'alerting').length} alerts, ${report.rules.filter((r) => r.type === 'recording').length} recording rules)`,
    `dashboard queries ok ${queriesOk}/${report.queries.length} ($job=${report.job}; ${empty.length} returned no series yet)`,
  ];
  if (active.length > 0) lines.push(`alerts pending or firing locally: ${active.map((r) => `${r.name} (${r.state})`).join(', ')}`);
  if (report.failures.length > 0) lines.push('', `FAILED (${report.failures.length}):`, ...report.failures.map((f) => `  ${f}`));
  else lines.push('', 'OK');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  let values: { prometheus?: string; job?: string; timeout?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { prometheus: { type: 'string' }, job: { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(
      'usage: npx tsx scripts/prometheus-check.ts [--prometheus <binary>] [--job <job for $job>] [--timeout <seconds for targets to be up>]\n' +
        'Runs Prometheus against the running `npm start` stack and checks targets, rules and dashboard queries.\n',
    );
    return 0;
  }
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0)) {
    process.stderr.write('--timeout must be a positive number of seconds\n');
    return 2;
  }
  try {
    const report = await checkPrometheus({
      ...(values.prometheus ? { prometheus: values.prometheus } : {}),
      ...(values.job ? { job: values.job } : {}),
      ...(timeout ? { targetsTimeoutMs: timeout * 1000 } : {}),
      log: (line) => process.stderr.write(`… ${line}\n`),
    });
    process.stdout.write(`${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
