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
 *    and the starter templates' files (examples/) under `dist/examples/`;
 * 4. `dist/build-info.json` with the hash of the inputs (npm start rebuilds only when it changes).
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { WEB_DIR, webBuildIsCurrent, webInputsHash } from './inputs.js';

const dist = join(WEB_DIR, 'dist');
const ssrDir = join(WEB_DIR, 'dist-ssr');

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

export async function buildWeb(options: { quiet?: boolean } = {}): Promise<{ pages: number; hash: string }> {
  const hash = webInputsHash();
  const logLevel = options.quiet ? 'warn' : 'info';
  await build({ root: WEB_DIR, logLevel, configFile: join(WEB_DIR, 'vite.config.ts') });
  await build({
    root: WEB_DIR,
    logLevel,
    configFile: join(WEB_DIR, 'vite.config.ts'),
    build: { ssr: join(WEB_DIR, 'src/entry-server.tsx'), outDir: ssrDir, emptyOutDir: true, sourcemap: false },
  });
  const entry = (await import(pathToFileURL(join(ssrDir, 'entry-server.js')).href)) as ServerEntry;
  const template = readFileSync(join(dist, 'index.html'), 'utf8');
  const site = entry.siteStructuredData()
    .map((o) => `<script type="application/ld+json">${entry.jsonLdText(o)}</script>`)
    .join('\n    ');
  const page = (head: string, body: string) =>
    template.replace('<!--head-->', `${head}\n    ${site}`).replace('<!--app-->', body);

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
    writeFileSync(file, page(entry.headHtml(head), html));
  }
  const notFound = await entry.render('/__not-found__');
  writeFileSync(join(dist, '404.html'), page(entry.headHtml(notFound.head!), notFound.html));
  const today = new Date().toISOString().slice(0, 10);
  writeFileSync(
    join(dist, 'sitemap.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entry.PUBLIC_PATHS.map(
      (p) => `  <url><loc>${entry.SITE.url}${p}</loc><lastmod>${today}</lastmod></url>`,
    ).join('\n')}\n</urlset>\n`,
  );
  writeFileSync(join(dist, 'blog', 'rss.xml'), entry.rssXml(entry.SITE.url));
  writeFileSync(join(dist, 'robots.txt'), `${readFileSync(join(WEB_DIR, 'public/robots.txt'), 'utf8')}\nSitemap: ${entry.SITE.url}/sitemap.xml\n`);
  // The starter templates, downloadable from the pages that advertise them (src/content/templates.ts).
  for (const file of entry.TEMPLATE_FILES) {
    const target = join(dist, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(WEB_DIR, '..', file), target);
  }
  rmSync(ssrDir, { recursive: true, force: true });
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
