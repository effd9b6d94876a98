/**
 * The root package.json's `allowScripts` (npm 11: which dependencies may run their install-time
 * lifecycle scripts, `preinstall`/`install`/`postinstall`; `npm help install-scripts`) names every
 * package of package-lock.json that has install scripts (`hasInstallScript: true`), and nothing
 * else. Without an entry npm 11 prints "N packages have install scripts not yet covered by
 * allowScripts" on every `npm install`/`npm ci`, and a future npm skips the script (its current
 * docs: "Dependency install scripts are blocked by default"), so esbuild, buf and the embedded
 * PostgreSQL would install without their binaries. A dependency added with an install script fails
 * this test until it is listed (`true`, or `false` to deny it on purpose).
 *
 * Entries are bare names: package-lock.json is written without registry `resolved` URLs
 * (omit-lockfile-registry-resolved), and npm matches a pinned entry (`pkg@1.2.3`) only against
 * the version of a `resolved` URL, so a pin would never match here (`npm help approve-scripts`).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** One entry of package-lock.json's `packages` (lockfileVersion 3), the fields read here. */
interface LockEntry {
  name?: string;
  hasInstallScript?: boolean;
  link?: boolean;
}

/**
 * The package names of the lockfile entries with install scripts, sorted and deduplicated
 * (`node_modules/a/node_modules/@s/b` → `@s/b`; an aliased entry by its `name`). Workspaces
 * (keys outside node_modules, links) are the project's own and not subject to allowScripts.
 */
function lockedPackagesWithInstallScripts(packages: Record<string, LockEntry>): string[] {
  const names = new Set<string>();
  for (const [path, entry] of Object.entries(packages)) {
    if (!entry.hasInstallScript || entry.link) continue;
    const at = path.lastIndexOf('node_modules/');
    if (at < 0) continue;
    names.add(entry.name ?? path.slice(at + 'node_modules/'.length));
  }
  return [...names].sort();
}

describe('npm allowScripts (root package.json)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, unknown> };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const allowScripts = pkg.allowScripts ?? {};

  it('when package-lock.json is read, then its packages with install scripts are found (the scan sees them)', () => {
    // esbuild (its platform binary) and buf are direct devDependencies with a postinstall.
    expect(lockedPackagesWithInstallScripts(lock.packages)).toEqual(expect.arrayContaining(['@bufbuild/buf', 'esbuild']));
  });

  it('when allowScripts is compared with the lockfile, then it lists exactly the packages with install scripts', () => {
    expect(Object.keys(allowScripts).sort()).toEqual(lockedPackagesWithInstallScripts(lock.packages));
  });

  it('then every entry is a bare package name with a boolean decision', () => {
    for (const [key, value] of Object.entries(allowScripts)) {
      expect(key, 'a bare name: a pinned `pkg@1.2.3` never matches this lockfile').toMatch(/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/);
      expect(typeof value, key).toBe('boolean');
    }
  });

  it('when the installed tree is checked by npm itself, then no install script is left unreviewed', async (ctx) => {
    // `npm install-scripts ls` (npm ≥ 11.x with allowScripts) lists what installs would warn about.
    const r = await promisify(execFile)('npm', ['install-scripts', 'ls', '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }).catch(
      (e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
    );
    if (/Unknown command/i.test(r.stderr) && r.stdout === '') ctx.skip('this npm has no install-scripts command (before npm 11 allowScripts)');
    const result = JSON.parse(r.stdout) as { allowScripts?: { name: string }[] };
    expect((result.allowScripts ?? []).map((p) => p.name)).toEqual([]);
  }, 60_000);

  describe('lockedPackagesWithInstallScripts', () => {
    it('when entries are nested, aliased, linked or without scripts, then only the script packages are named, once each', () => {
      expect(
        lockedPackagesWithInstallScripts({
          '': { name: 'root' },
          web: { name: '@x/web', hasInstallScript: true },
          'node_modules/@x/web': { link: true, hasInstallScript: true },
          'node_modules/esbuild': { hasInstallScript: true },
          'node_modules/vite/node_modules/esbuild': { hasInstallScript: true },
          'node_modules/a/node_modules/@s/b': { hasInstallScript: true },
          'node_modules/alias': { name: 'real-name', hasInstallScript: true },
          'node_modules/quiet': {},
        }),
      ).toEqual(['@s/b', 'esbuild', 'real-name']);
    });
  });
});
