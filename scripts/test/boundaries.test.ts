/**
 * Import boundaries (issue 23; docs/style.md §14): dependency-cruiser runs with the
 * repository's .dependency-cruiser.cjs over services, packages, web (src, server, scripts, tests) and scripts, and
 * every violation (rule, from, to) fails the test. A second case copies the same rules onto a small
 * fixture tree with one bad import per rule, so a rule that silently stops matching fails too.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
/** The directories checked, relative to the repository root. */
const SCOPE = ['services', 'packages', 'web', 'scripts', 'dev'];

/** One rule violation as dependency-cruiser's JSON reporter gives it. */
interface Violation {
  rule: { name: string; severity: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/**
 * Runs the dependency-cruiser CLI (JSON output) in `cwd` over `paths` with `config`.
 * @throws Error when the CLI does not produce a JSON result (crash, bad config).
 */
async function cruise(cwd: string, paths: string[], config: string, env: NodeJS.ProcessEnv = {}): Promise<{ violations: Violation[]; modules: number }> {
  // The CLI exits non-zero when it finds violations; its JSON on stdout is the result either way.
  const r = await promisify(execFile)(process.execPath, [CLI, '--config', config, '--output-type', 'json', ...paths], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  }).catch((e: { stdout?: string; stderr?: string; code?: unknown }) => ({ stdout: e.stdout ?? '', stderr: `exit ${String(e.code)}: ${e.stderr ?? ''}` }));
  if (r.stdout === '') throw new Error(`dependency-cruiser gave no output: ${r.stderr}`);
  const result = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  return { violations: result.summary.violations, modules: result.summary.totalCruised };
}

/** `rule: from → to` (a cycle lists its modules), one line per violation. */
function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`).join('\n');
}

describe('import boundaries (.dependency-cruiser.cjs)', () => {
  // The two cruises of the repository (with and without the allow-list) run side by side.
  let withAllowList: Awaited<ReturnType<typeof cruise>>;
  let withoutAllowList: Awaited<ReturnType<typeof cruise>>;
  beforeAll(async () => {
    [withAllowList, withoutAllowList] = await Promise.all([cruise(ROOT, SCOPE, CONFIG), cruise(ROOT, SCOPE, CONFIG, { BOUNDARIES_NO_ALLOW_LIST: '1' })]);
  }, 120_000);

  it('when the repository is cruised, then no module breaks a boundary rule', () => {
    const { violations, modules } = withAllowList;
    // The scope really was read (a wrong path would cruise nothing and pass).
    expect(modules).toBeGreaterThan(300);
    expect(describeViolations(violations)).toBe('');
  });

  it('when the allow-list is switched off, then each entry matches a violation and nothing else appears', () => {
    const { allowList } = createRequire(import.meta.url)(CONFIG) as { allowList: { rule: string; from: string; to: string }[] };
    const { violations } = withoutAllowList;
    const matches = (a: { rule: string; from: string; to: string }, v: Violation): boolean =>
      a.rule === v.rule.name && new RegExp(a.from).test(v.from) && new RegExp(a.to).test(v.to);
    // A violation the allow-list does not name would have failed the first case.
    expect(describeViolations(violations.filter((v) => !allowList.some((a) => matches(a, v))))).toBe('');
    // An entry no violation matches any more was fixed: remove it from .dependency-cruiser.cjs.
    expect(allowList.filter((a) => !violations.some((v) => matches(a, v)))).toEqual([]);
  });

  describe('on a fixture tree with one bad import per rule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'package.json': '{"name":"fixture","private":true,"type":"module"}\n',
      'services/lib/src/index.ts': 'export const shared = 1;\n',
      'services/lib/src/plans.ts': 'export const plans = [];\n',
      'services/billing/src/index.ts': 'export const billing = 1;\n',
      // A service reaching into another service.
      'services/auth/src/app.ts': "import { billing } from '../../billing/src/index.js';\nexport const app = billing;\n",
      // A script deep-importing a service's src/.
      'scripts/tool.ts': "import { app } from '../services/auth/src/app.js';\nexport const tool = app;\n",
      // Browser code importing @tradewind/lib's Node entry.
      'web/src/page.ts': "import { shared } from '../../services/lib/src/index.js';\nexport const page = shared;\n",
      // A test-support file other workspaces may use, and an unresolvable import.
      'services/ws-fanout/test/support.ts': 'export const support = 1;\n',
      'packages/x/test/it.test.ts':
        "import { support } from '../../../services/ws-fanout/test/support.js';\nimport { gone } from './missing.js';\nexport const it = [support, gone];\n",
      // A relative import into another package (allowed by name: @tradewind/contracts/schemas/…).
      'packages/contracts/schemas/basic.bonk.schema.json': '{}\n',
      'web/src/other.ts': "import s from '../../packages/contracts/schemas/basic.bonk.schema.json';\nexport const other = s;\n",
      // Production code importing the development workspace (stand-ins, test helpers).
      'dev/src/index.ts': 'export const standIn = 1;\n',
      'services/billing/src/stand-in.ts': "import { standIn } from '../../../dev/src/index.js';\nexport const s = standIn;\n",
      // A bench importing a service's test support, even one TEST_SUPPORT lets other workspaces' tests import.
      'scripts/bench/decode.ts': "import { support } from '../../services/ws-fanout/test/support.js';\nexport const bench = support;\n",
      // A cycle.
      'packages/x/src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'packages/x/src/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }

    it('then each rule reports its bad import, and only those', async () => {
      const { violations } = await cruise(dir, ['services', 'packages', 'web/src', 'scripts', 'dev'], CONFIG);
      const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
      expect(found).toEqual(
        [
          'no-circular: packages/x/src/a.ts → packages/x/src/b.ts',
          'no-deep-import-into-service: scripts/tool.ts → services/auth/src/app.ts',
          'no-deep-import-into-service: services/auth/src/app.ts → services/billing/src/index.ts',
          'no-deep-import-into-service: web/src/page.ts → services/lib/src/index.ts',
          'no-deep-import-into-service: web/src/other.ts → packages/contracts/schemas/basic.bonk.schema.json',
          'no-service-to-other-service: services/auth/src/app.ts → services/billing/src/index.ts',
          'no-service-to-other-service: services/billing/src/stand-in.ts → dev/src/index.ts',
          'no-deep-import-into-service: services/billing/src/stand-in.ts → dev/src/index.ts',
          'no-dev-in-production: services/billing/src/stand-in.ts → dev/src/index.ts',
          'no-test-support-in-bench: scripts/bench/decode.ts → services/ws-fanout/test/support.ts',
          'not-to-unresolvable: packages/x/test/it.test.ts → ./missing.js',
          'web-only-allowed-packages: web/src/page.ts → services/lib/src/index.ts',
        ].sort(),
      );
    }, 60_000);
  });
});
