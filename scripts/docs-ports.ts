/**
 * Writes the ports table of docs/architecture.md §4 from deploy/services.json, between the two
 * marker comments, so the doc never repeats a port by hand (docs/style.md §11: generated, committed,
 * checked). scripts/test/services-manifest.test.ts fails when the table is stale.
 *
 *   npx tsx scripts/docs-ports.ts           rewrite the table
 *   npx tsx scripts/docs-ports.ts --check   exit 1 (and say so) when it is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readServicesManifest, type ServicesManifest } from '@tradewind/lib';

const ROOT = resolve(import.meta.dirname, '..');
/** The document holding the table. */
export const PORTS_DOC = resolve(ROOT, 'docs/architecture.md');
/** Line before the table. */
export const PORTS_BEGIN =
  '<!-- ports: generated from deploy/services.json by scripts/docs-ports.ts; edit the manifest, then run `npx tsx scripts/docs-ports.ts` -->';
/** Line after the table. */
export const PORTS_END = '<!-- end of generated ports -->';

/** Markdown code span (no component text holds a backtick; guarded anyway). */
const code = (text: string) => `\`${text.replace(/`/g, '')}\``;

/**
 * The ports table: one row per component in manifest order — name, kind, its ports as
 * `role port (VARIABLE)` and its health paths. Pipes in descriptions are escaped.
 */
export function renderPortsTable(manifest: ServicesManifest): string {
  const rows = Object.entries(manifest.components).map(([name, c]) => {
    const ports = Object.entries(c.ports)
      .map(([role, p]) => `${role} ${p.port}${p.env ? ` (${code(p.env)})` : ''}`)
      .join(', ');
    const health = c.health ? `${c.health.port}: ${[...new Set([c.health.liveness, c.health.readiness])].map(code).join(', ')}` : '—';
    return `| ${name} | ${c.kind} | ${ports} | ${health} | ${c.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| component | kind | ports (role port, variable) | health | what |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * `doc` with the text between {@link PORTS_BEGIN} and {@link PORTS_END} replaced by `table`.
 * @throws Error when a marker is missing, repeated or out of order.
 */
export function withPortsTable(doc: string, table: string): string {
  const begin = doc.indexOf(PORTS_BEGIN);
  const end = doc.indexOf(PORTS_END);
  if (begin < 0 || end < 0 || end < begin || doc.indexOf(PORTS_BEGIN, begin + 1) >= 0 || doc.indexOf(PORTS_END, end + 1) >= 0) {
    throw new Error(`the ports table markers must each appear once, in order:\n  ${PORTS_BEGIN}\n  ${PORTS_END}`);
  }
  return `${doc.slice(0, begin + PORTS_BEGIN.length)}\n${table}\n${doc.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(PORTS_DOC, 'utf8');
  const next = withPortsTable(doc, renderPortsTable(readServicesManifest(resolve(ROOT, 'deploy/services.json'))));
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      process.stderr.write('docs/architecture.md §4 is stale: run `npx tsx scripts/docs-ports.ts`\n');
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(PORTS_DOC, next);
    process.stdout.write('docs/architecture.md §4: ports table rewritten\n');
  }
}
