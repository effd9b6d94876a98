/**
 * deploy/prometheus and deploy/grafana: promtool validates both configs and the rule files and
 * runs the rule unit tests; the relabelling of Kubernetes pods is checked through promtool's
 * service discovery; every alert carries severity, summary, description and a runbook line that
 * links an existing docs/observability.md section, and has a firing and a quiet test case; the
 * dashboards have unique uids and a query in every panel; and every metric name the rules and
 * dashboards read exists in the services' source, so renaming a metric fails here.
 *
 * promtool comes from Debian's `prometheus` package (CI installs it); without it the promtool
 * tests are skipped and say so. Debian builds Prometheus without Kubernetes service discovery,
 * so the Kubernetes config is checked with file SD standing in for `kubernetes_sd_configs`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PATHS,
  REPO_ROOT,
  listFiles,
  markdownAnchors,
  metricNamesIn,
  readDashboards,
  readRules,
  readYaml,
  topLevelAlternatives,
} from '../lib/observability.js';
import { defaultPort } from '@tradewind/lib';
import { baseName, seriesNames, sourceMetricNames, type SourceMetrics } from '../lib/metric-names.js';
import { checkPrometheus, PrometheusNotFoundError, rewriteIntervals } from '../prometheus-check.js';

const root = REPO_ROOT;
const PROMTOOL = process.env.PROMTOOL ?? 'promtool';
const hasPromtool = spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' }).status === 0;
const SKIP = '(skipped: promtool not installed — apt-get install prometheus)';
const withPromtool = (name: string) => (hasPromtool ? name : `${name} ${SKIP}`);

/**
 * Metrics of the issue 9 contract that the "metrics" change adds to the services. They are
 * accepted before they appear in the source; once they do, the source check covers them too.
 */
const CONTRACT_METRICS = [
  'tradewind_ws_fanout_delivery_latency_seconds',
  'tradewind_events_consumer_pending_messages',
  'tradewind_auth_users_created_total',
  'tradewind_billing_subscription_changes_total',
];
/** Series Prometheus itself writes for every target. */
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added']);
const COMPONENTS = ['auth', 'billing', 'credential-issuer', 'ingest', 'token-price', 'web', 'ws-fanout'];

function promtool(args: string[], cwd = root): { status: number | null; out: string } {
  const r = spawnSync(PROMTOOL, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const tmp = mkdtempSync(join(tmpdir(), 'tw-promtool-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Config = { rule_files?: string[]; scrape_configs: Array<Record<string, unknown> & { job_name: string }> };

/** prometheus.yml with file SD (files in `tmp`) in place of Kubernetes SD and absolute rule paths. */
function withFileSd(): { path: string; sdFile: (job: string) => string } {
  const config = readYaml(root, PATHS.prometheusConfig) as Config;
  const sdFile = (job: string) => join(tmp, `${job}.json`);
  for (const sc of config.scrape_configs) {
    const k8s = sc.kubernetes_sd_configs as Array<{ role?: string }> | undefined;
    if (!k8s) continue;
    for (const sd of k8s) expect(['pod', 'endpoints', 'endpointslice', 'service', 'node', 'ingress']).toContain(sd.role);
    delete sc.kubernetes_sd_configs;
    sc.file_sd_configs = [{ files: [sdFile(sc.job_name)] }];
    writeFileSync(sdFile(sc.job_name), '[]');
  }
  config.rule_files = (config.rule_files ?? []).map((f) => join(root, PATHS.prometheusDir, f));
  const path = join(tmp, 'prometheus.file-sd.yml');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return { path, sdFile };
}

describe('deploy/prometheus with promtool', () => {
  it.skipIf(!hasPromtool)(
    withPromtool('when promtool checks both configs, then they are valid (the Kubernetes one with file SD in place of kubernetes_sd_configs)'),
    () => {
      const local = promtool(['check', 'config', PATHS.prometheusLocalConfig]);
      expect(local.out).toContain('is valid prometheus config file syntax');
      expect(local.status, local.out).toBe(0);

      // An upstream promtool knows kubernetes_sd_configs; Debian's build does not.
      const direct = promtool(['check', 'config', '--syntax-only', PATHS.prometheusConfig]);
      if (!direct.out.includes('field kubernetes_sd_configs not found')) expect(direct.status, direct.out).toBe(0);
      const prod = promtool(['check', 'config', withFileSd().path]);
      expect(prod.out).toContain('is valid prometheus config file syntax');
      expect(prod.status, prod.out).toBe(0);
    },
  );

  it.skipIf(!hasPromtool)(
    withPromtool(
      'when service discovery finds pods, then Tradewind pods are scraped on their prometheus.io/port as job=<component> with namespace, pod and release, and other pods are dropped',
    ),
    () => {
      const { path, sdFile } = withFileSd();
      const pod = (ip: string, port: string, labels: Record<string, string>) => ({
        targets: [`${ip.includes(':') ? `[${ip}]` : ip}:${port}`],
        labels: {
          __meta_kubernetes_namespace: 'tw',
          __meta_kubernetes_pod_ip: ip,
          __meta_kubernetes_pod_phase: 'Running',
          __meta_kubernetes_pod_label_app_kubernetes_io_name: 'tradewind',
          __meta_kubernetes_pod_label_app_kubernetes_io_instance: 'prod',
          __meta_kubernetes_pod_annotation_prometheus_io_scrape: 'true',
          __meta_kubernetes_pod_annotation_prometheus_io_path: '/metrics',
          ...labels,
        },
      });
      const wsFanout = {
        __meta_kubernetes_pod_name: 'prod-ws-fanout-1',
        __meta_kubernetes_pod_label_app_kubernetes_io_component: 'ws-fanout',
        __meta_kubernetes_pod_annotation_prometheus_io_port: '9301',
      };
      writeFileSync(
        sdFile('tradewind'),
        JSON.stringify([
          // ws-fanout declares two container ports: both rewrite to the admin port.
          pod('10.0.0.5', '9223', wsFanout),
          pod('10.0.0.5', '9301', wsFanout),
          pod('fd00::7', '8081', {
            __meta_kubernetes_pod_name: 'prod-auth-1',
            __meta_kubernetes_pod_label_app_kubernetes_io_component: 'auth',
            __meta_kubernetes_pod_annotation_prometheus_io_port: '9304',
            __meta_kubernetes_pod_annotation_prometheus_io_path: '/admin/metrics',
          }),
          pod('10.0.0.6', '80', {
            __meta_kubernetes_pod_name: 'other-1',
            __meta_kubernetes_pod_label_app_kubernetes_io_name: 'other',
            __meta_kubernetes_pod_label_app_kubernetes_io_component: 'api',
            __meta_kubernetes_pod_annotation_prometheus_io_port: '80',
          }),
          pod('10.0.0.7', '9303', {
            __meta_kubernetes_pod_name: 'prod-ingest-1',
            __meta_kubernetes_pod_label_app_kubernetes_io_component: 'ingest',
            __meta_kubernetes_pod_annotation_prometheus_io_port: '9303',
            __meta_kubernetes_pod_annotation_prometheus_io_scrape: 'false',
          }),
          pod('10.0.0.8', '9305', {
            __meta_kubernetes_pod_name: 'prod-billing-1',
            __meta_kubernetes_pod_label_app_kubernetes_io_component: 'billing',
            __meta_kubernetes_pod_annotation_prometheus_io_port: '9305',
            __meta_kubernetes_pod_phase: 'Pending',
          }),
          pod('10.0.0.9', '9306', { __meta_kubernetes_pod_name: 'prod-nocomponent-1', __meta_kubernetes_pod_annotation_prometheus_io_port: '9306' }),
        ]),
      );
      writeFileSync(
        sdFile('kube-state-metrics'),
        JSON.stringify([
          {
            targets: ['10.0.1.1:8080'],
            labels: { __meta_kubernetes_service_label_app_kubernetes_io_name: 'kube-state-metrics', __meta_kubernetes_endpoint_port_name: 'http' },
          },
          {
            targets: ['10.0.1.1:8081'],
            labels: { __meta_kubernetes_service_label_app_kubernetes_io_name: 'kube-state-metrics', __meta_kubernetes_endpoint_port_name: 'telemetry' },
          },
          {
            targets: ['10.0.1.2:8080'],
            labels: { __meta_kubernetes_service_label_app_kubernetes_io_name: 'something-else', __meta_kubernetes_endpoint_port_name: 'http' },
          },
        ]),
      );
      const discover = (job: string) => {
        // promtool waits the whole timeout; file SD has answered long before.
        const r = spawnSync(PROMTOOL, ['check', 'service-discovery', '--timeout=2s', path, job], { encoding: 'utf8', timeout: 30_000 });
        expect(r.status, r.stderr).toBe(0);
        const json = r.stdout;
        const kept = (JSON.parse(json) as Array<{ labels: Record<string, string> }>).map((t) => t.labels).filter((l) => Object.keys(l).length > 0);
        const unique = new Map(
          kept.map((l) => [
            JSON.stringify(
              Object.entries(l)
                .filter(([k]) => !k.startsWith('__scrape'))
                .sort(),
            ),
            l,
          ]),
        );
        return [...unique.values()]
          .map((l) => ({ job: l.job, address: l.__address__, path: l.__metrics_path__, namespace: l.namespace, pod: l.pod, release: l.release }))
          .sort((a, b) => String(a.job).localeCompare(String(b.job)));
      };
      expect(discover('tradewind')).toEqual([
        { job: 'auth', address: '[fd00::7]:9304', path: '/admin/metrics', namespace: 'tw', pod: 'prod-auth-1', release: 'prod' },
        { job: 'ws-fanout', address: '10.0.0.5:9301', path: '/metrics', namespace: 'tw', pod: 'prod-ws-fanout-1', release: 'prod' },
      ]);
      expect(discover('kube-state-metrics')).toEqual([
        { job: 'kube-state-metrics', address: '10.0.1.1:8080', path: '/metrics', namespace: undefined, pod: undefined, release: undefined },
      ]);
    },
  );

  it.skipIf(!hasPromtool)(withPromtool('when promtool checks the rule files, then each is valid and holds as many rules as the files define'), () => {
    const files = listFiles(root, PATHS.rulesDir, '.yml');
    expect(files.length).toBeGreaterThanOrEqual(4);
    const r = promtool(['check', 'rules', ...files]);
    expect(r.status, r.out).toBe(0);
    const rules = readRules(root);
    for (const file of files) {
      const m = new RegExp(`Checking ${file.replace(/[.*]/g, '\\$&')}\\s+SUCCESS: (\\d+) rules found`).exec(r.out);
      expect(m, `promtool output for ${file}:\n${r.out}`).not.toBeNull();
      expect(Number(m![1]), file).toBe(rules.filter((x) => x.file === file).length);
    }
  });

  it.skipIf(!hasPromtool)(withPromtool('when promtool runs the rule unit tests, then every test passes'), () => {
    const files = listFiles(root, PATHS.ruleTestsDir, '.yml');
    const r = promtool(['test', 'rules', ...files]);
    expect(r.status, r.out).toBe(0);
    expect(r.out.match(/SUCCESS/g)?.length).toBe(files.length);
  });
});

describe('deploy/prometheus rules', () => {
  const rules = readRules(root);
  const alerts = rules.filter((r) => r.kind === 'alerting');
  const docs = readFileSync(join(root, PATHS.docs), 'utf8');

  it('when the rules are read, then alert names are unique and every required alert exists', () => {
    const names = alerts.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'TradewindIngestBehindChain',
        'TradewindIngestSlotLag',
        'TradewindNoTradesPublished',
        'TradewindWsSlowConsumerDisconnects',
        'TradewindWsConnectionLimitRefusals',
        'TradewindTokenPriceConsumerBacklog',
        'TradewindEventsConsumerBacklog',
        'TradewindOutboxNotDraining',
        'TradewindOutboxPublishFailures',
        'TradewindStripeWebhookInvalidSignatures',
        'TradewindStripeWebhookErrors',
        'TradewindHttp5xxRate',
        'TradewindPodRestarting',
        'TradewindTargetDown',
      ]),
    );
  });

  it('when an alert is read, then it has severity critical|warning, a summary, a description and one runbook line linking its docs/observability.md section', () => {
    const anchors = markdownAnchors(docs);
    for (const a of alerts) {
      expect(['critical', 'warning'], a.name).toContain(a.labels.severity);
      expect(a.annotations.summary, a.name).toBeTruthy();
      expect(a.annotations.description, a.name).toBeTruthy();
      const runbook = a.annotations.runbook ?? '';
      expect(runbook, a.name).not.toContain('\n');
      const link = /docs\/observability\.md#([a-z0-9-]+)$/.exec(runbook);
      expect(link, `${a.name} runbook ends with docs/observability.md#<anchor>`).not.toBeNull();
      expect(link![1], a.name).toBe(a.name.toLowerCase());
      expect(anchors.has(link![1]!), `docs/observability.md has a "${a.name}" heading`).toBe(true);
      expect(runbook.length, `${a.name} runbook says what to check and do`).toBeGreaterThan(60);
    }
  });

  it('when the promtool tests are read, then every alert has a firing case and a quiet case and every rule file is tested', () => {
    const cases = new Map<string, { firing: number; quiet: number }>();
    const tested = new Set<string>();
    for (const file of listFiles(root, PATHS.ruleTestsDir, '.yml')) {
      const doc = readYaml(root, file) as {
        rule_files: string[];
        tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] | null }> }>;
      };
      for (const rf of doc.rule_files) tested.add(join(PATHS.ruleTestsDir, rf));
      for (const t of doc.tests) {
        for (const c of t.alert_rule_test ?? []) {
          const entry = cases.get(c.alertname) ?? { firing: 0, quiet: 0 };
          if ((c.exp_alerts ?? []).length > 0) entry.firing += 1;
          else entry.quiet += 1;
          cases.set(c.alertname, entry);
        }
      }
    }
    for (const file of listFiles(root, PATHS.rulesDir, '.yml')) expect([...tested], `${file} has a promtool test file`).toContain(file);
    const missing = alerts
      .filter((a) => !(cases.get(a.name)?.firing && cases.get(a.name)?.quiet))
      .map((a) => `${a.name} ${JSON.stringify(cases.get(a.name) ?? {})}`);
    expect(missing, 'alerts without both a firing and a quiet case').toEqual([]);
    const unknown = [...cases.keys()].filter((n) => !alerts.some((a) => a.name === n));
    expect(unknown, 'test cases for alerts that do not exist').toEqual([]);
  });

  it('when the local config is read, then it scrapes every component as its own job on its npm start admin port', () => {
    const config = readYaml(root, PATHS.prometheusLocalConfig) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    // npm start's admin ports are the services manifest's (deploy/services.json).
    const ports = Object.fromEntries(COMPONENTS.map((n) => [n, String(defaultPort(n, 'admin'))]));
    expect(config.scrape_configs.map((s) => s.job_name).sort()).toEqual(COMPONENTS);
    for (const sc of config.scrape_configs)
      expect(
        sc.static_configs.flatMap((s) => s.targets),
        sc.job_name,
      ).toEqual([`127.0.0.1:${ports[sc.job_name]}`]);
    expect(config.rule_files).toEqual(['rules/*.yml']);
    expect((readYaml(root, PATHS.prometheusConfig) as Config).rule_files).toEqual(['rules/*.yml']);
  });
});

describe('deploy/grafana dashboards', () => {
  const dashboards = readDashboards(root);

  it('when the dashboards are read, then uids are unique, the datasource is a variable, and every panel has a PromQL query on it', () => {
    expect(dashboards.map((d) => d.file.split('/').pop()).sort()).toEqual(['business.json', 'services-red.json', 'stream.json']);
    const uids = dashboards.map((d) => d.uid);
    expect(uids.every((u) => /^[a-z0-9-]{1,40}$/.test(u))).toBe(true);
    expect(new Set(uids).size).toBe(uids.length);
    for (const d of dashboards) {
      const raw = JSON.parse(readFileSync(join(root, d.file), 'utf8')) as { schemaVersion: number; panels: unknown[] };
      expect(raw.schemaVersion, d.file).toBeGreaterThanOrEqual(36);
      expect(
        d.variables.find((v) => v.name === 'datasource'),
        d.file,
      ).toMatchObject({ type: 'datasource', query: 'prometheus' });
      expect(d.panels.length, d.file).toBeGreaterThan(5);
      for (const p of d.panels) expect(p.queries.length, `${d.file} panel "${p.title}" has a query`).toBeGreaterThan(0);
      // Every panel and target reads the variable, never a fixed data source uid.
      const datasources = [...JSON.stringify(raw.panels).matchAll(/"datasource":\{"type":"(\w+)","uid":"([^"]*)"\}/g)].map((m) => `${m[1]}:${m[2]}`);
      expect(new Set(datasources), d.file).toEqual(new Set(['prometheus:${datasource}']));
      const ids = d.panels.map((p) => p.id);
      expect(new Set(ids).size, `${d.file} panel ids`).toBe(ids.length);
    }
    const red = dashboards.find((d) => d.uid === 'tradewind-services-red')!;
    expect(red.variables.find((v) => v.name === 'job')).toMatchObject({ type: 'query' });
    expect(
      red.panels.flatMap((p) => p.queries).every((q) => /job="\$job"|\{job="\$job"/.test(q.expr)),
      'every RED query filters on $job',
    ).toBe(true);
  });
});

describe('metric names in rules and dashboards', () => {
  let source: SourceMetrics;
  beforeAll(async () => {
    source = await sourceMetricNames(root);
  });

  /** Every metric name read by a rule, a dashboard query or a dashboard variable, with where. */
  function used(): Array<{ where: string; names: string[]; nameRegexes: string[] }> {
    const out: Array<{ where: string; names: string[]; nameRegexes: string[] }> = [];
    for (const r of readRules(root)) out.push({ where: `${r.file} ${r.name}`, ...metricNamesIn(r.expr) });
    for (const d of readDashboards(root)) {
      for (const q of d.panels.flatMap((p) => p.queries)) out.push({ where: `${d.file} "${q.panelTitle}" ${q.refId}`, ...metricNamesIn(q.expr) });
      for (const v of d.variables) {
        const selector = v.query && /^label_values\((.*),\s*\w+\)$/.exec(v.query)?.[1];
        if (selector) out.push({ where: `${d.file} variable ${v.name}`, ...metricNamesIn(selector) });
      }
    }
    return out;
  }

  it('when the source is scanned, then it finds the services, their HTTP histograms and default metrics', () => {
    expect(source.registryServices).toEqual(COMPONENTS);
    expect(source.httpServices).toEqual(['auth', 'billing', 'credential-issuer', 'token-price']);
    expect(source.names).toContain('tradewind_ingest_trades_published_total');
    expect(source.names).toContain('tradewind_token_price_http_request_duration_seconds');
    expect(source.names).toContain('tradewind_ws_fanout_process_cpu_seconds_total');
  });

  it('when a rule or dashboard reads a metric, then the services expose that name (a renamed metric fails here)', () => {
    const records = new Set(
      readRules(root)
        .filter((r) => r.kind === 'recording')
        .map((r) => r.name),
    );
    const known = (name: string) => source.names.has(name) || source.names.has(baseName(name)) || CONTRACT_METRICS.includes(baseName(name));
    const allSeries = [...source.names, ...CONTRACT_METRICS].flatMap(seriesNames);
    const problems: string[] = [];
    let checked = 0;
    for (const { where, names, nameRegexes } of used()) {
      for (const name of names) {
        checked += 1;
        if (PROMETHEUS_SERIES.has(name) || name.startsWith('kube_')) continue;
        if (name.includes(':')) {
          if (!records.has(name)) problems.push(`${where}: ${name} is not recorded by any rule`);
        } else if (!known(name)) problems.push(`${where}: ${name} is not in the services' source`);
      }
      for (const regex of nameRegexes) {
        for (const alt of topLevelAlternatives(regex)) {
          checked += 1;
          const re = new RegExp(`^(?:${alt})$`);
          if (!allSeries.some((n) => re.test(n))) problems.push(`${where}: __name__=~"${alt}" matches no metric in the services' source`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('when a PromQL query is scanned, then only its metric names come out', () => {
    expect(
      metricNamesIn('sum by (job, le) (rate(foo_bucket{job="$job", le!="x"}[$__rate_interval])) / on (job) group_left (x) bar > bool 0.5 or vector(0)'),
    ).toEqual({ names: ['bar', 'foo_bucket'], nameRegexes: [] });
    expect(metricNamesIn('max without (pod) (a:b:rate5m) and ignoring(x) {__name__=~"tradewind_.+_count|up", job="a"} unless absent(c offset 5m)')).toEqual({
      names: ['a:b:rate5m', 'c'],
      nameRegexes: ['tradewind_.+_count|up'],
    });
    expect(topLevelAlternatives('a_(x|y)_b|c[|]d|e')).toEqual(['a_(x|y)_b', 'c[|]d', 'e']);
  });
});

describe('scripts/prometheus-check.ts', () => {
  it('when the local config is rewritten, then every interval is 1 s; a config without them is refused', () => {
    const out = rewriteIntervals(readFileSync(join(root, PATHS.prometheusLocalConfig), 'utf8'));
    expect(out.match(/^\s*(scrape_interval|scrape_timeout|evaluation_interval): 1s$/gm)).toHaveLength(3);
    expect(() => rewriteIntervals('scrape_configs: []\n')).toThrow(/expected global/);
  });

  it('when the Prometheus binary is missing, then the error says to apt-get install prometheus', async () => {
    const err = await checkPrometheus({ prometheus: join(tmp, 'no-such-prometheus') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrometheusNotFoundError);
    expect((err as Error).message).toMatch(/apt-get install prometheus/);
  });
});
