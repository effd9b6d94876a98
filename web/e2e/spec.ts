/**
 * What the browser tests hold the web app to: texts, paths and timings copied word for word from
 * the customer's product specification (kept outside this repository; sections named per entry).
 * The tests compare the running app with these values, never with the app's own constants, so a
 * changed constant in web/src cannot make a test agree with itself.
 */

/** §2 "Route table" / "Article pages": the five article slugs, each served at `/<slug>` ({product} = tradewind). */
export const ARTICLE_PATHS = ['/pump-fun-api', '/letsbonk-fun-api', '/solana-websocket', '/solana-memecoin', '/tradewind-vs-pumpportal'] as const;

/** §2 "Header and footer". */
export const HEADER = Object.freeze({
  signIn: { label: 'Sign In', to: '/login' },
  getStarted: { label: 'Get Started', to: '/pricing' },
  streams: [
    { label: 'Pump.fun Stream', to: '/pump-fun-api' },
    { label: 'Letsbonk.fun Stream', to: '/letsbonk-fun-api' },
  ],
  /** The user menu's four dashboard links (the spec names the pages; the labels are the sidebar's). */
  dashboardLinks: [
    { label: 'Dashboard', to: '/dashboard' },
    { label: 'Plan', to: '/dashboard/plan' },
    { label: 'Docs', to: '/dashboard/docs' },
    { label: 'Settings', to: '/dashboard/settings' },
  ],
  signOut: 'Sign out',
  /** "the plan label (default starter)". */
  defaultPlan: /starter/i,
});

/** §2 "Home (/)". */
export const HOME = Object.freeze({
  secondary: { label: 'See How It Works', to: '/how-it-works' },
  bottom: { label: 'Start Your Free Trial', to: '/pricing' },
  primarySignedOut: '/pricing',
  primarySignedIn: '/dashboard',
  loading: 'Connecting...',
  error: ['Connection Error', 'Failed to fetch live data', 'Please refresh the page to retry'],
  loaded: 'Performance: Good',
  readArticle: 'Read Article',
  viewAll: { label: 'View All Articles', to: '/blog' },
});

/** §4 "Carousel" and §9 "Timings" (ms, px). */
export const CAROUSEL = Object.freeze({ autoplayMs: 8000, manualPauseMs: 15_000, swipePx: 50 });

/** §2 "/pricing", §9 prices (USD per month, monthly and annual) and Most Popular. */
export const PRICING = Object.freeze({
  banner: 'Save up to 20%',
  mostPopular: 'Most Popular',
  monthly: { Starter: 0, Plus: 15, Pro: 35 },
  annual: { Starter: 0, Plus: 12, Pro: 28 },
  /** "The annual total is the annual price times 12." */
  annualTotal: { Plus: 144, Pro: 336 },
  /** "(monthly - yearly) / monthly", rounded. */
  annualSavingPercent: { Plus: 20, Pro: 20 },
  needMore: { heading: 'Need More Connections?', to: '/community' },
  /** "FAQ: plan changes take effect immediately with proration." */
  faqProration: /immediately with proration/i,
});

/** §2 "/how-it-works". */
export const HOW_IT_WORKS = Object.freeze({ steps: 3, templates: 3, wsPort: '9223', subjectExample: 'basic.pumpfun', loginPath: '/login' });

/** §2 "/blog": chips with counts, All first and selected by default. */
export const BLOG = Object.freeze({
  counts: { All: 5, 'API Comparison': 1, 'API Guide': 2, 'Memecoin Guide': 1, 'WebSocket Guide': 1 } as Record<string, number>,
  stayUpdated: 'Stay Updated',
  subscribe: 'Subscribe',
});

/**
 * §2 "Article pages": the links and tags each article must carry. (The spec's read times, 25 / 30 /
 * 35 / 40 / 25 min, are deliberately not used: docs/spec-conformance.md 2.50.)
 */
export const ARTICLES: Readonly<Record<(typeof ARTICLE_PATHS)[number], { links: readonly string[]; tags?: readonly string[] }>> = Object.freeze({
  '/pump-fun-api': { links: ['/how-it-works', '/solana-websocket', '/pricing', '/dashboard/docs', '/tradewind-vs-pumpportal'] },
  '/letsbonk-fun-api': { links: ['/tradewind-vs-pumpportal', '/how-it-works', '/pricing', '/dashboard/docs'], tags: ['API Guide', 'Technical'] },
  '/solana-websocket': { links: ['/pricing', '/how-it-works'], tags: ['WebSocket Guide'] },
  '/solana-memecoin': { links: ['/pricing', '/how-it-works'] },
  '/tradewind-vs-pumpportal': { links: [] },
});

/** §2 "/community": advertised response times. */
export const COMMUNITY = Object.freeze({ Telegram: 'under 30 minutes', Discord: 'under 1 hour' });

/** §2 "Dashboard", §4 "Return from checkout", §9 "Timings". */
export const DASHBOARD = Object.freeze({
  sidebar: ['Dashboard', 'Plan', 'Docs', 'Settings'],
  settingsTabs: ['Profile', 'Security', 'Connection Details', 'Notifications'],
  quickActions: ['/dashboard/docs', '/dashboard/plan', '/dashboard/settings'],
  copiedMs: 2000,
  checkoutWaitMs: 2000,
  toastMs: 5000,
  paymentSuccessful: 'Payment Successful!',
  /** §5: "The WebSocket URL is derived from the NATS URL by … port 4223 with 9223." */
  wsPort: '9223',
  natsPort: '4223',
});

/** §5 "Payment page" and §8 error catalogue: a checkout that cannot start (e.g. an answer without a url). */
export const PAYMENT = Object.freeze({
  /** §8: "Failed to start upgrade process. Please try again." */
  upgradeFailed: 'Failed to start upgrade process. Please try again.',
  /** §5 (docs/spec-conformance.md 5.5, 8.17): a checkout answer without a url is an error that leads to /pricing. */
  backTo: '/pricing',
});
