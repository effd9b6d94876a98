import { StrictMode } from 'react';
import { prerenderToNodeStream } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { AppShell } from './App';
import { HeadCollectorContext, type PageHead } from './seo';
import { StaticAuthProvider } from './session/session';
import { STARTER_TEMPLATES } from './content/templates';

/**
 * Renders `url` to HTML for the prerender (web/scripts/prerender.ts), signed out, waiting for
 * every lazy page. Returns the body HTML and the head the page declared with `<Seo>`.
 */
export async function render(url: string): Promise<{ html: string; head: PageHead | undefined }> {
  const collector: { head?: PageHead } = {};
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <HeadCollectorContext.Provider value={collector}>
        <StaticRouter location={url}>
          <StaticAuthProvider>
            <AppShell />
          </StaticAuthProvider>
        </StaticRouter>
      </HeadCollectorContext.Provider>
    </StrictMode>,
    // One chunk per page: React would otherwise move large Suspense boundaries (the articles)
    // into hidden templates swapped in by script, and readers without JavaScript would see none.
    { progressiveChunkSize: Number.POSITIVE_INFINITY },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of prelude) chunks.push(Buffer.from(chunk as Uint8Array));
  return { html: Buffer.concat(chunks).toString('utf8'), head: collector.head };
}

export { SITE, siteStructuredData } from './site';
export { headHtml, jsonLdText } from './seo';
export { PUBLIC_PATHS } from './route-paths';
export { rssXml } from './content/blog/feed';

/** Every starter-template file (repository paths under examples/), copied into the site by the build. */
export const TEMPLATE_FILES: readonly string[] = STARTER_TEMPLATES.flatMap((t) => t.files);
