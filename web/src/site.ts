/**
 * Site-wide settings, fixed at build time from `VITE_*` variables (docs/web.md). Nothing here is
 * invented: links that a deployment has not configured are absent, and the pages say so.
 */

function env(name: string): string | undefined {
  const value = (import.meta.env as Record<string, string | undefined>)[name];
  return value && value.trim() !== '' ? value.trim().replace(/\/$/, '') : undefined;
}

export const SITE = Object.freeze({
  name: 'Tradewind',
  /** Public origin used for canonical links, sitemaps and structured data (`VITE_PUBLIC_URL`, default the local ingress). */
  url: env('VITE_PUBLIC_URL') ?? 'http://localhost:8080',
  description:
    'Real-time decoded Solana trades from Pump.fun, LetsBonk.fun, PumpSwap and Raydium CPMM, streamed as JSON over WebSocket and native NATS JetStream.',
  /** Community invite links (`VITE_DISCORD_URL`, `VITE_TELEGRAM_URL`); undefined when the deployment has none. */
  discordUrl: env('VITE_DISCORD_URL'),
  telegramUrl: env('VITE_TELEGRAM_URL'),
  /** Support address (`VITE_SUPPORT_EMAIL`); undefined when not configured. */
  supportEmail: env('VITE_SUPPORT_EMAIL'),
  /** Where the starter templates live (`VITE_REPOSITORY_URL`); the templates are in the repository's `examples/`. */
  repositoryUrl: env('VITE_REPOSITORY_URL'),
  /** WebSocket and NATS endpoints shown before a user has credentials (`VITE_WS_URL`, `VITE_NATS_URL`). */
  wsUrl: env('VITE_WS_URL') ?? 'ws://localhost:9223',
  natsUrl: env('VITE_NATS_URL') ?? 'nats://localhost:4223',
});

/**
 * Where the header's "Pump.fun Stream" and "Letsbonk.fun Stream" entries lead: the articles
 * /pump-fun-api and /letsbonk-fun-api (specification section 2, "Header and footer"). Both are
 * in PUBLIC_PATHS (web/test/header.test.tsx checks it), so they are prerendered and never a 404.
 */
export const STREAM_ARTICLE_PATHS = Object.freeze({
  /** "Pump.fun API: stream every Pump.fun trade in real time" (subject basic.pumpfun). */
  pumpFun: '/pump-fun-api',
  /** "LetsBonk.fun API: real-time token launches and trades" (subject basic.bonk). */
  letsBonk: '/letsbonk-fun-api',
} as const);

/** Absolute URL of a site path, e.g. `absoluteUrl('/pricing')` → `http://localhost:8080/pricing`. */
export function absoluteUrl(path: string): string {
  return `${SITE.url}${path === '/' ? '/' : path}`;
}

/** Organization and WebSite structured data (schema.org), on every page. */
export function siteStructuredData(): object[] {
  return [
    {
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: SITE.name,
      url: absoluteUrl('/'),
      logo: absoluteUrl('/favicon.svg'),
      ...(SITE.discordUrl || SITE.telegramUrl ? { sameAs: [SITE.discordUrl, SITE.telegramUrl].filter(Boolean) } : {}),
    },
    {
      '@context': 'https://schema.org',
      '@type': 'WebSite',
      name: SITE.name,
      url: absoluteUrl('/'),
      description: SITE.description,
    },
  ];
}
