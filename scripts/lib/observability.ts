/**
 * Reading the observability files in deploy/: Prometheus rule files (YAML, read with
 * the `yaml` package), Grafana dashboards (JSON) and the PromQL inside both. Shared by
 * scripts/prometheus-check.ts and scripts/test/prometheus.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** A parsed YAML value. */
type YamlValue = unknown;

/** The repository root (this file is scripts/lib/observability.ts). */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** Where the files live, relative to the repository root. */
export const PATHS = {
  prometheusDir: 'deploy/prometheus',
  prometheusConfig: 'deploy/prometheus/prometheus.yml',
  prometheusLocalConfig: 'deploy/prometheus/prometheus.local.yml',
  rulesDir: 'deploy/prometheus/rules',
  ruleTestsDir: 'deploy/prometheus/tests',
  dashboardsDir: 'deploy/grafana/dashboards',
  docs: 'docs/observability.md',
} as const;

/** One alerting or recording rule as written in a rule file. */
export interface RuleDefinition {
  file: string;
  group: string;
  /** `alert` or `record` name. */
  name: string;
  kind: 'alerting' | 'recording';
  expr: string;
  /** `for` duration as written ("5m"), undefined when absent. */
  for: string | undefined;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** One panel query of a dashboard. */
export interface DashboardQuery {
  panelId: number;
  panelTitle: string;
  refId: string;
  expr: string;
}

/** A dashboard file, the fields the checks look at. */
export interface DashboardFile {
  file: string;
  uid: string;
  title: string;
  /** Template variables: name, type and (for query variables) the query text. */
  variables: Array<{ name: string; type: string; query: string | undefined }>;
  /** Every panel that is not a row, with its queries (empty when the panel has none). */
  panels: Array<{ id: number; title: string; type: string; queries: DashboardQuery[] }>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMap(v: YamlValue | undefined, where: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new Error(`${where}: expected a mapping`);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
}

/** Files in `dir` (relative to `root`) ending with `suffix`, sorted, as paths relative to `root`. */
export function listFiles(root: string, dir: string, suffix: string): string[] {
  return readdirSync(join(root, dir))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => `${dir}/${f}`);
}

/** Parses a YAML file (YAML 1.2, duplicate keys refused). @throws YAMLParseError, ENOENT */
export function readYaml(root: string, file: string): YamlValue {
  return parseYaml(readFileSync(join(root, file), 'utf8'), { uniqueKeys: true });
}

/** Every rule of every deploy/prometheus/rules/*.yml file, in file order. @throws Error on a malformed file */
export function readRules(root = REPO_ROOT): RuleDefinition[] {
  const out: RuleDefinition[] = [];
  for (const file of listFiles(root, PATHS.rulesDir, '.yml')) {
    const doc = readYaml(root, file);
    if (!isRecord(doc) || !Array.isArray(doc.groups)) throw new Error(`${file}: no groups`);
    for (const g of doc.groups) {
      if (!isRecord(g) || typeof g.name !== 'string' || !Array.isArray(g.rules)) throw new Error(`${file}: a group without name or rules`);
      for (const r of g.rules) {
        if (!isRecord(r) || typeof r.expr !== 'string') throw new Error(`${file} ${g.name}: a rule without expr`);
        const name = typeof r.alert === 'string' ? r.alert : typeof r.record === 'string' ? r.record : undefined;
        if (!name) throw new Error(`${file} ${g.name}: a rule without alert or record`);
        out.push({
          file,
          group: g.name,
          name,
          kind: typeof r.alert === 'string' ? 'alerting' : 'recording',
          expr: r.expr,
          for: typeof r.for === 'string' ? r.for : undefined,
          labels: stringMap(r.labels as YamlValue | undefined, `${file} ${name} labels`),
          annotations: stringMap(r.annotations as YamlValue | undefined, `${file} ${name} annotations`),
        });
      }
    }
  }
  return out;
}

/** Every deploy/grafana/dashboards/*.json file. @throws SyntaxError on invalid JSON */
export function readDashboards(root = REPO_ROOT): DashboardFile[] {
  return listFiles(root, PATHS.dashboardsDir, '.json').map((file) => {
    const d = JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;
    const templating = isRecord(d.templating) && Array.isArray(d.templating.list) ? d.templating.list : [];
    const variables = templating.filter(isRecord).map((v) => ({
      name: String(v.name),
      type: String(v.type),
      query: typeof v.query === 'string' ? v.query : isRecord(v.query) && typeof v.query.query === 'string' ? v.query.query : undefined,
    }));
    const panels: DashboardFile['panels'] = [];
    const walk = (list: unknown) => {
      for (const p of Array.isArray(list) ? list : []) {
        if (!isRecord(p)) continue;
        if (p.type === 'row') {
          walk(p.panels);
          continue;
        }
        const id = Number(p.id);
        const title = String(p.title ?? '');
        const queries = (Array.isArray(p.targets) ? p.targets : [])
          .filter(isRecord)
          .filter((t) => typeof t.expr === 'string' && t.expr.trim() !== '')
          .map((t) => ({ panelId: id, panelTitle: title, refId: String(t.refId ?? ''), expr: t.expr as string }));
        panels.push({ id, title, type: String(p.type), queries });
      }
    };
    walk(d.panels);
    return { file, uid: String(d.uid ?? ''), title: String(d.title ?? ''), variables, panels };
  });
}

/**
 * Replaces Grafana's template variables in a panel query with values Prometheus accepts:
 * `$__rate_interval` → 1m, `$__interval` → 15s, `$__range` → 5m, and each of `vars` (`$name`,
 * `${name}`, `[[name]]`). @returns the query and the names of variables left unreplaced.
 */
export function substituteVariables(expr: string, vars: Record<string, string>): { expr: string; unknown: string[] } {
  const all: Record<string, string> = { __rate_interval: '1m', __interval: '15s', __range: '5m', ...vars };
  const unknown: string[] = [];
  const out = expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]/g, (m, a: string | undefined, b: string | undefined, c: string | undefined) => {
    const name = (a ?? b ?? c)!;
    if (name in all) return all[name]!;
    unknown.push(name);
    return m;
  });
  return { expr: out, unknown };
}

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
  'atan2',
]);

/**
 * The metric names a PromQL query reads: bare selector names and `__name__` matchers.
 * Strings, label matchers, ranges, grouping label lists and function names are skipped.
 * @returns `names` (exact), `nameRegexes` (the `__name__=~"..."` patterns, unanchored as written).
 */
export function metricNamesIn(expr: string): { names: string[]; nameRegexes: string[] } {
  const names = new Set<string>();
  const nameRegexes: string[] = [];
  for (const m of expr.matchAll(/__name__\s*(=~|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
    const value = JSON.parse(`"${m[2]!}"`) as string;
    if (m[1] === '=') names.add(value);
    else nameRegexes.push(value);
  }
  let rest = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  rest = rest.replace(/#[^\n]*/g, ' ');
  for (const m of rest.matchAll(/(?<![\w:$.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)) {
    const [, word, call] = m;
    if (call || PROMQL_KEYWORDS.has(word!.toLowerCase())) continue;
    names.add(word!);
  }
  return { names: [...names].sort(), nameRegexes };
}

/** Splits a regex at its top-level `|` (outside groups and classes). */
export function topLevelAlternatives(regex: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < regex.length; i += 1) {
    const c = regex[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === '|' && depth === 0) {
      parts.push(regex.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(regex.slice(start));
  return parts;
}

/** The GitHub-style anchor of a Markdown heading: lower case, punctuation dropped, spaces → `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of every heading in a Markdown file. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = !fence && /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (m) anchors.add(headingAnchor(m[1]!.replace(/`/g, '')));
  }
  return anchors;
}
