import { describe, expect, it } from 'vitest';
import { rfc822, rssXml, xmlEscape } from '../src/content/blog/feed';
import { BLOG_POSTS, type BlogPostMeta } from '../src/content/blog/posts';
import { PUBLIC_PATHS } from '../src/route-paths';
import { sitemapXml } from '../scripts/build';

const base: BlogPostMeta = {
  slug: '',
  title: '',
  description: '',
  category: 'API Guide',
  tags: [],
  keywords: [],
  author: 'a',
  published: '',
  updated: '',
  readingMinutes: 1,
  cta: [],
};

describe('blog RSS feed', () => {
  it('has one item per post with its link, guid, category and RFC 822 date', () => {
    const xml = rssXml('https://tradewind.example/');
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    expect(doc.documentElement.getAttribute('version')).toBe('2.0');
    expect(doc.querySelector('channel > link')?.textContent).toBe('https://tradewind.example/blog');
    const items = Array.from(doc.querySelectorAll('item'));
    expect(items).toHaveLength(BLOG_POSTS.length);
    // Newest first: the Pump.fun guide (2026-11-25), the comparison (2025-07-29), then the three of 2025-07-25 in list order.
    expect(items.map((i) => i.querySelector('link')?.textContent)).toEqual([
      'https://tradewind.example/pump-fun-api',
      'https://tradewind.example/tradewind-vs-pumpportal',
      'https://tradewind.example/letsbonk-fun-api',
      'https://tradewind.example/solana-websocket',
      'https://tradewind.example/solana-memecoin',
    ]);
    expect(items.map((i) => i.querySelector('guid')?.textContent)).toEqual(items.map((i) => i.querySelector('link')?.textContent));
    const first = items[0]!;
    expect(first.querySelector('title')?.textContent).toBe(BLOG_POSTS.find((p) => p.slug === 'pump-fun-api')!.title);
    expect(first.querySelector('guid')?.getAttribute('isPermaLink')).toBe('true');
    expect(first.querySelector('category')?.textContent).toBe('API Guide');
    expect(first.querySelector('pubDate')?.textContent).toBe('Wed, 25 Nov 2026 00:00:00 GMT');
    expect(items[1]!.querySelector('pubDate')?.textContent).toBe('Tue, 29 Jul 2025 00:00:00 GMT');
    expect(xml).toContain('<atom:link href="https://tradewind.example/blog/rss.xml" rel="self" type="application/rss+xml" />');
    // The newest 'updated' of the real posts: every article was revised on 2026-11-25.
    expect(xml).toContain('<lastBuildDate>Wed, 25 Nov 2026 00:00:00 GMT</lastBuildDate>');
  });

  it('escapes &, <, >, quotes and apostrophes, and orders items newest first', () => {
    const posts: BlogPostMeta[] = [
      { ...base, slug: 'old', title: 'Old', description: 'd', published: '2026-01-01', updated: '2026-01-01' },
      { ...base, slug: 'new', title: 'Bids & asks <live> "now"', description: "It's <b>bold</b>", published: '2026-02-01', updated: '2026-03-05' },
    ];
    const xml = rssXml('https://x.test', posts);
    expect(xml).toContain('<title>Bids &amp; asks &lt;live&gt; &quot;now&quot;</title>');
    expect(xml).toContain('<description>It&apos;s &lt;b&gt;bold&lt;/b&gt;</description>');
    expect(xml.indexOf('<link>https://x.test/new</link>')).toBeLessThan(xml.indexOf('<link>https://x.test/old</link>'));
    expect(xml).toContain('<lastBuildDate>Thu, 05 Mar 2026 00:00:00 GMT</lastBuildDate>');
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    expect(doc.querySelector('item > title')?.textContent).toBe('Bids & asks <live> "now"');
  });

  it('xmlEscape and rfc822 give exact strings', () => {
    expect(xmlEscape(`a&b<c>d"e'f`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
    expect(rfc822('2026-11-21')).toBe('Sat, 21 Nov 2026 00:00:00 GMT');
  });
});

describe('sitemap', () => {
  it('lists every public path once; the lastmod of an article is its updated date, of other pages the build date', () => {
    const xml = sitemapXml('https://tradewind.example', PUBLIC_PATHS, '2026-12-01');
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    const urls = Array.from(doc.querySelectorAll('url')).map((u) => [u.querySelector('loc')?.textContent, u.querySelector('lastmod')?.textContent]);
    expect(urls.map(([loc]) => loc)).toEqual(PUBLIC_PATHS.map((p) => `https://tradewind.example${p}`));
    for (const p of BLOG_POSTS) expect(urls).toContainEqual([`https://tradewind.example/${p.slug}`, p.updated]);
    expect(urls).toContainEqual(['https://tradewind.example/blog', '2026-12-01']);
    expect(urls.filter(([loc]) => loc!.includes('/blog/'))).toEqual([]);
  });
});
