// @vitest-environment node
/**
 * The WebSocket starter template as a user gets it: the web build's examples output
 * (`writeTemplateFiles`, what `npm run build -w web` writes into dist/examples/), served by the
 * web server, each file templates.ts lists downloaded into an empty folder outside the
 * repository, `npm install` there, and `@tradewind/client` imported by plain node. The client
 * is not on the npm registry: only the packed tarball among the files makes this work.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join, posix, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clientPackage, envWithoutNpm, packedFileName, writeTemplateFiles } from '../scripts/build';
import { createWebServer } from '../server/app';
import { CLIENT_TARBALL, CLIENT_VERSION, STARTER_TEMPLATES, templateFileUrl } from '../src/content/templates';

const ROOT = resolve(import.meta.dirname, '../..');
const websocket = STARTER_TEMPLATES.find((t) => t.id === 'websocket')!;
/** Longest the whole download-and-install test may take, ms (packing ≈ 5 s, install < 1 s offline). */
const DOWNLOAD_TEST_TIMEOUT_MS = 60_000;
/** Longest one `npm install` may take, ms. */
const INSTALL_TIMEOUT_MS = 40_000;

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `npm install` from the npm cache only; with what the cache lacks fetched when it cannot (first run on a machine). */
function npmInstall(cwd: string): void {
  const env = envWithoutNpm();
  const attempt = (mode: string) => spawnSync('npm', ['install', mode, '--no-audit', '--no-fund'], { cwd, env, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  let result = attempt('--offline');
  if (result.status !== 0) result = attempt('--prefer-offline');
  if (result.status !== 0) throw new Error(`npm install failed in ${cwd}: ${result.stderr}`);
}

describe('the WebSocket starter template, downloaded', () => {
  it('when the client version is read, then templates.ts, the build and examples/websocket/package.json name the same tarball', () => {
    const { name, version } = clientPackage();
    expect(CLIENT_VERSION).toBe(version);
    expect(CLIENT_TARBALL).toBe(`examples/websocket/${packedFileName(name, version)}`);
    expect(basename(CLIENT_TARBALL)).toBe(`tradewind-client-${version}.tgz`);
    expect(websocket.files).toContain(CLIENT_TARBALL);
    const example = JSON.parse(readFileSync(join(ROOT, 'examples/websocket/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(example.dependencies).toEqual({ '@tradewind/client': `file:./${basename(CLIENT_TARBALL)}` });
  });

  it(
    'when its files are built, served by the web server and downloaded into an empty folder, then npm install works there and node imports @tradewind/client',
    async () => {
      const out = tempDir('tw-web-examples-');
      expect(writeTemplateFiles(websocket.files, out)).toEqual({ copied: websocket.files.filter((f) => f !== CLIENT_TARBALL), packed: [CLIENT_TARBALL] });
      // The web server needs a build's shells to start; the template files are served as they are.
      for (const page of ['index.html', 'app.html', '404.html']) writeFileSync(join(out, page), `<!doctype html><title>${page}</title>`);
      const server: Server = createWebServer({ distDir: out });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      cleanup.push(() => new Promise((done) => server.close(done)));
      const { port } = server.address() as { port: number };

      const folder = tempDir('tw-websocket-template-');
      for (const f of websocket.files) {
        const res = await fetch(`http://127.0.0.1:${port}${templateFileUrl(f)}`);
        expect(res.status, f).toBe(200);
        if (f.endsWith('.tgz')) expect(res.headers.get('content-type')).toBe('application/gzip');
        writeFileSync(join(folder, posix.relative('examples/websocket', f)), Buffer.from(await res.arrayBuffer()));
      }
      expect(readdirSync(folder).sort()).toEqual(['README.md', 'client.mjs', 'package.json', basename(CLIENT_TARBALL)].sort());
      expect(readFileSync(join(folder, basename(CLIENT_TARBALL)))).toEqual(readFileSync(join(out, CLIENT_TARBALL)));

      npmInstall(folder);
      const typeOf = execFileSync(process.execPath, ['-e', "import('@tradewind/client').then(m => console.log(typeof m.TradewindClient))"], {
        cwd: folder,
        env: envWithoutNpm(),
        encoding: 'utf8',
      });
      expect(typeOf.trim()).toBe('function');
      // Installed from the tarball, not linked to the repository's packages/client.
      const installed = JSON.parse(readFileSync(join(folder, 'node_modules/@tradewind/client/package.json'), 'utf8')) as { version: string };
      expect(installed.version).toBe(CLIENT_VERSION);
      expect(lstatSync(join(folder, 'node_modules/@tradewind/client')).isSymbolicLink()).toBe(false);
      expect(readdirSync(join(folder, 'node_modules/@tradewind/client'))).toContain('dist');
    },
    DOWNLOAD_TEST_TIMEOUT_MS,
  );

  it('when templates.ts lists a tarball of another version, then the build fails naming it, before writing anything', () => {
    const out = tempDir('tw-web-examples-');
    const stale = 'examples/websocket/tradewind-client-0.0.1.tgz';
    expect(() => writeTemplateFiles(['examples/websocket/README.md', stale], out)).toThrow(
      `template file ${stale} is neither in the repository nor the client's tarball ${basename(CLIENT_TARBALL)}`,
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it('when a template lists its package.json without the tarball it depends on, then the build fails', () => {
    const out = tempDir('tw-web-examples-');
    expect(() => writeTemplateFiles(['examples/websocket/package.json', 'examples/websocket/client.mjs'], out)).toThrow(
      `examples/websocket/package.json depends on @tradewind/client@file:./${basename(CLIENT_TARBALL)}, but ${CLIENT_TARBALL} is not among its template's files`,
    );
  });

  it('when a listed path leaves examples/, then the build fails', () => {
    const out = tempDir('tw-web-examples-');
    expect(() => writeTemplateFiles(['examples/../package.json'], out)).toThrow('not a path under examples/');
  });
});
