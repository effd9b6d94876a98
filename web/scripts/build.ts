/**
 * `npm run build -w web`: builds the web app into web/dist (docs/web.md); with `--if-stale`, only
 * when the inputs changed since the last build (what npm start runs).
 *
 * 1. the client bundle (Vite; one chunk per route);
 * 2. the server-render bundle of src/entry-server.tsx (into web/dist-ssr);
 * 3. the prerender: every public path (src/route-paths.ts) rendered signed-out into
 *    `dist/<path>/index.html` with its own title, description, canonical link, Open Graph tags
 *    and structured data, so search engines and link previews need no JavaScript; plus
 *    `dist/app.html` (the shell for signed-in pages), `dist/404.html` and `dist/sitemap.xml`;
 *    and the starter templates' files (examples/) under `dist/examples/`, with
 *    `@tradewind/client` packed into the WebSocket template's `tradewind-client-<version>.tgz`
 *    ({@link writeTemplateFiles});
 * 4. `dist/build-info.json` with the hash of the inputs (npm start rebuilds only when it changes).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { WEB_DIR, webBuildIsCurrent, webInputsHash } from './inputs.js';
import { BLOG_POSTS, articlePath } from '../src/content/blog/posts.js';

const dist = join(WEB_DIR, 'dist');
const ssrDir = join(WEB_DIR, 'dist-ssr');
const ROOT = join(WEB_DIR, '..');
/** The client library the WebSocket template depends on (not published on npm). */
const CLIENT_DIR = join(ROOT, 'packages/client');
/** Longest a step of packing the client (tsc, then npm pack) may take, ms; tsc takes about 5 s. */
const PACK_STEP_TIMEOUT_MS = 120_000;

/** The name `npm pack` gives a package's tarball: `@scope/name` 1.2.3 → `scope-name-1.2.3.tgz`. */
export function packedFileName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** `name` and `version` of packages/client/package.json. @throws Error when either is missing. */
export function clientPackage(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
  if (typeof pkg.name !== 'string' || typeof pkg.version !== 'string') throw new Error('packages/client/package.json has no name or version');
  return { name: pkg.name, version: pkg.version };
}

/**
 * The environment without npm's `npm_*` variables: under `npm run build -w web` they describe the
 * workspace (`npm_config_local_prefix` is the repository), which an npm started in another folder
 * must not inherit.
 */
export function envWithoutNpm(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
}

/** Runs a build tool; its stderr becomes the error message when it fails or times out. */
function run(file: string, args: string[], cwd: string): string {
  try {
    return execFileSync(file, args, { cwd, env: envWithoutNpm(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: PACK_STEP_TIMEOUT_MS });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${basename(file)} ${args.join(' ')} failed: ${(e.stderr || e.stdout || e.message).trim()}`, { cause: err });
  }
}

/**
 * Packs `@tradewind/client` into `destDir` and returns the tarball's path. The same files as
 * `npm run build -w @tradewind/client && npm pack -w @tradewind/client`, without network, and
 * without touching packages/client/dist (the client's tests run code from there, maybe at this
 * moment): tsc compiles src/ with the package's tsconfig.build.json (what its `build` script
 * does) into a staging copy holding its package.json and README.md, and `npm pack
 * --ignore-scripts` packs that copy (its `files`: dist, README.md).
 * @throws Error when tsc or npm fails (with their output), or when npm names the tarball other
 *   than {@link packedFileName} says.
 */
export function packClient(destDir: string): string {
  const { name, version } = clientPackage();
  const stage = mkdtempSync(join(tmpdir(), 'tradewind-client-pack-'));
  try {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    run(process.execPath, [tsc, '-p', join(CLIENT_DIR, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')], ROOT);
    for (const f of ['package.json', 'README.md']) copyFileSync(join(CLIENT_DIR, f), join(stage, f));
    mkdirSync(destDir, { recursive: true });
    const out = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destDir], stage);
    const [packed] = JSON.parse(out) as Array<{ filename: string }>;
    const expected = packedFileName(name, version);
    if (packed?.filename !== expected) throw new Error(`npm pack made ${packed?.filename}, expected ${expected}`);
    return join(destDir, expected);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Writes the starter templates' files (`files`: repository paths under examples/, as
 * src/content/templates.ts lists them) into `outDir` at the same paths, where the site serves
 * them for download. A file in the repository is copied; the one that is not, the client's
 * tarball `examples/<template>/tradewind-client-<version>.tgz` (version from
 * packages/client/package.json), is packed by {@link packClient}, once.
 * @returns the paths copied and the paths packed.
 * @throws Error, before writing anything, when a path is outside examples/, when a listed file is
 *   neither in the repository nor the client's tarball of the current version, or when a listed
 *   package.json depends on a `file:` path that is not listed (the download would not install).
 */
export function writeTemplateFiles(files: readonly string[], outDir: string): { copied: string[]; packed: string[] } {
  const client = clientPackage();
  const tarball = packedFileName(client.name, client.version);
  const listed = new Set(files);
  const copied: string[] = [];
  const packed: string[] = [];
  for (const f of files) {
    if (!f.startsWith('examples/') || posix.normalize(f) !== f)
      throw new Error(`template file ${f}: not a path under examples/ (web/src/content/templates.ts)`);
    if (existsSync(join(ROOT, f))) copied.push(f);
    else if (basename(f) === tarball) packed.push(f);
    else
      throw new Error(
        `template file ${f} is neither in the repository nor the client's tarball ${tarball} (packages/client/package.json's version; web/src/content/templates.ts)`,
      );
  }
  for (const f of copied.filter((c) => basename(c) === 'package.json')) {
    const pkg = JSON.parse(readFileSync(join(ROOT, f), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      for (const [dep, spec] of Object.entries(pkg[field] ?? {})) {
        if (typeof spec !== 'string' || !spec.startsWith('file:')) continue;
        const target = posix.join(posix.dirname(f), spec.slice('file:'.length));
        if (!listed.has(target)) {
          throw new Error(
            `${f} depends on ${dep}@${spec}, but ${target} is not among its template's files (web/src/content/templates.ts; the client's tarball is ${tarball})`,
          );
        }
      }
    }
  }
  for (const f of copied) {
    mkdirSync(dirname(join(outDir, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(outDir, f));
  }
  if (packed.length > 0) {
    const stage = mkdtempSync(join(tmpdir(), 'tradewind-client-tgz-'));
    try {
      const tgz = packClient(stage);
      for (const f of packed) {
        mkdirSync(dirname(join(outDir, f)), { recursive: true });
        copyFileSync(tgz, join(outDir, f));
      }
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  return { copied, packed };
}

interface ServerEntry {
  render(url: string): Promise<{ html: string; head: { path: string } | undefined }>;
  headHtml(head: object): string;
  jsonLdText(value: object): string;
  siteStructuredData(): object[];
  PUBLIC_PATHS: readonly string[];
  TEMPLATE_FILES: readonly string[];
  rssXml(origin: string): string;
  SITE: { url: string; name: string; description: string };
}

/**
 * The lazy page modules each prerendered path renders (web/src/App.tsx). Their CSS is linked and
 * their chunks preloaded in the page's HTML, so a prerendered page is styled at first paint
 * instead of when its chunk has loaded.
 */
function pageModules(path: string): string[] {
  const pages: Record<string, string> = {
    '/': 'Home',
    '/pricing': 'Pricing',
    '/how-it-works': 'HowItWorks',
    '/blog': 'Blog',
    '/community': 'Community',
    '/privacy': 'Privacy',
    '/terms': 'Terms',
    '/404': 'NotFound',
  };
  const article = BLOG_POSTS.find((p) => articlePath(p.slug) === path);
  if (article) return ['src/pages/BlogArticle.tsx', `src/content/blog/${article.slug}.tsx`];
  const page = pages[path];
  if (!page) throw new Error(`prerender: no page module known for ${path} (add it to pageModules in web/scripts/build.ts)`);
  return [`src/pages/${page}.tsx`];
}

/**
 * The sitemap of `paths` (site paths) under `origin` (no trailing slash). An article's `lastmod` is
 * its `updated` date (src/content/blog/posts.ts); every other page's is `buildDate` (YYYY-MM-DD).
 */
export function sitemapXml(origin: string, paths: readonly string[], buildDate: string): string {
  const lastmod = (path: string) => BLOG_POSTS.find((p) => articlePath(p.slug) === path)?.updated ?? buildDate;
  const urls = paths.map((p) => `  <url><loc>${origin}${p}</loc><lastmod>${lastmod(p)}</lastmod></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
}

/** `<link>` tags for the CSS and JS chunks of `modules` and everything they import statically. */
function pageAssetLinks(manifest: Record<string, ManifestChunk>, modules: string[], entryFiles: Set<string>): string {
  const css = new Set<string>();
  const js = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`prerender: ${key} is not in the client build manifest`);
    if (js.has(chunk.file)) return;
    js.add(chunk.file);
    for (const c of chunk.css ?? []) css.add(c);
    for (const i of chunk.imports ?? []) visit(i);
  };
  for (const m of modules) visit(m);
  return [
    ...[...css].filter((f) => !entryFiles.has(f)).map((f) => `<link rel="stylesheet" href="/${f}" />`),
    ...[...js].filter((f) => !entryFiles.has(f)).map((f) => `<link rel="modulepreload" href="/${f}" />`),
  ].join('\n    ');
}

export async function buildWeb(options: { quiet?: boolean } = {}): Promise<{ pages: number; hash: string }> {
  const hash = webInputsHash();
  // Vite takes NODE_ENV from the environment when set, and NODE_ENV=development (as npm start
  // may run with) would bundle React's development build: four times the size, and slower.
  process.env.NODE_ENV = 'production';
  const logLevel = options.quiet ? 'warn' : 'info';
  await build({ root: WEB_DIR, mode: 'production', logLevel, configFile: join(WEB_DIR, 'vite.config.ts') });
  await build({
    root: WEB_DIR,
    mode: 'production',
    logLevel,
    configFile: join(WEB_DIR, 'vite.config.ts'),
    build: { ssr: join(WEB_DIR, 'src/entry-server.tsx'), outDir: ssrDir, emptyOutDir: true, sourcemap: false },
  });
  const entry = (await import(pathToFileURL(join(ssrDir, 'entry-server.js')).href)) as ServerEntry;
  const template = readFileSync(join(dist, 'index.html'), 'utf8');
  const site = entry
    .siteStructuredData()
    .map((o) => `<script type="application/ld+json">${entry.jsonLdText(o)}</script>`)
    .join('\n    ');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const entry0 = manifest['index.html'];
  if (!entry0) throw new Error('prerender: index.html is not in the client build manifest');
  const entryFiles = new Set([entry0.file, ...(entry0.css ?? [])]);
  const page = (head: string, body: string, path?: string) => {
    // The pages' CSP (style-src 'self', docs/web.md "Browser security") refuses style attributes in
    // markup: a component that must set a style does it through the CSSOM after hydration.
    const styled = /<[a-z][^>]*\sstyle=/i.exec(body);
    if (styled) throw new Error(`prerender: ${path ?? 'app.html'} has a style attribute in its markup (${styled[0].slice(0, 80)}…)`);
    return template
      .replace('<!--head-->', `${head}\n    ${site}${path ? `\n    ${pageAssetLinks(manifest, pageModules(path), entryFiles)}` : ''}`)
      .replace('<!--app-->', body);
  };

  // The shell for browser-only pages: generic head, nothing to hydrate.
  writeFileSync(
    join(dist, 'app.html'),
    page(entry.headHtml({ title: entry.SITE.name, description: entry.SITE.description, path: '/dashboard', noindex: true }), ''),
  );
  for (const path of entry.PUBLIC_PATHS) {
    const { html, head } = await entry.render(path);
    if (!head) throw new Error(`prerender: ${path} declared no <Seo> head`);
    if (head.path !== path) throw new Error(`prerender: ${path} declared canonical path ${head.path}`);
    const file = path === '/' ? join(dist, 'index.html') : join(dist, path.slice(1), 'index.html');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, page(entry.headHtml(head), html, path));
  }
  const notFound = await entry.render('/__not-found__');
  writeFileSync(join(dist, '404.html'), page(entry.headHtml(notFound.head!), notFound.html, '/404'));
  writeFileSync(join(dist, 'sitemap.xml'), sitemapXml(entry.SITE.url, entry.PUBLIC_PATHS, new Date().toISOString().slice(0, 10)));
  writeFileSync(join(dist, 'blog', 'rss.xml'), entry.rssXml(entry.SITE.url));
  writeFileSync(join(dist, 'robots.txt'), `${readFileSync(join(WEB_DIR, 'public/robots.txt'), 'utf8')}\nSitemap: ${entry.SITE.url}/sitemap.xml\n`);
  // The starter templates, downloadable from the pages that advertise them (src/content/templates.ts).
  writeTemplateFiles(entry.TEMPLATE_FILES, dist);
  rmSync(ssrDir, { recursive: true, force: true });
  rmSync(join(dist, '.vite'), { recursive: true, force: true });
  writeFileSync(join(dist, 'build-info.json'), JSON.stringify({ inputsHash: hash, builtAt: new Date().toISOString(), pages: entry.PUBLIC_PATHS.length }));
  return { pages: entry.PUBLIC_PATHS.length, hash };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // --if-stale: do nothing when dist/ already holds a build of the current inputs (npm start).
  if (process.argv.includes('--if-stale') && webBuildIsCurrent()) {
    process.stdout.write('web: dist/ is current\n');
    process.exit(0);
  }
  buildWeb()
    .then(({ pages }) => process.stdout.write(`web: built dist/ with ${pages} prerendered pages\n`))
    .catch((err: unknown) => {
      process.stderr.write(`web build failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    });
}
