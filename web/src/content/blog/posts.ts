/**
 * The blog's articles: metadata only (the bodies are lazy-loaded pages in this folder). The blog
 * index, the home carousel, the prerender list and the sitemap all read this one list.
 */
export type BlogCategory = 'Tutorials' | 'Guides' | 'Engineering';

export interface BlogPostMeta {
  slug: string;
  title: string;
  /** Meta description and card summary (≤ 160 characters). */
  description: string;
  category: BlogCategory;
  /** ISO date the article was published / last updated. */
  published: string;
  updated: string;
  /**
   * Reading time in minutes: ceil(words / 230), words = the article's prose (body and FAQ, code
   * samples excluded), whitespace-separated. web/test/blog.test.tsx recounts it from the rendered article.
   */
  readingMinutes: number;
  /** Shown as the blog's featured article. */
  featured?: boolean;
  /** The article carries FAQPage structured data. */
  hasFaq?: boolean;
}

export const BLOG_POSTS: readonly BlogPostMeta[] = [
  {
    slug: 'stream-pump-fun-trades-websocket',
    title: 'Stream Pump.fun trades in real time over WebSocket',
    description:
      'Connect to Tradewind’s WebSocket, authenticate with your user JWT and NKey, subscribe to basic.pumpfun and read every decoded trade as JSON.',
    category: 'Tutorials',
    published: '2026-11-21',
    updated: '2026-11-25',
    readingMinutes: 8,
    featured: true,
    hasFaq: true,
  },
  {
    slug: 'nats-jetstream-solana-trades',
    title: 'Native NATS JetStream for Solana trade data: credentials, subjects and replay',
    description:
      'Use the .creds file from your dashboard with any NATS client, subscribe to TRADES subjects per plan, and replay history on Pro with a JetStream consumer.',
    category: 'Guides',
    published: '2026-11-21',
    updated: '2026-11-21',
    readingMinutes: 7,
  },
  {
    slug: 'decoding-pump-fun-and-letsbonk-trades',
    title: 'What a decoded Pump.fun or LetsBonk.fun trade contains',
    description:
      'Field by field: how Tradewind decodes Pump.fun and LetsBonk.fun (Raydium LaunchLab) instructions and events with the official IDLs, and what each JSON field means.',
    category: 'Engineering',
    published: '2026-11-21',
    updated: '2026-11-21',
    readingMinutes: 8,
  },
  {
    slug: 'pumpswap-raydium-cpmm-premium-subjects',
    title: 'PumpSwap and Raydium CPMM: following a token after the bonding curve',
    description:
      'When a launchpad token graduates it trades on PumpSwap or Raydium CPMM. The premium subjects carry those swaps; here is what they contain and when you need them.',
    category: 'Guides',
    published: '2026-11-21',
    updated: '2026-11-21',
    readingMinutes: 6,
  },
  {
    slug: 'building-a-trading-bot-with-tradewind',
    title: 'Building a trading bot on Tradewind: from first message to a reliable consumer',
    description:
      'A bot that survives reconnects, slow-consumer limits and plan changes: structure, back-pressure, deduplication by signature and instruction path, and monitoring.',
    category: 'Tutorials',
    published: '2026-11-21',
    updated: '2026-11-21',
    readingMinutes: 8,
    hasFaq: true,
  },
];

/** The article with `slug`, or undefined. */
export function blogPost(slug: string): BlogPostMeta | undefined {
  return BLOG_POSTS.find((p) => p.slug === slug);
}
