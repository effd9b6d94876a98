import { createContext, useContext, useEffect } from 'react';
import { SITE, absoluteUrl } from './site';

/** What a page says about itself to search engines and link previews. */
export interface PageHead {
  /** Page title without the site name; the home page passes the full title. */
  title: string;
  description: string;
  /** Site path of the canonical URL, e.g. `/pricing`. */
  path: string;
  /** schema.org objects for this page (Article, FAQPage, ...), besides the site-wide ones. */
  jsonLd?: object[];
  /** Keep out of search results (signed-in pages, sign-in, payment). */
  noindex?: boolean;
  /** Open Graph type: `article` for blog posts, else `website`. */
  ogType?: 'website' | 'article';
  /** The `keywords` meta tag (articles); absent when empty. */
  keywords?: readonly string[];
  /** Open Graph article facts (`article:published_time`, …), with `ogType: 'article'`. */
  article?: { publishedTime: string; modifiedTime: string; section: string; tags: readonly string[] };
}

/** Collects the head of the page being server-rendered (prerender); null in the browser. */
export const HeadCollectorContext = createContext<{ head?: PageHead } | null>(null);

/** The full `<title>` text. */
export function fullTitle(head: PageHead): string {
  return head.path === '/' ? head.title : `${head.title} | ${SITE.name}`;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JSON for a `<script type="application/ld+json">`, safe inside HTML (no `</script>` break-out). */
export function jsonLdText(value: object): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The head tags of a page as HTML (the prerender writes them into each page's file). */
export function headHtml(head: PageHead): string {
  const url = absoluteUrl(head.path);
  const tags = [
    `<title>${escapeHtml(fullTitle(head))}</title>`,
    `<meta name="description" content="${escapeHtml(head.description)}" />`,
    `<link rel="canonical" href="${escapeHtml(url)}" />`,
    head.keywords && head.keywords.length > 0 ? `<meta name="keywords" content="${escapeHtml(head.keywords.join(', '))}" />` : '',
    head.noindex ? '<meta name="robots" content="noindex" />' : '',
    `<meta property="og:site_name" content="${SITE.name}" />`,
    `<meta property="og:type" content="${head.ogType ?? 'website'}" />`,
    `<meta property="og:title" content="${escapeHtml(fullTitle(head))}" />`,
    `<meta property="og:description" content="${escapeHtml(head.description)}" />`,
    `<meta property="og:url" content="${escapeHtml(url)}" />`,
    ...(head.article
      ? [
          `<meta property="article:published_time" content="${escapeHtml(head.article.publishedTime)}" />`,
          `<meta property="article:modified_time" content="${escapeHtml(head.article.modifiedTime)}" />`,
          `<meta property="article:section" content="${escapeHtml(head.article.section)}" />`,
          ...head.article.tags.map((t) => `<meta property="article:tag" content="${escapeHtml(t)}" />`),
        ]
      : []),
    '<meta name="twitter:card" content="summary" />',
    `<meta name="twitter:title" content="${escapeHtml(fullTitle(head))}" />`,
    `<meta name="twitter:description" content="${escapeHtml(head.description)}" />`,
    ...(head.jsonLd ?? []).map((o) => `<script type="application/ld+json" data-route-jsonld>${jsonLdText(o)}</script>`),
  ];
  return tags.filter(Boolean).join('\n    ');
}

function removeMeta(attr: 'name' | 'property', key: string): void {
  for (const el of document.head.querySelectorAll(`meta[${attr}="${key}"]`)) el.remove();
}

function setMeta(attr: 'name' | 'property', key: string, content: string): void {
  let el = document.head.querySelector<HTMLMetaElement>(`meta[${attr}="${key}"]`);
  if (!el) {
    el = document.createElement('meta');
    el.setAttribute(attr, key);
    document.head.appendChild(el);
  }
  el.content = content;
}

/**
 * Declares the page's title, description, canonical link and structured data. In the browser it
 * updates `document.head` on navigation; during prerender it hands the head to the collector.
 */
export function Seo(props: PageHead): null {
  const collector = useContext(HeadCollectorContext);
  if (collector) collector.head = props;
  const jsonLdKey = JSON.stringify(props.jsonLd ?? []);
  const keywords = (props.keywords ?? []).join(', ');
  const articleKey = JSON.stringify(props.article ?? null);
  useEffect(() => {
    const url = absoluteUrl(props.path);
    document.title = fullTitle(props);
    setMeta('name', 'description', props.description);
    setMeta('property', 'og:title', fullTitle(props));
    setMeta('property', 'og:description', props.description);
    setMeta('property', 'og:url', url);
    setMeta('property', 'og:type', props.ogType ?? 'website');
    setMeta('name', 'twitter:title', fullTitle(props));
    setMeta('name', 'twitter:description', props.description);
    if (keywords) setMeta('name', 'keywords', keywords);
    else removeMeta('name', 'keywords');
    for (const key of ['article:published_time', 'article:modified_time', 'article:section', 'article:tag']) removeMeta('property', key);
    if (props.article) {
      const a = props.article;
      for (const [key, value] of [
        ['article:published_time', a.publishedTime],
        ['article:modified_time', a.modifiedTime],
        ['article:section', a.section],
        ...a.tags.map((t) => ['article:tag', t] as const),
      ] as const) {
        const el = document.createElement('meta');
        el.setAttribute('property', key);
        el.content = value;
        document.head.appendChild(el);
      }
    }
    let canonical = document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]');
    if (!canonical) {
      canonical = document.createElement('link');
      canonical.rel = 'canonical';
      document.head.appendChild(canonical);
    }
    canonical.href = url;
    const robots = document.head.querySelector('meta[name="robots"]');
    if (props.noindex && !robots) setMeta('name', 'robots', 'noindex');
    if (!props.noindex) robots?.remove();
    for (const old of document.head.querySelectorAll('script[data-route-jsonld]')) old.remove();
    for (const o of props.jsonLd ?? []) {
      const s = document.createElement('script');
      s.type = 'application/ld+json';
      s.dataset.routeJsonld = '';
      s.textContent = jsonLdText(o);
      document.head.appendChild(s);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.title, props.description, props.path, props.noindex, props.ogType, jsonLdKey, keywords, articleKey]);
  return null;
}
