import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { PLANS, PLAN_IDS } from '@tradewind/contracts/plans';
import { AppShell } from '../src/App';
import Blog, { categoryCounts } from '../src/pages/Blog';
import BlogArticle, { ARTICLE_LOADERS, ArticleContent, MovedBlogArticle, articleJsonLd, relatedPosts, type ArticleModule } from '../src/pages/BlogArticle';
import { BLOG_CATEGORIES, BLOG_POSTS, RETIRED_POSTS, articlePath, blogPost, movedBlogPath } from '../src/content/blog/posts';
import { formatPostDate } from '../src/components/blog/PostCard';
import { BASELINE_TRADES_PER_SECOND, messagesPerDay, planUsdPerDay, pumpPortalSol } from '../src/content/blog/tradewind-vs-pumpportal';
import { PUBLIC_PATHS, redirectTarget } from '../src/route-paths';
import { STARTER_TEMPLATES, templateFileUrl } from '../src/content/templates';
import { HeadCollectorContext, headHtml, type PageHead } from '../src/seo';
import { absoluteUrl } from '../src/site';
import { StaticAuthProvider } from '../src/session/session';

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname + location.search}</output>;
}

/** The blog index and the article routes as App.tsx declares them (without the site layout). */
function renderAt(url: string, collector?: { head?: PageHead }) {
  return render(
    <HeadCollectorContext.Provider value={collector ?? null}>
      <MemoryRouter initialEntries={[url]}>
        <StaticAuthProvider>
          <Routes>
            <Route path="/blog" element={<Blog />} />
            {BLOG_POSTS.map((p) => (
              <Route key={p.slug} path={articlePath(p.slug)} element={<BlogArticle slug={p.slug} />} />
            ))}
            <Route path="/blog/:slug" element={<MovedBlogArticle />} />
          </Routes>
          <LocationProbe />
        </StaticAuthProvider>
      </MemoryRouter>
    </HeadCollectorContext.Provider>,
  );
}

/** The whole app (App.tsx's route table inside the site layout), signed out. */
function renderApp(url: string) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <StaticAuthProvider>
        <AppShell />
        <LocationProbe />
      </StaticAuthProvider>
    </MemoryRouter>,
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

/** Renders an article page and waits for its body. */
async function openArticle(slug: string, collector?: { head?: PageHead }) {
  await loadModule(slug);
  const view = renderAt(articlePath(slug), collector);
  await screen.findByTestId('article-content');
  return view;
}

const hrefs = (root: HTMLElement) =>
  within(root)
    .getAllByRole('link')
    .map((a) => a.getAttribute('href'));

describe('blog index', () => {
  it('when /blog opens, then the chips are All (5) pressed, and the four categories with API Guide 2 and the others 1', () => {
    renderAt('/blog');
    const chips = within(screen.getByRole('group', { name: 'Filter articles by category' })).getAllByRole('button');
    expect(chips.map((c) => c.textContent)).toEqual(['All (5)', 'API Comparison (1)', 'API Guide (2)', 'Memecoin Guide (1)', 'WebSocket Guide (1)']);
    expect(chips.map((c) => c.getAttribute('aria-pressed'))).toEqual(['true', 'false', 'false', 'false', 'false']);
    expect(categoryCounts(BLOG_POSTS)).toEqual([
      ['API Comparison', 1],
      ['API Guide', 2],
      ['Memecoin Guide', 1],
      ['WebSocket Guide', 1],
    ]);
    expect(BLOG_CATEGORIES).toEqual(['API Comparison', 'API Guide', 'Memecoin Guide', 'WebSocket Guide']);
  });

  it('holds exactly the five specification articles, one of them featured', () => {
    expect(BLOG_POSTS.map((p) => p.slug).sort()).toEqual([
      'letsbonk-fun-api',
      'pump-fun-api',
      'solana-memecoin',
      'solana-websocket',
      'tradewind-vs-pumpportal',
    ]);
    expect(BLOG_POSTS.filter((p) => p.featured).map((p) => p.slug)).toEqual(['pump-fun-api']);
    expect(Object.fromEntries(BLOG_POSTS.map((p) => [p.slug, [p.category, p.published]]))).toEqual({
      'pump-fun-api': ['API Guide', '2026-11-25'],
      'tradewind-vs-pumpportal': ['API Comparison', '2025-07-29'],
      'letsbonk-fun-api': ['API Guide', '2025-07-25'],
      'solana-websocket': ['WebSocket Guide', '2025-07-25'],
      'solana-memecoin': ['Memecoin Guide', '2025-07-25'],
    });
    for (const p of BLOG_POSTS) {
      expect(p.updated, p.slug).toBe('2026-11-25');
      expect(p.description.length, p.slug).toBeLessThanOrEqual(160);
      expect(p.keywords.length, p.slug).toBeGreaterThanOrEqual(3);
    }
    expect(blogPost('letsbonk-fun-api')!.tags).toEqual(['Technical']);
  });

  it('shows the featured article large and every other article in the grid, each linking to /<slug>', () => {
    renderAt('/blog');
    const featured = screen.getByRole('region', { name: 'Featured article' });
    const featuredLink = within(featured).getByRole('link', { name: blogPost('pump-fun-api')!.title });
    expect(featuredLink.getAttribute('href')).toBe('/pump-fun-api');
    expect(within(featured).getByRole('heading', { level: 2 }).textContent).toBe(featuredLink.textContent);
    expect(hrefs(screen.getByTestId('blog-grid'))).toEqual(['/tradewind-vs-pumpportal', '/letsbonk-fun-api', '/solana-websocket', '/solana-memecoin']);
    for (const post of BLOG_POSTS) {
      const card = screen.getByTestId(`post-card-${post.slug}`);
      expect(within(card).getByRole('link', { name: post.title }).getAttribute('href')).toBe(`/${post.slug}`);
      expect(card.textContent).toContain(post.category);
      expect(card.textContent).toContain(`${post.readingMinutes} min read`);
      expect(card.textContent).toContain(post.description);
      expect(within(card).getByText(formatPostDate(post.published)).getAttribute('datetime')).toBe(post.published);
    }
    expect(within(screen.getByTestId('post-card-letsbonk-fun-api')).getByText('Technical')).toBeTruthy();
    expect(within(screen.getByTestId('post-card-tradewind-vs-pumpportal')).getByText('29 July 2025')).toBeTruthy();
  });

  it('filters by category with toggle chips kept in ?category=, and a second press shows all again', async () => {
    const user = userEvent.setup();
    renderAt('/blog');
    await user.click(screen.getByRole('button', { name: 'API Guide (2)' }));
    expect(screen.getByTestId('location').textContent).toBe('/blog?category=API+Guide');
    expect(screen.getByRole('button', { name: 'API Guide (2)' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: 'All (5)' }).getAttribute('aria-pressed')).toBe('false');
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('data-testid'))).toEqual(['post-card-pump-fun-api', 'post-card-letsbonk-fun-api']);
    await user.click(screen.getByRole('button', { name: 'WebSocket Guide (1)' }));
    expect(screen.queryByRole('region', { name: 'Featured article' })).toBeNull();
    expect(hrefs(screen.getByTestId('blog-grid'))).toEqual(['/solana-websocket']);
    await user.click(screen.getByRole('button', { name: 'WebSocket Guide (1)' }));
    expect(screen.getByTestId('location').textContent).toBe('/blog');
    expect(screen.getAllByRole('article')).toHaveLength(5);
  });

  it('with ?category=API Comparison shows the comparison only; an unknown category shows all', () => {
    const { unmount } = renderAt('/blog?category=API%20Comparison');
    expect(screen.getByRole('button', { name: 'API Comparison (1)' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('data-testid'))).toEqual(['post-card-tradewind-vs-pumpportal']);
    unmount();
    renderAt('/blog?category=Tutorials');
    expect(screen.getByRole('button', { name: 'All (5)' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getAllByRole('article')).toHaveLength(5);
  });

  it('declares its head with path /blog and has one h1', () => {
    const collector: { head?: PageHead } = {};
    renderAt('/blog', collector);
    expect(collector.head?.path).toBe('/blog');
    expect(collector.head?.noindex).toBeUndefined();
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Tradewind blog']);
  });
});

describe('article pages', () => {
  it('has one article module per slug and nothing else, and each slug is a prerendered public path /<slug>', () => {
    expect(Object.keys(ARTICLE_LOADERS).sort()).toEqual(BLOG_POSTS.map((p) => p.slug).sort());
    for (const p of BLOG_POSTS) expect(PUBLIC_PATHS).toContain(`/${p.slug}`);
    expect(PUBLIC_PATHS.filter((p) => p.startsWith('/blog/'))).toEqual([]);
  });

  for (const post of BLOG_POSTS) {
    it(`${post.slug}: at /${post.slug}, renders Back to Blog, h1, meta, table of contents, related articles and its call to action`, async () => {
      const m = await loadModule(post.slug);
      const collector: { head?: PageHead } = {};
      renderAt(`/${post.slug}`, collector);
      const h1 = await screen.findByRole('heading', { level: 1, name: post.title });
      expect(screen.getAllByRole('heading', { level: 1 })).toEqual([h1]);
      await screen.findByTestId('article-content');

      expect(screen.getByRole('link', { name: 'Back to Blog' }).getAttribute('href')).toBe('/blog');
      const crumbs = within(screen.getByRole('navigation', { name: 'Breadcrumb' }));
      expect(crumbs.getByRole('link', { name: 'Blog' }).getAttribute('href')).toBe('/blog');
      const header = h1.closest('header')!;
      expect(header.textContent).toContain(`${post.readingMinutes} min read`);
      expect(header.textContent).toContain(post.category);
      for (const t of post.tags) expect(header.textContent).toContain(t);
      expect(within(header).getByText(formatPostDate(post.published)).getAttribute('datetime')).toBe(post.published);
      expect(header.textContent).toContain(`By ${post.author}`);

      const tocLinks = within(screen.getByRole('navigation', { name: 'On this page' })).getAllByRole('link');
      const content = screen.getByTestId('article-content');
      const h2s = Array.from(content.querySelectorAll('h2'));
      expect(h2s.length).toBeGreaterThanOrEqual(5);
      expect(tocLinks.map((a) => a.getAttribute('href'))).toEqual(h2s.map((h) => `#${h.id}`));
      expect(tocLinks.map((a) => a.textContent)).toEqual(h2s.map((h) => h.textContent));
      expect(new Set(h2s.map((h) => h.id)).size).toBe(h2s.length);
      // No link inside an article points at a retired /blog/<slug> URL.
      for (const a of content.querySelectorAll('a')) expect(a.getAttribute('href') ?? '', post.slug).not.toMatch(/^\/blog\//);

      const related = screen.getByRole('region', { name: 'Related articles' });
      expect(hrefs(related)).toEqual(relatedPosts(post).map((p) => `/${p.slug}`));
      expect(hrefs(related)).not.toContain(`/${post.slug}`);
      expect(hrefs(related)).toHaveLength(3);

      const cta = screen.getByRole('complementary', { name: 'Start streaming Solana trades' });
      expect(hrefs(cta)).toEqual(post.cta.map((l) => l.to));

      const head = collector.head!;
      expect(head.path).toBe(`/${post.slug}`);
      expect(head.ogType).toBe('article');
      expect(head.title).toBe(post.title);
      expect(head.description).toBe(post.description);
      expect(head.keywords).toEqual(post.keywords);
      expect(head.article).toEqual({ publishedTime: post.published, modifiedTime: post.updated, section: post.category, tags: [post.category, ...post.tags] });
      const types = (head.jsonLd ?? []).map((o) => (o as { '@type': string })['@type']);
      expect(types).toEqual((m.faq?.length ?? 0) > 0 ? ['Article', 'BreadcrumbList', 'FAQPage'] : ['Article', 'BreadcrumbList']);
      expect(Boolean(post.hasFaq)).toBe((m.faq?.length ?? 0) > 0);
    });
  }

  it('the prerendered head of an article carries title, description, keywords, canonical, Open Graph, Twitter and JSON-LD', async () => {
    const collector: { head?: PageHead } = {};
    await openArticle('letsbonk-fun-api', collector);
    const html = headHtml(collector.head!);
    const post = blogPost('letsbonk-fun-api')!;
    expect(html).toContain(`<title>${post.title} | Tradewind</title>`);
    expect(html).toContain(`<meta name="description" content="${post.description}" />`);
    expect(html).toContain(`<meta name="keywords" content="${post.keywords.join(', ')}" />`);
    expect(html).toContain(`<link rel="canonical" href="${absoluteUrl('/letsbonk-fun-api')}" />`);
    expect(html).toContain('<meta property="og:type" content="article" />');
    expect(html).toContain(`<meta property="og:url" content="${absoluteUrl('/letsbonk-fun-api')}" />`);
    expect(html).toContain('<meta property="article:published_time" content="2025-07-25" />');
    expect(html).toContain('<meta property="article:modified_time" content="2026-11-25" />');
    expect(html).toContain('<meta property="article:tag" content="API Guide" />');
    expect(html).toContain('<meta property="article:tag" content="Technical" />');
    expect(html).toContain(`<meta name="twitter:title" content="${post.title} | Tradewind" />`);
    expect(html).toContain('"@type":"Article"');
    expect(html).toContain('"@type":"FAQPage"');
  });

  it('in the browser, an article updates the keywords, Twitter and article meta tags, and a page without them removes them', async () => {
    await openArticle('tradewind-vs-pumpportal');
    const post = blogPost('tradewind-vs-pumpportal')!;
    expect(document.head.querySelector('meta[name="keywords"]')?.getAttribute('content')).toBe(post.keywords.join(', '));
    expect(document.head.querySelector('meta[name="twitter:title"]')?.getAttribute('content')).toBe(`${post.title} | Tradewind`);
    expect(document.head.querySelector('meta[property="article:published_time"]')?.getAttribute('content')).toBe('2025-07-29');
    expect(document.head.querySelector('link[rel="canonical"]')?.getAttribute('href')).toBe(absoluteUrl('/tradewind-vs-pumpportal'));
    fireEvent.click(screen.getByRole('link', { name: 'Back to Blog' }));
    await screen.findByRole('heading', { level: 1, name: 'Tradewind blog' });
    await waitFor(() => expect(document.title).toMatch(/^Blog: /));
    expect(document.head.querySelector('meta[name="keywords"]')).toBeNull();
    expect(document.head.querySelector('meta[property="article:published_time"]')).toBeNull();
  });

  it('Article structured data: headline, dates (published from the specification, modified 2026-11-25), keywords, canonical page', () => {
    const post = blogPost('tradewind-vs-pumpportal')!;
    const [article, crumbs] = articleJsonLd(post, undefined) as Array<Record<string, unknown>>;
    expect(article).toMatchObject({
      '@type': 'Article',
      headline: post.title,
      description: post.description,
      datePublished: '2025-07-29',
      dateModified: '2026-11-25',
      keywords: post.keywords.join(', '),
      articleSection: 'API Comparison',
      author: { '@type': 'Organization', name: 'Tradewind' },
      publisher: { '@type': 'Organization', name: 'Tradewind' },
      mainEntityOfPage: absoluteUrl('/tradewind-vs-pumpportal'),
    });
    expect((crumbs as { itemListElement: Array<{ item: string }> }).itemListElement.map((i) => i.item)).toEqual([
      absoluteUrl('/'),
      absoluteUrl('/blog'),
      absoluteUrl('/tradewind-vs-pumpportal'),
    ]);
  });

  it('renders the FAQ and its FAQPage data from the same questions', async () => {
    const m = await loadModule('pump-fun-api');
    const collector: { head?: PageHead } = {};
    await openArticle('pump-fun-api', collector);
    const section = screen.getByRole('heading', { level: 2, name: 'Frequently asked questions' }).closest('section')!;
    expect(
      within(section)
        .getAllByRole('heading', { level: 3 })
        .map((h) => h.textContent),
    ).toEqual(m.faq!.map((q) => q.question));
    const faqLd = collector.head!.jsonLd!.find((o) => (o as { '@type': string })['@type'] === 'FAQPage') as {
      mainEntity: Array<{ name: string; acceptedAnswer: { text: string } }>;
    };
    expect(faqLd.mainEntity.map((q) => q.name)).toEqual(m.faq!.map((q) => q.question));
    expect(faqLd.mainEntity[0]!.acceptedAnswer.text).toBe(m.faq![0]!.answer);
  });

  it('renders the not-found page with noindex for a slug that is not an article', async () => {
    const collector: { head?: PageHead } = {};
    render(
      <HeadCollectorContext.Provider value={collector}>
        <MemoryRouter>
          <BlogArticle slug="no-such-article" />
        </MemoryRouter>
      </HeadCollectorContext.Provider>,
    );
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Page not found');
    expect(collector.head?.noindex).toBe(true);
  });

  for (const post of BLOG_POSTS) {
    it(`${post.slug}: readingMinutes = ceil(words / 230) of its prose`, async () => {
      const m = await loadModule(post.slug);
      const { container } = render(
        <MemoryRouter>
          <ArticleContent module={m} />
        </MemoryRouter>,
      );
      const words = proseWords(container);
      expect(words).toBeGreaterThanOrEqual(1200);
      expect(post.readingMinutes, `${post.slug}: ${words} words`).toBe(Math.ceil(words / 230));
    });
  }
});

describe('article content the specification names', () => {
  const sectionIds = () => Array.from(screen.getByTestId('article-content').querySelectorAll('h2')).map((h) => h.id);
  const contentLinks = () => Array.from(screen.getByTestId('article-content').querySelectorAll('a')).map((a) => a.getAttribute('href'));

  it('pump-fun-api: implementation guide, starter templates with their files, conclusion; links to /tradewind-vs-pumpportal; CTA to /how-it-works, /solana-websocket, /pricing, /dashboard/docs', async () => {
    await openArticle('pump-fun-api');
    expect(sectionIds()).toEqual(expect.arrayContaining(['handshake', 'first-client', 'reconnect', 'templates', 'conclusion']));
    expect(contentLinks()).toContain('/tradewind-vs-pumpportal');
    const cta = screen.getByRole('complementary', { name: 'Start streaming Solana trades' });
    expect(hrefs(cta)).toEqual(['/how-it-works', '/solana-websocket', '/pricing', '/dashboard/docs']);
    const templates = screen.getByRole('heading', { level: 2, name: 'Starter templates' }).closest('section')!;
    for (const t of STARTER_TEMPLATES) {
      expect(templates.textContent).toContain(t.title);
      for (const f of t.files) expect(hrefs(templates)).toContain(templateFileUrl(f));
    }
    // No unmeasured marketing claims.
    expect(screen.getByTestId('article-content').textContent).not.toMatch(/99\.9|131 ?µs|30x|4,700x|6,900/);
  });

  it('pump-fun-api: the plans table is read from the catalogue', async () => {
    await openArticle('pump-fun-api');
    const table = screen.getByRole('heading', { level: 2, name: 'What the Pump.fun stream carries' }).closest('section')!.querySelector('table')!;
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => r.textContent);
    expect(rows).toEqual(
      PLAN_IDS.map((id) => {
        const p = PLANS[id];
        return `${p.name}${p.monthlyUsd === 0 ? 'free' : `$${p.monthlyUsd} a month`}${p.subjects.join(', ')}${p.connections}${p.requestsPerMinute.toLocaleString('en-US')}${p.replay ? 'yes' : '—'}`;
      }),
    );
    expect(rows[2]).toBe('Pro$35 a monthbasic.pumpfun, basic.bonk, premium.pumpswap, premium.raydium510,000yes');
  });

  it('letsbonk-fun-api: its six sections, the four data items, and links to /tradewind-vs-pumpportal, /how-it-works, /pricing, /dashboard/docs', async () => {
    await openArticle('letsbonk-fun-api');
    expect(sectionIds()).toEqual(
      expect.arrayContaining(['what-it-is', 'core-functionality', 'api-providers', 'pricing-limits', 'getting-started', 'conclusion']),
    );
    const text = screen.getByTestId('article-content').textContent!.toLowerCase();
    for (const item of ['token symbol', 'creation timestamp', 'total supply', 'creator address']) expect(text).toContain(item);
    const links = [...contentLinks(), ...hrefs(screen.getByRole('complementary', { name: 'Start streaming Solana trades' }))];
    for (const to of ['/tradewind-vs-pumpportal', '/how-it-works', '/pricing', '/dashboard/docs']) expect(links).toContain(to);
    const header = screen.getByRole('heading', { level: 1 }).closest('header')!;
    expect(within(header).getByText('API Guide')).toBeTruthy();
    expect(within(header).getByText('Technical')).toBeTruthy();
    expect(within(header).getByText('25 July 2025')).toBeTruthy();
  });

  it('tradewind-vs-pumpportal: cost math, latency, security, developer experience, templates, when to choose; the arithmetic from the catalogue', async () => {
    await openArticle('tradewind-vs-pumpportal');
    expect(sectionIds()).toEqual(expect.arrayContaining(['cost-math', 'latency', 'security', 'developer-experience', 'templates', 'moving', 'when-to-choose']));
    expect(messagesPerDay(BASELINE_TRADES_PER_SECOND)).toBe(17_280_000);
    expect(pumpPortalSol(messagesPerDay(200))).toBeCloseTo(17.28, 10);
    expect(planUsdPerDay(PLANS.pro.monthlyUsd).toFixed(2)).toBe('1.17');
    const cost = screen.getByRole('heading', { level: 2, name: 'Cost math: a fee per message against a flat plan' }).closest('section')!;
    expect(cost.textContent).toContain('200 × 86,400 seconds = 17,280,000');
    expect(cost.textContent).toContain('17.28 SOL a day');
    expect(cost.textContent).toContain('$35 / 30 = $1.17 a day');
    const rows = within(cost.querySelector('table')!)
      .getAllByRole('row')
      .slice(1)
      .map((r) => Array.from(r.children).map((c) => c.textContent));
    expect(rows).toContainEqual(['$318', '$5,495', '$0.50', '$1.17']);
    expect(rows).toContainEqual(['$150', '$2,592', '$0.50', '$1.17']);
    // The latency table states our measured, dated figures and claims nothing about PumpPortal.
    const latency = screen.getByRole('heading', { level: 2, name: 'Latency: what is measured and what is not' }).closest('section')!;
    expect(latency.textContent).toContain('0.51 / 5.2 ms');
    expect(latency.textContent).toContain('25 November 2026');
    expect(screen.getByTestId('article-content').textContent).not.toMatch(/99\.9|131 ?µs|30x faster|4,700x/);
  });

  it('tradewind-vs-pumpportal: the calculator recomputes from the reader’s rate and SOL price', async () => {
    await openArticle('tradewind-vs-pumpportal');
    const result = screen.getByTestId('calculator-result');
    expect(result.textContent).toContain('17,280,000 messages a day cost 17.28 SOL ($2,592.00) a day');
    expect(result.textContent).toContain('Plus is $0.50 and Pro $1.17 a day');
    fireEvent.change(screen.getByLabelText('PumpSwap messages per second'), { target: { value: '10' } });
    fireEvent.change(screen.getByLabelText('SOL price in USD'), { target: { value: '200' } });
    expect(result.textContent).toContain('864,000 messages a day cost 0.86 SOL ($172.80) a day');
    fireEvent.change(screen.getByLabelText('SOL price in USD'), { target: { value: '' } });
    expect(screen.getByTestId('calculator-result').textContent).toBe('Enter a rate and a price of zero or more.');
  });
});

describe('moved articles', () => {
  it('maps every retired /blog/<slug> to its successor and /blog/<current slug> to /<slug>; nothing else', () => {
    expect(RETIRED_POSTS).toEqual({
      'stream-pump-fun-trades-websocket': 'pump-fun-api',
      'nats-jetstream-solana-trades': 'pump-fun-api',
      'building-a-trading-bot-with-tradewind': 'pump-fun-api',
      'decoding-pump-fun-and-letsbonk-trades': 'letsbonk-fun-api',
      'pumpswap-raydium-cpmm-premium-subjects': 'tradewind-vs-pumpportal',
    });
    for (const [old, now] of Object.entries(RETIRED_POSTS)) {
      expect(blogPost(now), old).toBeDefined();
      expect(redirectTarget(`/blog/${old}`)).toBe(`/${now}`);
      expect(redirectTarget(`/blog/${old}/`)).toBe(`/${now}`);
    }
    for (const p of BLOG_POSTS) expect(redirectTarget(`/blog/${p.slug}`)).toBe(`/${p.slug}`);
    for (const path of [
      '/blog',
      '/blog/',
      '/blog/nope',
      '/blog/constructor',
      '/blog/__proto__',
      '/blog/rss.xml',
      '/pump-fun-api',
      '/blog/pump-fun-api/extra',
    ]) {
      expect(redirectTarget(path), path).toBeUndefined();
    }
    expect(movedBlogPath('toString')).toBeUndefined();
  });

  it('when the app opens /blog/<retired slug>, then it replaces the URL with the new article, keeping the query', async () => {
    await loadModule('letsbonk-fun-api');
    renderAt('/blog/decoding-pump-fun-and-letsbonk-trades?utm_source=x');
    await screen.findByRole('heading', { level: 1, name: blogPost('letsbonk-fun-api')!.title });
    expect(screen.getByTestId('location').textContent).toBe('/letsbonk-fun-api?utm_source=x');
  });

  it('when the app opens /blog/<unknown>, then it shows the not-found page', () => {
    renderAt('/blog/no-such-article');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Page not found');
  });
});

describe('App route table', () => {
  it('serves each article at /<slug> inside the site layout, and /blog/<old slug> lands on its successor', async () => {
    await loadModule('pump-fun-api');
    const { unmount } = renderApp('/pump-fun-api');
    expect(await screen.findByRole('heading', { level: 1, name: blogPost('pump-fun-api')!.title })).toBeTruthy();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy();
    unmount();
    renderApp('/blog/stream-pump-fun-trades-websocket');
    expect(await screen.findByRole('heading', { level: 1, name: blogPost('pump-fun-api')!.title })).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/pump-fun-api');
  });
});

// Keep `act` imported for React's act environment in this file's async renders.
void act;
