import { describe, expect, it } from 'vitest';
import { rfc822, rssXml, xmlEscape } from '../src/content/blog/feed';
import { BLOG_POSTS, type BlogPostMeta } from '../src/content/blog/posts';

describe('blog RSS feed', () => {
  it('has one item per post with its link, guid, category and RFC 822 date', () => {
    const xml = rssXml('https://tradewind.example/');
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    expect(doc.documentElement.getAttribute('version')).toBe('2.0');
    expect(doc.querySelector('channel > link')?.textContent).toBe('https://tradewind.example/blog');
    const items = Array.from(doc.querySelectorAll('item'));
    expect(items).toHaveLength(BLOG_POSTS.length);
    expect(items.map((i) => i.querySelector('link')?.textContent)).toEqual(
      BLOG_POSTS.map((p) => `https://tradewind.example/blog/${p.slug}`),
    );
    const first = items[0]!;
    expect(first.querySelector('title')?.textContent).toBe('Stream Pump.fun trades in real time over WebSocket');
    expect(first.querySelector('guid')?.getAttribute('isPermaLink')).toBe('true');
    expect(first.querySelector('category')?.textContent).toBe('Tutorials');
    expect(first.querySelector('pubDate')?.textContent).toBe('Sat, 21 Nov 2026 00:00:00 GMT');
    expect(xml).toContain('<atom:link href="https://tradewind.example/blog/rss.xml" rel="self" type="application/rss+xml" />');
    // The newest 'updated' of the real posts: the WebSocket tutorial, revised for resume_after.
    expect(xml).toContain('<lastBuildDate>Wed, 25 Nov 2026 00:00:00 GMT</lastBuildDate>');
  });

  it('escapes &, <, >, quotes and apostrophes, and orders items newest first', () => {
    const posts: BlogPostMeta[] = [
      { slug: 'old', title: 'Old', description: 'd', category: 'Guides', published: '2026-01-01', updated: '2026-01-01', readingMinutes: 1 },
      {
        slug: 'new', title: 'Bids & asks <live> "now"', description: "It's <b>bold</b>", category: 'Engineering',
        published: '2026-02-01', updated: '2026-03-05', readingMinutes: 2,
      },
    ];
    const xml = rssXml('https://x.test', posts);
    expect(xml).toContain('<title>Bids &amp; asks &lt;live&gt; &quot;now&quot;</title>');
    expect(xml).toContain('<description>It&apos;s &lt;b&gt;bold&lt;/b&gt;</description>');
    expect(xml.indexOf('<link>https://x.test/blog/new</link>')).toBeLessThan(xml.indexOf('<link>https://x.test/blog/old</link>'));
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
