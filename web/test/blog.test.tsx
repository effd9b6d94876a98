import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import Blog, { categoryCounts } from '../src/pages/Blog';
import BlogArticle, { ARTICLE_LOADERS, ArticleContent, articleJsonLd, relatedPosts, type ArticleModule } from '../src/pages/BlogArticle';
import { BLOG_POSTS, blogPost } from '../src/content/blog/posts';
import { HeadCollectorContext, type PageHead } from '../src/seo';
import { absoluteUrl } from '../src/site';
import { StaticAuthProvider } from '../src/session/session';

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname + location.search}</output>;
}

function renderAt(url: string, collector?: { head?: PageHead }) {
  return render(
    <HeadCollectorContext.Provider value={collector ?? null}>
      <MemoryRouter initialEntries={[url]}>
        <StaticAuthProvider>
          <Routes>
            <Route path="/blog" element={<Blog />} />
            <Route path="/blog/:slug" element={<BlogArticle />} />
          </Routes>
          <LocationProbe />
        </StaticAuthProvider>
      </MemoryRouter>
    </HeadCollectorContext.Provider>,
  );
}

/** Words of the article's prose: body and FAQ text, code samples excluded, split on whitespace. */
function proseWords(container: HTMLElement): number {
  const content = container.querySelector('[data-testid="article-content"]');
  if (!content) throw new Error('no article content');
  const copy = content.cloneNode(true) as HTMLElement;
  for (const code of copy.querySelectorAll('figure.blog-code')) code.remove();
  return (copy.textContent ?? '').split(/\s+/).filter((w) => w.length > 0).length;
}

const modules = new Map<string, ArticleModule>();
async function loadModule(slug: string): Promise<ArticleModule> {
  let m = modules.get(slug);
  if (!m) {
    m = await ARTICLE_LOADERS[slug]!();
    modules.set(slug, m);
  }
  return m;
}

describe('blog index', () => {
  it('shows chips with the counts of posts.ts: All (5), Tutorials (2), Guides (2), Engineering (1)', () => {
    renderAt('/blog');
    const chips = within(screen.getByRole('group', { name: 'Filter articles by category' })).getAllByRole('button');
    expect(chips.map((c) => c.textContent)).toEqual(['All (5)', 'Tutorials (2)', 'Guides (2)', 'Engineering (1)']);
    expect(chips.map((c) => c.getAttribute('aria-pressed'))).toEqual(['true', 'false', 'false', 'false']);
    expect(categoryCounts(BLOG_POSTS)).toEqual([['Tutorials', 2], ['Guides', 2], ['Engineering', 1]]);
  });

  it('shows the featured article large and every other article in the grid, each linking to /blog/<slug>', () => {
    renderAt('/blog');
    const featured = screen.getByRole('region', { name: 'Featured article' });
    const featuredLink = within(featured).getByRole('link', { name: 'Stream Pump.fun trades in real time over WebSocket' });
    expect(featuredLink.getAttribute('href')).toBe('/blog/stream-pump-fun-trades-websocket');
    expect(within(featured).getByRole('heading', { level: 2 }).textContent).toBe(featuredLink.textContent);
    const grid = screen.getByTestId('blog-grid');
    const gridLinks = within(grid).getAllByRole('link').map((a) => a.getAttribute('href'));
    expect(gridLinks).toEqual([
      '/blog/nats-jetstream-solana-trades',
      '/blog/decoding-pump-fun-and-letsbonk-trades',
      '/blog/pumpswap-raydium-cpmm-premium-subjects',
      '/blog/building-a-trading-bot-with-tradewind',
    ]);
    for (const post of BLOG_POSTS) {
      const card = screen.getByTestId(`post-card-${post.slug}`);
      expect(within(card).getByRole('link', { name: post.title }).getAttribute('href')).toBe(`/blog/${post.slug}`);
      expect(card.textContent).toContain(post.category);
      expect(card.textContent).toContain(`${post.readingMinutes} min read`);
      expect(card.textContent).toContain(post.description);
      expect(within(card).getByText('21 November 2026').getAttribute('datetime')).toBe(post.published);
    }
  });

  it('filters by category with toggle chips kept in ?category=, and a second press shows all again', async () => {
    const user = userEvent.setup();
    renderAt('/blog');
    await user.click(screen.getByRole('button', { name: 'Guides (2)' }));
    expect(screen.getByTestId('location').textContent).toBe('/blog?category=Guides');
    expect(screen.getByRole('button', { name: 'Guides (2)' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: 'All (5)' }).getAttribute('aria-pressed')).toBe('false');
    expect(screen.queryByRole('region', { name: 'Featured article' })).toBeNull();
    expect(within(screen.getByTestId('blog-grid')).getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual([
      '/blog/nats-jetstream-solana-trades',
      '/blog/pumpswap-raydium-cpmm-premium-subjects',
    ]);
    await user.click(screen.getByRole('button', { name: 'Guides (2)' }));
    expect(screen.getByTestId('location').textContent).toBe('/blog');
    expect(screen.getAllByRole('article')).toHaveLength(5);
  });

  it('with ?category=Tutorials shows the featured tutorial and the other tutorial only', () => {
    renderAt('/blog?category=Tutorials');
    expect(screen.getByRole('button', { name: 'Tutorials (2)' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('region', { name: 'Featured article' })).toBeTruthy();
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('data-testid'))).toEqual([
      'post-card-stream-pump-fun-trades-websocket',
      'post-card-building-a-trading-bot-with-tradewind',
    ]);
  });

  it('ignores an unknown ?category= and shows all articles', () => {
    renderAt('/blog?category=Nope');
    expect(screen.getByRole('button', { name: 'All (5)' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getAllByRole('article')).toHaveLength(5);
  });

  it('offers the RSS feed and the community page in Stay updated, and no e-mail form', () => {
    renderAt('/blog');
    const box = screen.getByRole('region', { name: 'Stay updated' });
    expect(within(box).getByRole('link', { name: 'Subscribe to the RSS feed' }).getAttribute('href')).toBe('/blog/rss.xml');
    expect(within(box).getByRole('link', { name: 'Join the community' }).getAttribute('href')).toBe('/community');
    expect(document.querySelector('form, input[type="email"]')).toBeNull();
  });

  it('declares its head with path /blog', () => {
    const collector: { head?: PageHead } = {};
    renderAt('/blog', collector);
    expect(collector.head?.path).toBe('/blog');
    expect(collector.head?.noindex).toBeUndefined();
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Tradewind blog']);
  });
});

describe('article pages', () => {
  it('has one article module per slug and nothing else', () => {
    expect(Object.keys(ARTICLE_LOADERS).sort()).toEqual(BLOG_POSTS.map((p) => p.slug).sort());
  });

  for (const post of BLOG_POSTS) {
    it(`${post.slug}: renders h1, meta, a table of contents matching the h2 ids, related articles and the call to action`, async () => {
      await loadModule(post.slug);
      const collector: { head?: PageHead } = {};
      renderAt(`/blog/${post.slug}`, collector);
      const h1 = await screen.findByRole('heading', { level: 1, name: post.title });
      expect(screen.getAllByRole('heading', { level: 1 })).toEqual([h1]);
      await screen.findByTestId('article-content');

      const crumbs = within(screen.getByRole('navigation', { name: 'Breadcrumb' }));
      expect(crumbs.getByRole('link', { name: 'Blog' }).getAttribute('href')).toBe('/blog');
      const header = h1.closest('header')!;
      expect(header.textContent).toContain(`${post.readingMinutes} min read`);
      expect(header.textContent).toContain(post.category);
      expect(header.textContent).toContain('21 November 2026');

      const tocLinks = within(screen.getByRole('navigation', { name: 'On this page' })).getAllByRole('link');
      const content = screen.getByTestId('article-content');
      const h2s = Array.from(content.querySelectorAll('h2'));
      expect(h2s.length).toBeGreaterThanOrEqual(5);
      expect(tocLinks.map((a) => a.getAttribute('href'))).toEqual(h2s.map((h) => `#${h.id}`));
      expect(tocLinks.map((a) => a.textContent)).toEqual(h2s.map((h) => h.textContent));
      expect(new Set(h2s.map((h) => h.id)).size).toBe(h2s.length);

      const related = screen.getByRole('region', { name: 'Related articles' });
      const relatedHrefs = within(related).getAllByRole('link').map((a) => a.getAttribute('href'));
      expect(relatedHrefs).toEqual(relatedPosts(post).map((p) => `/blog/${p.slug}`));
      expect(relatedHrefs).not.toContain(`/blog/${post.slug}`);
      expect(relatedHrefs).toHaveLength(3);

      const cta = screen.getByRole('complementary', { name: 'Try it on your own stream' });
      expect(within(cta).getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual(['/login', '/pricing', '/dashboard/docs']);

      const head = collector.head!;
      expect(head.path).toBe(`/blog/${post.slug}`);
      expect(head.ogType).toBe('article');
      expect(head.title).toBe(post.title);
      const types = (head.jsonLd ?? []).map((o) => (o as { '@type': string })['@type']);
      expect(types).toEqual(post.hasFaq ? ['Article', 'BreadcrumbList', 'FAQPage'] : ['Article', 'BreadcrumbList']);
    });
  }

  it('Article structured data names Tradewind as author and publisher and the canonical page', async () => {
    const post = blogPost('decoding-pump-fun-and-letsbonk-trades')!;
    const [article] = articleJsonLd(post, undefined) as Array<Record<string, unknown>>;
    expect(article).toMatchObject({
      '@type': 'Article',
      headline: post.title,
      description: post.description,
      datePublished: '2026-11-21',
      dateModified: '2026-11-21',
      author: { '@type': 'Organization', name: 'Tradewind' },
      publisher: { '@type': 'Organization', name: 'Tradewind' },
      mainEntityOfPage: absoluteUrl('/blog/decoding-pump-fun-and-letsbonk-trades'),
    });
  });

  it('renders the FAQ and its FAQPage data from the same questions', async () => {
    const m = await loadModule('building-a-trading-bot-with-tradewind');
    const collector: { head?: PageHead } = {};
    renderAt('/blog/building-a-trading-bot-with-tradewind', collector);
    const faqHeading = await screen.findByRole('heading', { level: 2, name: 'Frequently asked questions' });
    const section = faqHeading.closest('section')!;
    expect(within(section).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(m.faq!.map((q) => q.question));
    const faqLd = collector.head!.jsonLd!.find((o) => (o as { '@type': string })['@type'] === 'FAQPage') as {
      mainEntity: Array<{ name: string; acceptedAnswer: { text: string } }>;
    };
    expect(faqLd.mainEntity.map((q) => q.name)).toEqual(m.faq!.map((q) => q.question));
    expect(faqLd.mainEntity[0]!.acceptedAnswer.text).toBe(m.faq![0]!.answer);
  });

  it('states prices and limits from the plans catalogue', async () => {
    await loadModule('pumpswap-raydium-cpmm-premium-subjects');
    renderAt('/blog/pumpswap-raydium-cpmm-premium-subjects');
    await screen.findByTestId('article-content');
    const rows = within(screen.getByRole('table')).getAllByRole('row').map((r) => r.textContent);
    expect(rows).toEqual([
      'planpricepremium subjectsconnections per transportreplay',
      'Starterfree—1—',
      'Plus$15 a monthpremium.pumpswap, premium.raydium1—',
      'Pro$35 a monthpremium.pumpswap, premium.raydium5yes',
    ]);
  });

  it('renders the not-found page with noindex for an unknown slug', async () => {
    const collector: { head?: PageHead } = {};
    renderAt('/blog/no-such-article', collector);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Page not found');
    expect(collector.head?.noindex).toBe(true);
  });

  for (const post of BLOG_POSTS) {
    it(`${post.slug}: is 1,200–2,000 words and readingMinutes = ceil(words / 230)`, async () => {
      const m = await loadModule(post.slug);
      const { container } = render(
        <MemoryRouter>
          <ArticleContent module={m} />
        </MemoryRouter>,
      );
      const words = proseWords(container);
      expect(words).toBeGreaterThanOrEqual(1200);
      expect(words).toBeLessThanOrEqual(2000);
      expect(post.readingMinutes).toBe(Math.ceil(words / 230));
      expect(Boolean(post.hasFaq)).toBe((m.faq?.length ?? 0) > 0);
    });
  }
});

// Keep `act` imported for React's act environment in this file's async renders.
void act;
