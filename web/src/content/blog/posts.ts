/**
 * The blog's articles: metadata only (the bodies are lazy-loaded modules in this folder, one per
 * slug). The blog index, the article pages, the home carousel, the routes, the prerender list, the
 * sitemap, the RSS feed and the web server's redirects all read this one file, which imports
 * nothing, so the build script and the server can load it without the bundler.
 *
 * The five articles, their slugs, categories and publication dates are the product specification's
 * (section 2, "Article pages" and "/blog"; section 3, "Article").
 */

/** The blog's categories, in chip order (specification section 2, "/blog"). */
export const BLOG_CATEGORIES = ['API Comparison', 'API Guide', 'Memecoin Guide', 'WebSocket Guide'] as const;
export type BlogCategory = (typeof BLOG_CATEGORIES)[number];

/** A link of an article's call-to-action block. */
export interface CtaLink {
  /** Site path, e.g. `/pricing`. */
  to: string;
  label: string;
}

/**
 * One article. The specification's Article entity (title, excerpt, author, date, readTime,
 * category, image, featured, slug) maps to `title`, `description`, `author`, `published`,
 * `readingMinutes`, `category`, (no image: docs/web.md, "Blog"), `featured` and `slug`.
 */
export interface BlogPostMeta {
  /** The article's path is `/<slug>` ({@link articlePath}). */
  slug: string;
  title: string;
  /** The excerpt: meta description, card and carousel summary (≤ 160 characters). */
  description: string;
  category: BlogCategory;
  /** Tags shown after the category (e.g. `Technical`). */
  tags: readonly string[];
  /** The `keywords` meta tag and the Article structured data's `keywords`. */
  keywords: readonly string[];
  author: string;
  /** ISO date the article was published (Article `datePublished`). */
  published: string;
  /** ISO date of its last change (Article `dateModified`). */
  updated: string;
  /**
   * Reading time in minutes: ceil(words / 230), words = the article's prose (body and FAQ, code
   * samples excluded), whitespace-separated. web/test/blog.test.tsx recounts it from the rendered article.
   */
  readingMinutes: number;
  /** Shown as the blog's featured article (exactly one article is). */
  featured?: boolean;
  /** The article carries FAQPage structured data. */
  hasFaq?: boolean;
  /** Links of the call-to-action block after the body, in order. */
  cta: readonly CtaLink[];
}

/** Who writes the articles (Article structured data names the organisation). */
export const BLOG_AUTHOR = 'Tradewind team';

/** The date every article was last revised for Tradewind (their `updated`). */
const REVISED = '2026-11-25';

const CTA = {
  howItWorks: { to: '/how-it-works', label: 'See how it works' },
  pricing: { to: '/pricing', label: 'Compare plans' },
  docs: { to: '/dashboard/docs', label: 'Read the API docs' },
  websocket: { to: '/solana-websocket', label: 'Solana WebSocket guide' },
  comparison: { to: '/tradewind-vs-pumpportal', label: 'Tradewind vs PumpPortal' },
} as const;

export const BLOG_POSTS: readonly BlogPostMeta[] = [
  {
    slug: 'pump-fun-api',
    title: 'Pump.fun API: stream every Pump.fun trade in real time',
    description:
      'An implementation guide to Tradewind’s Pump.fun stream: authenticate over WebSocket or NATS, read decoded trades on basic.pumpfun, resume after disconnects.',
    category: 'API Guide',
    tags: [],
    keywords: ['Pump.fun API', 'Pump.fun WebSocket', 'Pump.fun trades', 'Solana trade stream', 'basic.pumpfun', 'NATS JetStream', 'Pump.fun bot'],
    author: BLOG_AUTHOR,
    published: REVISED,
    updated: REVISED,
    readingMinutes: 18,
    featured: true,
    hasFaq: true,
    cta: [CTA.howItWorks, CTA.websocket, CTA.pricing, CTA.docs],
  },
  {
    slug: 'tradewind-vs-pumpportal',
    title: 'Tradewind vs PumpPortal: cost, latency, security and developer experience',
    description:
      'PumpPortal’s published fees against Tradewind’s flat plans, worked through at 200 trades a second, plus latency, security, tooling and when to choose each.',
    category: 'API Comparison',
    tags: [],
    keywords: ['PumpPortal alternative', 'Tradewind vs PumpPortal', 'PumpSwap data API', 'Pump.fun data API cost', 'Solana WebSocket API comparison'],
    author: BLOG_AUTHOR,
    published: '2025-07-29',
    updated: REVISED,
    readingMinutes: 14,
    hasFaq: true,
    cta: [CTA.pricing, CTA.howItWorks, CTA.docs],
  },
  {
    slug: 'letsbonk-fun-api',
    title: 'LetsBonk.fun API: real-time token launches and trades',
    description:
      'What the LetsBonk.fun API delivers: new tokens with symbol, supply and creator, every buy and sell, migrations, providers, pricing, limits and a first client.',
    category: 'API Guide',
    tags: ['Technical'],
    keywords: ['LetsBonk.fun API', 'Bonk launchpad', 'Raydium LaunchLab', 'basic.bonk', 'LetsBonk.fun new tokens', 'Solana token launch data'],
    author: BLOG_AUTHOR,
    published: '2025-07-25',
    updated: REVISED,
    readingMinutes: 14,
    hasFaq: true,
    cta: [CTA.comparison, CTA.howItWorks, CTA.pricing, CTA.docs],
  },
  {
    slug: 'solana-websocket',
    title: 'Solana WebSocket guide: subscriptions, commitment levels and production clients',
    description:
      'How Solana’s WebSocket API works: subscription methods, commitment levels, filtering, connection management, performance and moving off polling.',
    category: 'WebSocket Guide',
    tags: [],
    keywords: ['Solana WebSocket', 'Solana RPC WebSocket', 'logsSubscribe', 'accountSubscribe', 'programSubscribe', 'Solana commitment levels'],
    author: BLOG_AUTHOR,
    published: '2025-07-25',
    updated: REVISED,
    readingMinutes: 20,
    hasFaq: true,
    cta: [CTA.pricing, CTA.howItWorks],
  },
  {
    slug: 'solana-memecoin',
    title: 'Solana memecoins: how they work, how to research them and how to trade safely',
    description:
      'What memecoins are, why they launch on Solana, the tools to research them, how to trade more safely, the risks, and where the market may go next.',
    category: 'Memecoin Guide',
    tags: [],
    keywords: ['Solana memecoins', 'memecoin trading', 'Pump.fun tokens', 'LetsBonk.fun tokens', 'memecoin research tools', 'rug pull'],
    author: BLOG_AUTHOR,
    published: '2025-07-25',
    updated: REVISED,
    readingMinutes: 17,
    hasFaq: true,
    cta: [CTA.pricing, CTA.howItWorks],
  },
];

/** The article with `slug`, or undefined. */
export function blogPost(slug: string): BlogPostMeta | undefined {
  return BLOG_POSTS.find((p) => p.slug === slug);
}

/** Site path of an article: `/<slug>` (specification section 2, "Article pages live at /{slug}"). */
export function articlePath(slug: string): string {
  return `/${slug}`;
}

/**
 * The blog's earlier articles (served at `/blog/<slug>` until 2026-11-25), each mapped to the
 * current article that now holds its material. The web server answers their old URLs with a 301
 * to the new article (web/server/app.ts); in the app, `/blog/<old slug>` navigates there too.
 */
export const RETIRED_POSTS: Readonly<Record<string, string>> = Object.freeze({
  'stream-pump-fun-trades-websocket': 'pump-fun-api',
  'nats-jetstream-solana-trades': 'pump-fun-api',
  'building-a-trading-bot-with-tradewind': 'pump-fun-api',
  'decoding-pump-fun-and-letsbonk-trades': 'letsbonk-fun-api',
  'pumpswap-raydium-cpmm-premium-subjects': 'tradewind-vs-pumpportal',
});

/**
 * Where `/blog/<slug>` now lives: a retired article's successor, or a current article's own
 * `/<slug>`; undefined for any other slug (a 404).
 */
export function movedBlogPath(slug: string): string | undefined {
  // Own keys only: `/blog/constructor` must not find Object.prototype's members.
  const target = Object.hasOwn(RETIRED_POSTS, slug) ? RETIRED_POSTS[slug] : blogPost(slug) ? slug : undefined;
  return target === undefined ? undefined : articlePath(target);
}
