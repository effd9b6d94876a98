/**
 * The blog's RSS 2.0 feed (served at /blog/rss.xml; the build writes it from this function).
 */
import { SITE } from '../../site';
import { BLOG_POSTS, articlePath, type BlogPostMeta } from './posts';

/** Escapes text for XML element content and attribute values (`& < > " '`). */
export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** An ISO date (`2026-11-21`) as the RFC 822 date RSS wants, midnight UTC: `Sat, 21 Nov 2026 00:00:00 GMT`. */
export function rfc822(isoDate: string): string {
  return new Date(`${isoDate}T00:00:00Z`).toUTCString();
}

/**
 * RSS 2.0 document of every article in `posts` (default: BLOG_POSTS), newest first (by
 * `published`, list order for ties). `origin` is the site's public origin without a trailing slash,
 * e.g. `https://tradewind.example`; links are `<origin>/<slug>` (the article's path). `lastBuildDate` is the newest
 * `updated` date, so the output depends only on the posts (byte-identical builds).
 */
export function rssXml(origin: string, posts: readonly BlogPostMeta[] = BLOG_POSTS): string {
  const base = origin.replace(/\/+$/, '');
  const sorted = posts
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.published === b.p.published ? a.i - b.i : a.p.published < b.p.published ? 1 : -1))
    .map(({ p }) => p);
  const newest = posts.reduce((max, p) => (p.updated > max ? p.updated : max), '');
  const items = sorted.map((p) => {
    const url = `${base}${articlePath(p.slug)}`;
    return [
      '    <item>',
      `      <title>${xmlEscape(p.title)}</title>`,
      `      <link>${xmlEscape(url)}</link>`,
      `      <guid isPermaLink="true">${xmlEscape(url)}</guid>`,
      `      <description>${xmlEscape(p.description)}</description>`,
      `      <category>${xmlEscape(p.category)}</category>`,
      `      <pubDate>${rfc822(p.published)}</pubDate>`,
      '    </item>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    '  <channel>',
    `    <title>${xmlEscape(`${SITE.name} blog`)}</title>`,
    `    <link>${xmlEscape(`${base}/blog`)}</link>`,
    `    <atom:link href="${xmlEscape(`${base}/blog/rss.xml`)}" rel="self" type="application/rss+xml" />`,
    `    <description>${xmlEscape('API guides, comparisons and WebSocket and memecoin guides on streaming decoded Solana trades with Tradewind.')}</description>`,
    '    <language>en</language>',
    ...(newest ? [`    <lastBuildDate>${rfc822(newest)}</lastBuildDate>`] : []),
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}
