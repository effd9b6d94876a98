/**
 * The linter (docs/style.md §14): `biome lint --error-on-warnings` with the root
 * biome.json passes on the tree, and on a fixture tree with the same configuration it fails on a
 * new file that breaks a recommended rule while a file listed in that rule's override stays exempt;
 * and the tree is formatted (`biome format`: `npm run format` rewrites it), which a misformatted
 * fixture file shows can fail.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIOME = join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

/** Runs `biome lint --error-on-warnings <args>` in `cwd`; exit status and combined output. */
function lint(cwd: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [BIOME, 'lint', '--error-on-warnings', '--max-diagnostics=50', '--colors=off', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A file of the tree that biome.json exempts from `noExplicitAny` (the first such override entry). */
function exemptFromNoExplicitAny(): string {
  const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as {
    overrides: { includes: string[]; linter: { rules: Record<string, Record<string, string>> } }[];
  };
  const entry = config.overrides.find((o) => o.linter.rules.suspicious?.noExplicitAny === 'off');
  const file = entry?.includes[0];
  if (file === undefined) throw new Error('biome.json has no noExplicitAny override');
  return file;
}

/** Runs `biome format <args>` (check only) in `cwd`; exit status and combined output. */
function formatCheck(cwd: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [BIOME, 'format', '--max-diagnostics=20', '--colors=off', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('biome format (biome.json)', () => {
  it('when the tree is checked, then every file is formatted (else run `npm run format`)', () => {
    const { status, output } = formatCheck(ROOT, ['.']);
    expect(output).toMatch(/Checked \d+ files/);
    expect(status, output).toBe(0);
  });

  it('when a file is not formatted, then the check fails naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'format-'));
    try {
      copyFileSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
      mkdirSync(join(dir, 'services/auth/src'), { recursive: true });
      writeFileSync(join(dir, 'services/auth/src/ugly.ts'), 'export const x = {a:1,\n\n\n  b : "two"}\n');
      const { status, output } = formatCheck(dir, ['--vcs-enabled=false', 'services/auth/src/ugly.ts']);
      expect(status).not.toBe(0);
      expect(output).toContain('services/auth/src/ugly.ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('biome lint (biome.json)', () => {
  it('when the tree is linted, then there is no error and no warning', () => {
    const { status, output } = lint(ROOT, ['.']);
    expect(output).toMatch(/Checked \d+ files/);
    expect(status, output).toBe(0);
  });

  describe('on a fixture tree with the same configuration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lint-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    copyFileSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
    const bad = 'export function parse(input: string): any {\n  return JSON.parse(input);\n}\n';
    const exempt = exemptFromNoExplicitAny();
    for (const path of ['services/auth/src/new-module.ts', exempt]) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), bad);
    }

    it('when a new file uses `any`, then lint fails naming the rule and the file', () => {
      const { status, output } = lint(dir, ['--vcs-enabled=false', 'services/auth/src/new-module.ts']);
      expect(status).not.toBe(0);
      expect(output).toContain('lint/suspicious/noExplicitAny');
      expect(output).toContain('services/auth/src/new-module.ts');
    });

    it('when a file listed in the rule override does the same, then lint passes', () => {
      const { status, output } = lint(dir, ['--vcs-enabled=false', exempt]);
      expect(output).toMatch(/Checked 1 file/);
      expect(status, output).toBe(0);
    });
  });
});
