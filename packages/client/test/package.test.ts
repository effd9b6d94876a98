/**
 * Publishing: the committed generated types match the schemas, and the built package works for
 * plain Node users (no tsx, no TypeScript at run time).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OUTPUT_FILE, SLOT_OUTPUT_FILE, generateSlotTypes, generateTradeTypes } from '../scripts/generate-types.js';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(pkgDir, '../..');

describe('generated trade types', () => {
  it('when the schemas are compiled again, then the committed src/generated/trades.ts is unchanged (run `npm run generate -w @tradewind/client` otherwise)', async () => {
    expect(await generateTradeTypes()).toBe(readFileSync(OUTPUT_FILE, 'utf8'));
  });

  it('when the slot schema is compiled again, then the committed src/generated/slots.ts is unchanged (run `npm run generate -w @tradewind/client` otherwise)', async () => {
    expect(await generateSlotTypes()).toBe(readFileSync(SLOT_OUTPUT_FILE, 'utf8'));
  });

  it('when a schema changes, then the generated text changes (the check above can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-schemas-'));
    try {
      const schema = JSON.parse(readFileSync(join(repoRoot, 'packages/contracts/schemas/basic.bonk.schema.json'), 'utf8')) as {
        properties: Record<string, unknown>;
      };
      schema.properties.extra_field = { type: 'string', description: 'added by the test' };
      writeFileSync(join(dir, 'basic.bonk.schema.json'), JSON.stringify(schema));
      const text = await generateTradeTypes(dir);
      expect(text).toContain('extra_field?: string;');
      expect(text).toContain('"bonk": "basic.bonk",');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('package', () => {
  it('when built with tsc, then plain node imports the entry the exports map names and every public export is there', () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      type: string;
      license?: string;
      private?: boolean;
      files: string[];
      exports: { '.': { types: string; import: string } };
      dependencies: Record<string, string>;
    };
    expect(pkg).toMatchObject({ name: '@tradewind/client', version: '0.1.0', type: 'module', files: ['dist', 'README.md'] });
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBeDefined();
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@nats-io/nkeys', 'ws']);
    mkdirSync(join(pkgDir, 'node_modules'), { recursive: true });
    const out = mkdtempSync(join(pkgDir, 'node_modules', '.build-test-')); // git-ignored
    try {
      execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(pkgDir, 'tsconfig.build.json'), '--outDir', out], {
        stdio: 'pipe',
      });
      const entry = join(out, pkg.exports['.'].import.replace(/^\.\/dist\//, ''));
      expect(existsSync(entry)).toBe(true);
      expect(existsSync(join(out, pkg.exports['.'].types.replace(/^\.\/dist\//, '')))).toBe(true);
      // A fresh node process without any loader: what a user of the published package runs.
      const script = `const m = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(m).sort()));`;
      const keys = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
      for (const name of [
        'TradewindClient',
        'Subscription',
        'parseCredentials',
        'CredentialsRefusedError',
        'ReconnectFailedError',
        'TRADE_SUBJECTS',
        'DEFAULT_BACKOFF',
      ]) {
        expect(keys).toContain(name);
      }
      expect(readFileSync(join(out, 'index.d.ts'), 'utf8')).toContain('TradeMessage');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
