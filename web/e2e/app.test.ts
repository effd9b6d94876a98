/**
 * End to end: the real local stack (`npm start`'s scripts/start.ts: replayed mainnet trades, NATS in
 * operator mode, auth with the local OpenID Connect provider, billing with the local Stripe
 * stand-in, credential-issuer, ws-fanout, token-price, the web app behind the ingress) driven by
 * Debian's Chromium through playwright-core (never a browser download).
 *
 * One stack and one browser for the whole file (starting the stack is the expensive part). One
 * `describe` per screen of the product specification (section 2), in the order a visitor meets
 * them: signed out first (a `visitor` context), then signed in (a `user` context, and a `buyer`
 * who picks a plan before signing in). Expected texts, paths and timings come from web/e2e/spec.ts
 * (copied from the specification), never from the app's own constants. Seconds the specification
 * names (carousel 8 s / 15 s, "Copied" 2 s, checkout return 2 s and toast 5 s) are checked to the
 * millisecond with Playwright's fake clock (`context.clock`): installed in every context, running
 * at normal speed, paused only inside the tests that count time.
 *
 * Screenshots: every route (web/src/route-paths.ts PUBLIC_PATHS and APP_PATHS, the five article
 * paths of the specification, and the 404 page) at 390 px and 1280 px, plus the signed-in header
 * with its menu open, go to artifacts/screenshots/ as `<route>-<width>.png` (`/` → home,
 * `/dashboard/plan` → dashboard__plan). The directory is emptied when the file starts; .ci/run
 * counts what it holds after `npm test`, and CI keeps artifacts/.
 *
 * Run: `npx vitest run --project e2e` (starts the stack: about 80 s on 2 cores). While working on
 * the tests, `TRADEWIND_E2E_ATTACH=1` uses an `npm start` that is already running instead.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page, type Route } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_PATHS, PUBLIC_PATHS } from '../src/route-paths';
import {
  expectInsideViewport,
  flushReports,
  hrefOf,
  newVisitor,
  openPath,
  ORIGIN,
  overflowX,
  pathOf,
  pauseClock,
  shotFile,
  SHOTS_DIR,
  signIn,
  takeCspViolations,
  takeErrors,
  visitAtWidths,
  waitForLayoutSettled,
  waitForSession,
  WIDTHS,
  type Visitor,
} from './harness';
import { ARTICLE_PATHS, ARTICLES, BLOG, CAROUSEL, COMMUNITY, DASHBOARD, HEADER, HOME, HOW_IT_WORKS, PAYMENT, PRICING } from './spec';
import { attachRunningStack, startLocalStack, type LocalStack } from './stack';
import { expectApiHeaders, expectPageHeaders, headerBag, inlineScriptHashesOf, startFramingPage, themeScriptHashOf } from './security';
import { describeHeroTape } from './hero';
import { usageTests } from './usage';
import { describeLivePage } from './live';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Every route photographed at both widths (the final test checks that none is missing). */
const ROUTES = [...new Set([...PUBLIC_PATHS, ...APP_PATHS, ...ARTICLE_PATHS, '/no-such-page'])];

/**
 * The signed-in user's name: long on purpose, since a long name is what pushed the user menu out
 * of the header on phones (issue 21). Initials per the avatar rule (first letters of two words).
 */
const USER_NAME = 'Augusta Ada Lovelace';
const USER_INITIALS = 'AA';

let stack: LocalStack;
let browser: Browser;
/** Signed out for the whole file. */
let visitor: Visitor;
/** Signs in as {@link USER_NAME} (Starter), upgrades to Plus, cancels, signs out. */
let user: Visitor;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  rmSync(SHOTS_DIR, { recursive: true, force: true });
  mkdirSync(SHOTS_DIR, { recursive: true });
  stack = process.env.TRADEWIND_E2E_ATTACH ? await attachRunningStack() : await startLocalStack();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  visitor = await newVisitor(browser);
  user = await newVisitor(browser);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

/** The visible text of `locator`, whitespace collapsed. */
async function textOf(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** Index of the carousel's current slide (the dot marked aria-current). */
async function currentSlide(page: Page): Promise<number> {
  return page.locator('.home-carousel-dot').evaluateAll((dots) => dots.findIndex((d) => d.getAttribute('aria-current') === 'true'));
}

/** Waits until the carousel shows slide `index` (React renders after the click or timer, not within it). */
async function expectSlide(page: Page, index: number, why: string): Promise<void> {
  await expect.poll(() => currentSlide(page), { message: why, timeout: 5_000 }).toBe(index);
}

/** How long a "nothing changed" check waits first, so that a wrong render would have landed (real ms). */
const SETTLE_MS = 150;

/** Asserts that the carousel still shows slide `index` after {@link SETTLE_MS}. */
async function expectSlideStays(page: Page, index: number, why: string): Promise<void> {
  await page.waitForTimeout(SETTLE_MS);
  expect(await currentSlide(page), why).toBe(index);
}

/**
 * A new visitor signed in as a new Starter user named `name`, on /dashboard: for tests that must
 * also run alone (`-t`), without the shared {@link user} of the earlier tests. Close its context after.
 */
async function signedInVisitor(name: string): Promise<Visitor> {
  const v = await newVisitor(browser);
  await signIn(v, name);
  await v.page.waitForURL(`${ORIGIN}/dashboard`);
  // Settled before the caller routes requests: a refresh in flight while `page.route` turns
  // interception on was never reported finished, and the next openPath waited for it in vain.
  await waitForSession(v);
  return v;
}

/**
 * The text in `root` a reader can see: each text node whose box, cut by every ancestor up to `root`
 * that clips its overflow, is still more than 1 px wide (a visually hidden label is not; a label cut
 * at a moving edge is). The avatar's initials are left out.
 */
async function visibleTexts(root: Locator): Promise<string[]> {
  return root.evaluate((el) => {
    const out: string[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const parent = node.parentElement;
      if (!text || !parent || parent.closest('[data-testid="avatar"]')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      let left = box.left;
      let right = box.right;
      for (let a: Element | null = parent; a && el.contains(a); a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.visibility === 'hidden' || style.display === 'none') right = left;
        if (style.overflowX !== 'visible') {
          const r = a.getBoundingClientRect();
          left = Math.max(left, r.left);
          right = Math.min(right, r.right);
        }
      }
      if (right - left > 1) out.push(text);
    }
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// Signed out
// ---------------------------------------------------------------------------------------------

describe.sequential('crawler view (spec §2 header and footer: "site metadata and structured data"; article pages)', () => {
  it('when a crawler fetches a public page without JavaScript, then the HTML carries its title, description, canonical link and Organization and WebSite data', async () => {
    for (const path of PUBLIC_PATHS) {
      const res = await fetch(`${ORIGIN}${path}`);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html, path).toMatch(/<title>[^<]{5,}<\/title>/);
      expect(html, path).toMatch(/<meta name="description" content="[^"]{20,}"/);
      expect(html, path).toContain(`<link rel="canonical" href="http://localhost:8080${path}"`);
      expect(html, path).toContain('"@type":"Organization"');
      expect(html, path).toContain('"@type":"WebSite"');
      expect(html, path).toMatch(/<h1[ >]/);
    }
    const missing = await fetch(`${ORIGIN}/no-such-page`);
    expect(missing.status).toBe(404);
    const shell = await (await fetch(`${ORIGIN}/dashboard`)).text();
    expect(shell).toContain('<meta name="robots" content="noindex"');
  });

  it('when a crawler fetches an article at /<slug>, then it has a canonical link, keywords, social tags and Article data, and some articles FAQ data (needs helper C1)', async () => {
    let withFaq = 0;
    for (const path of ARTICLE_PATHS) {
      const res = await fetch(`${ORIGIN}${path}`);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html, path).toContain(`<link rel="canonical" href="http://localhost:8080${path}"`);
      expect(html, path).toContain('"@type":"Article"');
      expect(html, path).toMatch(/<meta name="keywords" content="[^"]{3,}"/);
      expect(html, path).toContain('<meta property="og:type" content="article"');
      expect(html, path).toMatch(/<meta property="og:title" content="[^"]{5,}"/);
      if (html.includes('"@type":"FAQPage"')) withFaq += 1;
    }
    expect(withFaq, 'articles with FAQ structured data').toBeGreaterThan(0);
  });
});

describe.sequential('header and footer, signed out (spec §2)', () => {
  it('when signed out at 1280 px, then the header offers "Sign In" → /login and "Get Started" → /pricing, the stream nav labels lead to their articles, and it stays on top while scrolling', async () => {
    const { page } = visitor;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(visitor, '/pricing');
    const header = page.locator('header.site-header');
    expect(await hrefOf(header.getByRole('link', { name: HEADER.signIn.label, exact: true }))).toBe(HEADER.signIn.to);
    expect(await hrefOf(header.getByRole('link', { name: HEADER.getStarted.label, exact: true }))).toBe(HEADER.getStarted.to);
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const s of HEADER.streams) expect(await hrefOf(nav.getByRole('link', { name: s.label, exact: true })), s.label).toBe(s.to);
    expect(await header.getByRole('button', { name: /user|account/i }).count()).toBe(0);

    // Sticky: after scrolling far down the header is still at the top of the viewport.
    await page.evaluate(() => window.scrollTo(0, 1500));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    expect((await header.boundingBox())!.y).toBe(0);

    // The footer: Product, Company and legal links and a tagline.
    const footer = page.getByRole('contentinfo');
    for (const h of ['Product', 'Company', 'Legal']) expect(await footer.getByRole('heading', { name: h }).count(), h).toBe(1);
    expect(await hrefOf(footer.getByRole('link', { name: /privacy/i }))).toBe('/privacy');
    expect(await hrefOf(footer.getByRole('link', { name: /terms/i }))).toBe('/terms');
    expect((await textOf(footer.locator('p').first())).length).toBeGreaterThan(20);

    await header.getByRole('link', { name: HEADER.signIn.label, exact: true }).click();
    await page.waitForURL(`${ORIGIN}${HEADER.signIn.to}`);
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when signed out at 390 px, then the page does not overflow and the mobile menu offers the stream links, "Sign In" and "Get Started"', async () => {
    const { page } = visitor;
    await page.setViewportSize({ width: 390, height: 844 });
    await openPath(visitor, '/');
    const toggle = page.getByRole('button', { name: 'Open menu' });
    await expectInsideViewport(page, toggle, 'menu toggle', 44);
    await toggle.click();
    const mobile = page.getByRole('navigation', { name: 'Mobile' });
    await mobile.waitFor();
    for (const s of HEADER.streams) expect(await hrefOf(mobile.getByRole('link', { name: s.label, exact: true })), s.label).toBe(s.to);
    expect(await hrefOf(mobile.getByRole('link', { name: HEADER.signIn.label, exact: true }))).toBe(HEADER.signIn.to);
    expect(await hrefOf(page.locator('#mobile-menu').getByRole('link', { name: HEADER.getStarted.label, exact: true }))).toBe(HEADER.getStarted.to);
    expect(await overflowX(page)).toBeLessThanOrEqual(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => mobile.isVisible()).toBe(false);
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('home / (spec §2 "Home", §4 live panel and carousel)', () => {
  it('when signed out, then the primary button opens /pricing, "See How It Works" /how-it-works and the bottom "Start Your Free Trial" /pricing', async () => {
    const { page } = visitor;
    await visitAtWidths(visitor, '/', async () => {
      expect(await hrefOf(page.getByTestId('home-primary'))).toBe(HOME.primarySignedOut);
      expect(await hrefOf(page.getByRole('link', { name: HOME.secondary.label, exact: true }))).toBe(HOME.secondary.to);
      expect(await hrefOf(page.getByRole('link', { name: HOME.bottom.label, exact: true }))).toBe(HOME.bottom.to);
    });
    await page.getByRole('link', { name: HOME.secondary.label, exact: true }).click();
    await page.waitForURL(`${ORIGIN}${HOME.secondary.to}`);
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when the token request is pending, then the live panel says "Connecting..."; when it answers, then rows of GET /api/birdeye/tokens and "Performance: Good" show', async () => {
    const { page } = visitor;
    await page.setViewportSize({ width: 1280, height: 900 });
    const panel = page.locator('section[aria-labelledby="home-tokens-title"]');
    const held: Route[] = [];
    await page.route('**/api/birdeye/tokens', (route) => void held.push(route));
    await openPath(visitor, '/');
    await expect.poll(() => held.length, { message: 'the panel asked for tokens' }).toBeGreaterThan(0);
    expect(await textOf(panel)).toContain(HOME.loading);
    for (const route of held.splice(0)) await route.continue();
    await page.unroute('**/api/birdeye/tokens');
    const rows = page.locator('[data-testid="token-row"]');
    await rows.first().waitFor({ timeout: 20_000 });
    expect(await textOf(panel)).not.toContain(HOME.loading);

    // A fresh load, unhindered: the response time is the real one.
    const api = (await (await fetch(`${ORIGIN}/api/birdeye/tokens`)).json()) as { success: boolean; data: Array<{ mint: string; name: string | null }> };
    expect(api.success).toBe(true);
    expect(api.data.length).toBeGreaterThan(0);
    await page.reload();
    await rows.first().waitFor({ timeout: 20_000 });
    await expect.poll(() => textOf(panel)).toContain(HOME.loaded);
    // Tokens only accumulate, and the panel asked after this test did: at least as many rows, at most its limit.
    expect(await rows.count()).toBeGreaterThanOrEqual(Math.min(api.data.length, 20));
    expect(await rows.count()).toBeLessThanOrEqual(20);
    const labels = await rows.locator('th span[title]').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    const known = new Set(api.data.map((t) => t.name ?? t.mint));
    expect(labels.filter((l) => known.has(l!)).length).toBeGreaterThan(0);
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when the token request fails, then the live panel shows "Connection Error", "Failed to fetch live data" and "Please refresh the page to retry"', async () => {
    const { page } = visitor;
    await page.route('**/api/birdeye/tokens', (route) => route.abort('connectionrefused'));
    await openPath(visitor, '/');
    const panel = page.locator('section[aria-labelledby="home-tokens-title"]');
    await expect.poll(() => textOf(panel)).toContain(HOME.error[0]);
    const text = await textOf(panel);
    const at = HOME.error.map((t) => text.indexOf(t));
    expect(
      at.every((i) => i >= 0),
      `all three texts in ${text}`,
    ).toBe(true);
    expect(
      [...at].sort((a, b) => a - b),
      "in the specification's order",
    ).toEqual(at);
    await page.unroute('**/api/birdeye/tokens');
    // The refused request is logged by the browser; nothing else may be.
    expect(takeErrors(visitor).filter((e) => !/ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
  });

  it('when the carousel runs, then it advances every 8 s, pauses 15 s after a manual move, and a drag or swipe over 50 px changes the slide', async () => {
    const { page } = visitor;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(visitor, '/');
    const viewport = page.getByTestId('carousel-viewport');
    await viewport.scrollIntoViewIfNeeded();
    const count = await page.locator('.home-carousel-dot').count();
    expect(count, 'one dot per article').toBe(ARTICLE_PATHS.length);
    const at = (i: number) => ((i % count) + count) % count;
    try {
      await pauseClock(page);
      const start = await currentSlide(page);
      await page.getByRole('button', { name: 'Next slide' }).click();
      await expectSlide(page, at(start + 1), 'Next moves one slide');
      // Manual move: 15 s without autoplay, then the 8 s interval starts again.
      await page.clock.runFor(CAROUSEL.manualPauseMs);
      await expectSlideStays(page, at(start + 1), 'no automatic move during the 15 s pause');
      await page.clock.runFor(CAROUSEL.autoplayMs - 1);
      await expectSlideStays(page, at(start + 1), 'no automatic move 1 ms before the interval');
      await page.clock.runFor(1);
      await expectSlide(page, at(start + 2), 'automatic move after 15 s + 8 s');
      await page.clock.runFor(CAROUSEL.autoplayMs - 1);
      await expectSlideStays(page, at(start + 2), 'no move 1 ms before the next 8 s');
      await page.clock.runFor(1);
      await expectSlide(page, at(start + 3), 'automatic move every 8 s');

      // Mouse drag: exactly 50 px does nothing, 51 px to the left is "next". The drag runs over a
      // slide's summary text, not a link, so a drag too short to count is not a click on a link.
      const box = (await viewport.boundingBox())!;
      const x = Math.round(box.x + box.width / 2);
      const summary = (await page.locator('.home-carousel-slide[aria-hidden="false"] p.muted').last().boundingBox())!;
      const y = Math.round(summary.y + summary.height / 2);
      const drag = async (dx: number) => {
        await page.mouse.move(x, y);
        await page.mouse.down();
        await page.mouse.move(x + dx, y, { steps: 4 });
        await page.mouse.up();
      };
      await drag(-CAROUSEL.swipePx);
      await expectSlideStays(page, at(start + 3), 'a 50 px drag does not change the slide');
      expect(pathOf(page), 'the short drag followed no link').toBe('/');
      await drag(-(CAROUSEL.swipePx + 1));
      await expectSlide(page, at(start + 4), 'a 51 px drag to the left shows the next slide');

      // Touch swipe: 51 px to the right is "previous"; 50 px is not enough.
      const swipe = (dx: number) =>
        viewport.evaluate((el, d) => {
          const from = [new Touch({ identifier: 1, target: el, clientX: 200, clientY: 10 })];
          const to = [new Touch({ identifier: 1, target: el, clientX: 200 + d, clientY: 10 })];
          el.dispatchEvent(new TouchEvent('touchstart', { changedTouches: from, touches: from, bubbles: true }));
          el.dispatchEvent(new TouchEvent('touchend', { changedTouches: to, bubbles: true }));
        }, dx);
      await swipe(CAROUSEL.swipePx);
      await expectSlideStays(page, at(start + 4), 'a 50 px swipe does not change the slide');
      await swipe(CAROUSEL.swipePx + 1);
      await expectSlide(page, at(start + 3), 'a 51 px swipe to the right shows the previous slide');
    } finally {
      await page.clock.resume();
    }
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when a slide shows, then it has its date, read time and "Read Article" to the article at /<slug>, and "View All Articles" opens /blog (needs helper C1)', async () => {
    const { page } = visitor;
    expect(await hrefOf(page.getByRole('link', { name: HOME.viewAll.label, exact: true }))).toBe(HOME.viewAll.to);
    const count = await page.locator('.home-carousel-dot').count();
    for (let i = 0; i < count; i++) {
      await page.getByRole('button', { name: `Go to slide ${i + 1}`, exact: true }).click();
      const slide = page.locator('.home-carousel-slide[aria-hidden="false"]');
      await expect.poll(() => slide.getAttribute('aria-label')).toMatch(new RegExp(`^${i + 1} of`));
      expect(await slide.locator('time[datetime]').count(), `slide ${i + 1} date`).toBe(1);
      expect(await textOf(slide), `slide ${i + 1} read time`).toMatch(/\d+ min read/);
      expect(ARTICLE_PATHS as readonly string[], `slide ${i + 1} Read Article`).toContain(await hrefOf(slide.getByRole('link', { name: HOME.readArticle })));
    }
    await page.getByRole('link', { name: HOME.viewAll.label, exact: true }).click();
    await page.waitForURL(`${ORIGIN}${HOME.viewAll.to}`);
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describeHeroTape(() => browser);

describe.sequential('/pricing (spec §2 "/pricing", §9 prices)', () => {
  it('when the page opens, then it is monthly by default, shows "Save up to 20%", marks Pro "Most Popular" and offers "Need More Connections?" → /community and the FAQ', async () => {
    const { page } = visitor;
    await visitAtWidths(visitor, '/pricing', async (width) => {
      if (width !== 1280) return;
      expect(await page.getByRole('button', { name: 'Monthly' }).getAttribute('aria-pressed')).toBe('true');
      expect(await page.getByRole('button', { name: 'Annual' }).getAttribute('aria-pressed')).toBe('false');
      for (const [name, usd] of Object.entries(PRICING.monthly)) expect(await textOf(page.getByTestId(`price-${name.toLowerCase()}`)), name).toBe(`$${usd}`);
      expect(await textOf(page.getByTestId('pricing-banner'))).toContain(PRICING.banner);
      const popular = page.locator('[data-testid^="plan-"]').filter({ hasText: PRICING.mostPopular });
      expect(await popular.count(), 'exactly one card is Most Popular').toBe(1);
      expect(await textOf(popular.getByRole('heading', { level: 2 }))).toBe('Pro');
      const more = page.locator('section', { has: page.getByRole('heading', { name: PRICING.needMore.heading, exact: true }) });
      expect(await hrefOf(more.getByRole('link'))).toBe(PRICING.needMore.to);
      expect(await page.getByRole('table').count()).toBe(1);
      expect(await page.locator('main').textContent()).toMatch(PRICING.faqProration);
    });
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when Annual is chosen, then each plan shows its annual price per month, its annual total (× 12) and its rounded saving', async () => {
    const { page } = visitor;
    await page.getByRole('button', { name: 'Annual' }).click();
    expect(await page.getByRole('button', { name: 'Annual' }).getAttribute('aria-pressed')).toBe('true');
    for (const [name, usd] of Object.entries(PRICING.annual)) expect(await textOf(page.getByTestId(`price-${name.toLowerCase()}`)), name).toBe(`$${usd}`);
    for (const [name, total] of Object.entries(PRICING.annualTotal)) {
      const card = page.getByTestId(`plan-${name.toLowerCase()}`);
      expect(await textOf(card), name).toContain(`$${total}`);
      expect(await textOf(card), name).toContain(`${PRICING.annualSavingPercent[name as 'Plus' | 'Pro']}%`);
    }
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/how-it-works (spec §2)', () => {
  it('when the page opens, then it shows three steps, three starter templates, the WebSocket sample (port 9223, {jwt, nkey}, then {subject}) and a link to /login', async () => {
    const { page } = visitor;
    await visitAtWidths(visitor, '/how-it-works', async (width) => {
      if (width !== 1280) return;
      expect(await page.locator('main ol').first().locator(':scope > li').count()).toBe(HOW_IT_WORKS.steps);
      const templates = page.locator('section', { has: page.getByRole('heading', { name: 'Starter templates' }) });
      expect(await templates.locator('ul').first().locator(':scope > li').count()).toBe(HOW_IT_WORKS.templates);
      const sample = await page.locator('main pre code').first().textContent();
      expect(sample).toContain(`:${HOW_IT_WORKS.wsPort}`);
      expect(sample).toMatch(/jwt/);
      expect(sample).toMatch(/nkey/);
      expect(sample).toMatch(/subject/);
      expect(sample).toContain(HOW_IT_WORKS.subjectExample);
      expect(await page.locator(`main a[href="${HOW_IT_WORKS.loginPath}"]`).count()).toBeGreaterThan(0);
      expect(await page.getByRole('heading', { name: /dashboard/i }).count()).toBeGreaterThan(0);
    });
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/blog (spec §2 "/blog"; needs helper C1: blog and articles at /<slug>)', () => {
  it('when the blog opens, then the chips are All 5, API Comparison 1, API Guide 2, Memecoin Guide 1, WebSocket Guide 1 with All selected, and filtering shows that many articles', async () => {
    const { page } = visitor;
    await visitAtWidths(visitor, '/blog');
    const chips = page.getByRole('group', { name: /categor/i }).getByRole('button');
    const seen: Record<string, number> = {};
    for (const text of await chips.allInnerTexts()) {
      const m = /^(.*?)\s*\(?(\d+)\)?$/.exec(text.trim());
      expect(m, `chip "${text}" has a count`).not.toBeNull();
      seen[m![1]!] = Number(m![2]);
    }
    expect(seen).toEqual(BLOG.counts);
    expect(await chips.first().getAttribute('aria-pressed'), 'All is selected at first').toBe('true');
    expect(await textOf(chips.first())).toMatch(/^All/);

    const shown = async () =>
      new Set(
        (await page.locator('main a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).filter((h) =>
          (ARTICLE_PATHS as readonly string[]).includes(h!),
        ),
      ).size;
    expect(await shown(), 'All shows every article').toBe(BLOG.counts.All);
    expect(await page.getByRole('region', { name: /featured/i }).count(), 'a featured article').toBe(1);
    await chips.filter({ hasText: 'API Guide' }).click();
    await expect.poll(shown, { message: 'API Guide shows its articles' }).toBe(BLOG.counts['API Guide']);
    await chips.first().click();
    await expect.poll(shown).toBe(BLOG.counts.All);

    const box = page.locator('section', { has: page.getByRole('heading', { name: BLOG.stayUpdated, exact: true }) });
    expect(await box.locator('input[type="email"]').count()).toBe(1);
    expect(await box.getByRole('button', { name: BLOG.subscribe, exact: true }).count()).toBe(1);
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('article pages /<slug> (spec §2 "Article pages"; needs helper C1)', () => {
  for (const path of ARTICLE_PATHS) {
    it(`when ${path} opens, then it has "Back to Blog" → /blog, a read time and the links and tags the specification names`, async () => {
      const { page } = visitor;
      const spec = ARTICLES[path];
      await visitAtWidths(visitor, path, async (width) => {
        if (width !== 1280) return;
        expect(await hrefOf(page.getByRole('link', { name: /Back to Blog/ }))).toBe('/blog');
        const main = page.locator('main');
        // The minutes are the article's own (ceil(words / 230)), not the spec's figures: docs/spec-conformance.md 2.50.
        expect(await textOf(main)).toMatch(/\b\d+ min read\b/);
        const hrefs = new Set(await main.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href'))));
        for (const to of spec.links) expect(hrefs.has(to), `${path} links to ${to}`).toBe(true);
        for (const tag of spec.tags ?? []) expect(await textOf(main), `${path} tag ${tag}`).toContain(tag);
      });
      expect(takeErrors(visitor)).toEqual([]);
    });
  }

  it('when "Back to Blog" is followed, then the blog opens', async () => {
    const { page } = visitor;
    await page.getByRole('link', { name: /Back to Blog/ }).click();
    await page.waitForURL(`${ORIGIN}/blog`);
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/community (spec §2 "/community")', () => {
  it('when the page opens, then it has Discord and Telegram cards with response times under 1 hour and under 30 minutes, benefits and an FAQ', async () => {
    const { page } = visitor;
    await visitAtWidths(visitor, '/community', async (width) => {
      if (width !== 1280) return;
      for (const [name, time] of Object.entries(COMMUNITY)) {
        const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });
        expect(await card.count(), `${name} card`).toBe(1);
        expect(await textOf(card), `${name} response time`).toContain(time);
      }
      expect(await page.getByRole('heading', { name: /frequently asked/i }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: /why join|benefit/i }).count()).toBeGreaterThan(0);
    });
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/login (spec §2 "/login")', () => {
  it('when /login has tier=plus and period=yearly, then it shows the selected plan, the sign-in button carries them, and /terms and /privacy are linked', async () => {
    const { page } = visitor;
    const provider = (await (await fetch(`${ORIGIN}/auth/provider`)).json()) as { label: string; local: boolean };
    await visitAtWidths(
      visitor,
      '/login?tier=plus&period=yearly',
      async (width) => {
        if (width !== 1280) return;
        const banner = page.getByTestId('login-plan-banner');
        expect(await textOf(banner)).toContain('Plus');
        expect(await textOf(banner)).toContain(`$${PRICING.annual.Plus}`);
        const button = page.locator('a.auth-button');
        await expect.poll(() => textOf(button)).toBe(provider.label);
        if (!provider.local) expect(provider.label).toMatch(/Google/);
        expect(await hrefOf(button)).toBe('/auth/login?tier=plus&period=yearly');
        expect(await hrefOf(page.getByRole('link', { name: /terms/i }).first())).toBe('/terms');
        expect(await hrefOf(page.getByRole('link', { name: /privacy/i }).first())).toBe('/privacy');
      },
      '/login',
    );
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when /login has message=setup-required, then it says what to do', async () => {
    const { page } = visitor;
    await openPath(visitor, '/login?message=setup-required');
    expect(await textOf(page.getByRole('status').filter({ hasText: /set/i }).first())).toMatch(/setting up your account/i);
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/payment and the dashboard, signed out (spec §4 "Dashboard gating", §5 "Payment page")', () => {
  it('when a signed-out visitor opens /dashboard or a dashboard page, then they land on /login', async () => {
    const { page } = visitor;
    for (const path of ['/dashboard', '/dashboard/settings']) {
      await openPath(visitor, path);
      await page.waitForURL(`${ORIGIN}/login`);
    }
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when a signed-out visitor opens /payment with a plan, then they are asked to sign in first, the plan kept', async () => {
    const { page } = visitor;
    await openPath(visitor, '/payment?tier=plus&period=monthly');
    await page.waitForURL(/\/login\?/);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ tier: 'plus', period: 'monthly', message: 'setup-required' });
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/privacy, /terms and the 404 page (spec §2 "Also linked: /privacy and /terms")', () => {
  it('when /privacy, /terms and an unknown path open, then each has its page (the unknown one a 404 with a way home)', async () => {
    const { page } = visitor;
    await visitAtWidths(visitor, '/privacy');
    await visitAtWidths(visitor, '/terms');
    await visitAtWidths(visitor, '/no-such-page', async () => {
      expect(await textOf(page.locator('h1'))).toMatch(/not found/i);
      expect(await hrefOf(page.locator('main').getByRole('link', { name: /home/i }))).toBe('/');
    });
    expect(takeErrors(visitor)).toEqual([]);
  });
});

describe.sequential('/newsletter/unsubscribe (the one-click link of every newsletter mail)', () => {
  it('when the link is opened, then nothing changes until the button is pressed; a damaged token is refused with a way home, and a link without a token says so', async () => {
    const { page } = visitor;
    await visitAtWidths(
      visitor,
      '/newsletter/unsubscribe?token=damaged-token',
      async () => {
        expect(await textOf(page.locator('h1'))).toBe('Unsubscribe from the newsletter');
        expect(await page.getByRole('button', { name: 'Unsubscribe' }).isVisible()).toBe(true);
        expect(await page.getByRole('alert').count()).toBe(0);
      },
      '/newsletter/unsubscribe',
    );
    const answer = page.waitForResponse((r) => r.url().includes('/api/newsletter/unsubscribe') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    expect((await answer).status()).toBe(400);
    await page.getByRole('alert').waitFor();
    expect(await hrefOf(page.getByRole('link', { name: 'Back to the home page' }))).toBe('/');
    // The browser logs the 400 the page handles; nothing else.
    expect(takeErrors(visitor).filter((e) => !/status of 400/.test(e))).toEqual([]);
    await openPath(visitor, '/newsletter/unsubscribe');
    expect(await textOf(page.getByRole('alert'))).toMatch(/has no token/);
    expect(takeErrors(visitor)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// /auth/callback and signing in
// ---------------------------------------------------------------------------------------------

let jwt = '';
let seed = '';

describe.sequential('/auth/callback (spec §4 "New user at /auth/callback")', () => {
  it('when the callback arrives without a valid sign-in attempt, then auth sends the browser to /login with an error it shows', async () => {
    const res = await fetch(`${ORIGIN}/auth/callback?code=e2e&state=unknown`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!, ORIGIN);
    expect(location.origin + location.pathname).toBe(`${ORIGIN}/login`);
    expect(location.searchParams.get('error')).toBeTruthy();
    await visitor.page.goto(location.toString());
    expect(await textOf(visitor.page.getByRole('alert'))).toMatch(/^Failed to sign in with .+\. Please try again\./);
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when a new user signs in without choosing a plan, then they land on /dashboard on Starter', async () => {
    await signIn(user, USER_NAME);
    const { page } = user;
    await page.waitForURL(`${ORIGIN}/dashboard`);
    await expect.poll(() => page.getByTestId('user-display-name').first().textContent(), { timeout: 15_000 }).toBe(USER_NAME);
    expect(await page.getByTestId('user-plan-label').first().textContent()).toMatch(HEADER.defaultPlan);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when a visitor picks Plus yearly before signing in, then the callback sends them to /payment?tier=plus&period=yearly, which opens checkout', async () => {
    const buyer = await newVisitor(browser);
    try {
      const seen: string[] = [];
      buyer.page.on('framenavigated', (f) => {
        if (f === buyer.page.mainFrame()) seen.push(f.url());
      });
      await signIn(buyer, 'Grace Hopper', '/login?tier=plus&period=yearly');
      await buyer.page.waitForURL(/localhost:8092\/checkout\//, { timeout: 20_000 });
      expect(seen).toContain(`${ORIGIN}/payment?tier=plus&period=yearly`);
      expect(await buyer.page.content()).toContain('Test checkout — no real payment');
      expect(takeErrors(buyer)).toEqual([]);
    } finally {
      await buyer.context.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Signed in
// ---------------------------------------------------------------------------------------------

describe.sequential('header, signed in (spec §2 "Signed in, it shows a user menu"; issue 21: the menu at 390 px)', () => {
  for (const width of WIDTHS) {
    it(`when signed in at ${width} px, then the header fits, the user menu button is inside the viewport, and its menu shows the name, plan label, four dashboard links and Sign out`, async () => {
      const { page } = user;
      await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
      await openPath(user, '/pricing');
      const header = page.locator('header.site-header');
      const button = header.getByRole('button', { name: new RegExp(USER_NAME) });
      await button.waitFor({ timeout: 15_000 });
      expect(await overflowX(page), `no horizontal overflow at ${width}px`).toBeLessThanOrEqual(0);
      await expectInsideViewport(page, button, 'user menu button', 44);
      // Inside the header's bar, not spilling over it (a wrapped name made the button taller than the bar).
      const bar = (await header.locator('.bar').boundingBox())!;
      const box = (await button.boundingBox())!;
      expect(box.y, 'button top inside the header bar').toBeGreaterThanOrEqual(bar.y);
      expect(box.y + box.height, 'button bottom inside the header bar').toBeLessThanOrEqual(bar.y + bar.height);
      // The brand keeps its full width (it was squeezed, the logo shrunk, to make room for the name).
      expect(await header.locator('.brand').evaluate((el) => el.scrollWidth - el.clientWidth), 'brand not squeezed').toBeLessThanOrEqual(0);
      if (width < 800) await expectInsideViewport(page, header.getByRole('button', { name: 'Open menu' }), 'menu toggle', 44);
      expect(await header.getByRole('link', { name: HEADER.signIn.label, exact: true }).count()).toBe(0);

      await button.click();
      const menu = page.getByRole('menu', { name: 'Account' });
      await menu.waitFor();
      await expectInsideViewport(page, menu, 'open user menu');
      expect(await overflowX(page), `no overflow with the menu open at ${width}px`).toBeLessThanOrEqual(0);
      // Name and plan label are on screen (in the button on wide screens, in the open menu on phones).
      const visible = async (text: string | RegExp) =>
        await header.getByText(text).evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetWidth > 1).length);
      expect(await visible(USER_NAME), 'name visible').toBeGreaterThan(0);
      expect(await visible(HEADER.defaultPlan), 'plan label visible').toBeGreaterThan(0);
      const items = menu.getByRole('menuitem');
      expect(await items.evaluateAll((els) => els.map((e) => [e.textContent, e.getAttribute('href')]))).toEqual([
        ...HEADER.dashboardLinks.map((l) => [l.label, l.to]),
        [HEADER.signOut, null],
      ]);
      for (let i = 0; i < (await items.count()); i++) await expectInsideViewport(page, items.nth(i), `menu item ${i + 1}`);
      await page.screenshot({ path: shotFile('/header-signed-in-menu', width) });
      await menu.getByRole('menuitem', { name: 'Plan' }).click();
      await page.waitForURL(`${ORIGIN}/dashboard/plan`);
      expect(takeErrors(user)).toEqual([]);
    });
  }
});

describe.sequential('home / and /login, signed in (spec §2 "Home", §4 auth)', () => {
  it('when signed in, then the primary button opens /dashboard, "See How It Works" stays and "Start Your Free Trial" is gone', async () => {
    const { page } = user;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(user, '/');
    await expect.poll(() => hrefOf(page.getByTestId('home-primary')), { timeout: 15_000 }).toBe(HOME.primarySignedIn);
    expect(await hrefOf(page.getByRole('link', { name: HOME.secondary.label, exact: true }))).toBe(HOME.secondary.to);
    expect(await page.getByRole('link', { name: HOME.bottom.label, exact: true }).count()).toBe(0);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when a signed-in user opens /login, then they go on to /dashboard', async () => {
    await openPath(user, '/login');
    await user.page.waitForURL(`${ORIGIN}/dashboard`);
    expect(takeErrors(user)).toEqual([]);
  });
});

describe.sequential('/payment, signed in (spec §2 "/payment", §5 "Payment page", §4 from=payment)', () => {
  it('when tier is starter, then /payment sends the user to /dashboard', async () => {
    await openPath(user, '/payment?tier=starter');
    await user.page.waitForURL(`${ORIGIN}/dashboard`);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the tier is missing, then /payment starts no checkout and leads back to /pricing', async () => {
    const { page } = user;
    await visitAtWidths(user, '/payment', async () => {
      expect(pathOf(page)).toBe('/payment');
      expect(await page.getByRole('alert').count()).toBe(1);
      expect(await hrefOf(page.getByRole('link', { name: /pricing/i }).last())).toBe('/pricing');
    });
    expect(takeErrors(user)).toEqual([]);
  });

  it('when a Starter user arrives at /dashboard with from=payment, then they are sent to /payment?tier=plus, which opens checkout', async () => {
    const { page } = user;
    const seen: string[] = [];
    const onNav = (f: { url(): string }) => void seen.push(f.url());
    page.on('framenavigated', onNav);
    try {
      await openPath(user, '/dashboard?from=payment');
      await page.waitForURL(/localhost:8092\/checkout\//, { timeout: 20_000 });
    } finally {
      page.off('framenavigated', onNav);
    }
    expect(seen.some((u) => u.startsWith(`${ORIGIN}/payment?tier=plus`))).toBe(true);
    await openPath(user, '/dashboard');
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the checkout request answers 200 without a url, then /payment shows the error with Retry and a link to /pricing, and the browser never goes to /undefined', async () => {
    const buyer = await signedInVisitor('Katherine Johnson');
    const { page } = buyer;
    try {
      const seen: string[] = [];
      page.on('framenavigated', (f) => {
        if (f === page.mainFrame()) seen.push(f.url());
      });
      let checkouts = 0;
      await page.route(`${ORIGIN}/api/checkout-sessions`, (route) => {
        checkouts += 1;
        return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ plan_changed: false }) });
      });
      await openPath(buyer, '/payment?tier=plus&period=monthly');
      const card = page.locator('main');
      const alert = card.getByRole('alert');
      await alert.waitFor({ timeout: 15_000 });
      const message = await textOf(alert);
      expect(message.startsWith(`${PAYMENT.upgradeFailed} (`) && message.endsWith(')'), message).toBe(true);
      expect(checkouts).toBe(1);
      const back = card.getByRole('link', { name: /pricing/i });
      expect(await hrefOf(back)).toBe(PAYMENT.backTo);
      await page.screenshot({ path: shotFile('/payment-checkout-without-url', page.viewportSize()!.width) });
      await card.getByRole('button', { name: 'Retry' }).click();
      await expect.poll(() => checkouts, { message: 'Retry sends one new checkout request' }).toBe(2);
      await expect.poll(() => alert.isVisible(), { message: 'the error shows again' }).toBe(true);
      expect(pathOf(page)).toBe('/payment?tier=plus&period=monthly');
      expect(
        seen.filter((u) => new URL(u).pathname === '/undefined'),
        'never navigated to /undefined',
      ).toEqual([]);
      await back.click();
      await page.waitForURL(`${ORIGIN}${PAYMENT.backTo}`);
      expect(takeErrors(buyer)).toEqual([]);
    } finally {
      await buyer.context.close();
    }
  });
});

describe.sequential('dashboard (spec §2 "Dashboard", §4 connection toggle and checkout return, §9 timings)', () => {
  it('when /dashboard opens at 1280 px, then the sidebar links read Dashboard, Plan, Docs and Settings (needs helper D2)', async () => {
    const { page } = user;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(user, '/dashboard');
    const nav = page.getByRole('navigation', { name: 'Dashboard sections' });
    await nav.waitFor({ timeout: 15_000 });
    expect(await nav.getByRole('link').evaluateAll((as) => as.slice(0, 4).map((a) => [a.textContent?.trim(), a.getAttribute('href')]))).toEqual(
      DASHBOARD.sidebar.map((label, i) => [label, ['/dashboard', '/dashboard/plan', '/dashboard/docs', '/dashboard/settings'][i]]),
    );
    expect(takeErrors(user)).toEqual([]);
  });

  it("when /dashboard opens at 1280 px, then the sidebar shows the user's initials, name and plan label, Sign out and a theme toggle", async () => {
    const { page } = user;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(user, '/dashboard');
    const sidebar = page.locator('#dash-sidebar');
    await sidebar.getByTestId('user-display-name').waitFor({ timeout: 15_000 });
    expect(await textOf(sidebar.getByTestId('avatar'))).toBe(USER_INITIALS);
    expect(await textOf(sidebar.getByTestId('user-display-name'))).toBe(USER_NAME);
    expect(await textOf(sidebar.getByTestId('user-plan-label'))).toMatch(HEADER.defaultPlan);
    expect(await sidebar.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    const theme = page.getByRole('button', { name: /theme/i });
    const before = await page.evaluate(() => document.documentElement.dataset.theme);
    await theme.click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme), { message: 'the theme toggle switches' }).not.toBe(before);
    await theme.click();
    expect(takeErrors(user)).toEqual([]);
  });

  it('when /dashboard opens, then a notification bell is offered at 1280 px and at 390 px (needs helper D2)', async () => {
    const { page } = user;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
      await openPath(user, '/dashboard');
      const bell = page.getByRole('button', { name: /notification/i });
      await bell.waitFor({ timeout: 15_000 });
      await expectInsideViewport(page, bell, `bell at ${width}px`, 24);
    }
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the connection panel loads, then WebSocket is the default, NATS switches the URL, the JWT and seed are masked until shown, and Copy says "Copied" for exactly 2 s', async () => {
    const { page } = user;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(user, '/dashboard');
    const seedField = page.getByLabel('NKey seed', { exact: true });
    await seedField.waitFor({ timeout: 15_000 });

    expect(await page.getByRole('radio', { name: 'WebSocket' }).isChecked()).toBe(true);
    expect(await page.getByLabel('WebSocket URL', { exact: true }).inputValue()).toMatch(new RegExp(`^wss?://[^/]+:${DASHBOARD.wsPort}`));
    // The radios are drawn as a segmented control: click the visible labels, as a user does.
    const transport = page.getByRole('group', { name: 'Transport' });
    await transport.getByText('NATS', { exact: true }).click();
    expect(await page.getByRole('radio', { name: 'NATS' }).isChecked()).toBe(true);
    expect(await page.getByLabel('NATS URL', { exact: true }).inputValue()).toMatch(new RegExp(`^(nats|tls)://[^/]+:${DASHBOARD.natsPort}`));
    await transport.getByText('WebSocket', { exact: true }).click();
    expect(await page.getByLabel('WebSocket URL', { exact: true }).count()).toBe(1);

    expect(await seedField.inputValue()).not.toMatch(/^SU/); // masked
    const jwtField = page.getByLabel('User JWT', { exact: true });
    expect((await jwtField.inputValue()).split('.')).not.toHaveLength(3);
    await page
      .getByRole('button', { name: /show.*seed/i })
      .first()
      .click();
    seed = await seedField.inputValue();
    expect(seed).toMatch(/^SU[A-Z2-7]{56}$/);
    await page
      .getByRole('button', { name: /hide.*seed/i })
      .first()
      .click();
    expect(await seedField.inputValue(), 'hidden again').not.toMatch(/^SU/);
    await page
      .getByRole('button', { name: /show.*jwt/i })
      .first()
      .click();
    jwt = await jwtField.inputValue();
    expect(jwt.split('.')).toHaveLength(3);

    // The button's accessible name changes with its state; hold the element itself.
    const copy = (await page.getByRole('button', { name: 'Copy NKey seed' }).elementHandle())!;
    try {
      await pauseClock(page);
      await copy.click();
      await expect.poll(() => copy.textContent()).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText()), 'Copy copies the real seed, not the mask').toBe(seed);
      await page.clock.runFor(DASHBOARD.copiedMs - 1);
      await page.waitForTimeout(SETTLE_MS);
      expect(await copy.textContent(), 'still "Copied" after 1,999 ms').toBe('Copied');
      await page.clock.runFor(1);
      await expect.poll(() => copy.textContent(), { message: 'back to "Copy" at 2,000 ms' }).toBe('Copy');
    } finally {
      await page.clock.resume();
    }
    expect(takeErrors(user)).toEqual([]);
  });

  it('when /dashboard opens, then the quick actions link to /dashboard/docs, /dashboard/plan, /dashboard/settings and to the starter templates, which include Python and TypeScript', async () => {
    // The spec's "external starter-template repositories": the templates ship with Tradewind and
    // download from the docs page (docs/spec-conformance.md 1.22, 2.72), so the link is /dashboard/docs#templates.
    const { page } = user;
    const actions = page.locator('section', { has: page.getByRole('heading', { name: 'Quick actions' }) });
    await actions.waitFor();
    const hrefs = await actions.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    const paths = hrefs.map((h) => new URL(h, 'http://x').pathname);
    for (const to of DASHBOARD.quickActions) expect(paths, `a quick action to ${to}`).toContain(to);
    await actions.getByRole('link', { name: /template/i }).click();
    await page.waitForURL(`${ORIGIN}/dashboard/docs#templates`);
    const templates = page.locator('section#templates');
    await templates.waitFor();
    const text = await textOf(templates);
    expect(text).toMatch(/Python/);
    expect(text).toMatch(/TypeScript/);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the user returns from checkout with session_id, then "Payment Successful!" shows at once for exactly 5 s, the query is cleared, and the refresh waits exactly 2 s', async () => {
    const { page } = user;
    const subscriptionCalls: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes('/api/get-subscription')) subscriptionCalls.push(r.url());
    };
    page.on('request', onRequest);
    try {
      await pauseClock(page);
      await openPath(user, '/dashboard?session_id=cs_test_e2e_return');
      const toast = page.getByRole('status').filter({ hasText: DASHBOARD.paymentSuccessful });
      await toast.waitFor({ timeout: 15_000 });
      await expect.poll(() => pathOf(page), { message: 'query cleared' }).toBe('/dashboard');
      expect(subscriptionCalls, 'nothing refreshed before 2 s').toEqual([]);
      await page.clock.runFor(DASHBOARD.checkoutWaitMs - 1);
      await page.waitForTimeout(SETTLE_MS);
      expect(subscriptionCalls, 'nothing refreshed at 1,999 ms').toEqual([]);
      await page.clock.runFor(1);
      await expect.poll(() => subscriptionCalls.length, { message: 'refreshed at 2,000 ms' }).toBeGreaterThan(0);
      await page.clock.runFor(DASHBOARD.toastMs - DASHBOARD.checkoutWaitMs - 1);
      await page.waitForTimeout(SETTLE_MS);
      expect(await toast.count(), 'toast still shown at 4,999 ms').toBe(1);
      await page.clock.runFor(1);
      await expect.poll(() => toast.count(), { message: 'toast gone at 5,000 ms' }).toBe(0);
    } finally {
      page.off('request', onRequest);
      await page.clock.resume();
    }
    await openPath(user, '/dashboard/docs'); // ends the (fruitless) wait for a plan change
    expect(takeErrors(user)).toEqual([]);
  });

  it('when /dashboard/plan opens on Starter, then it shows the current tier, billing period and status with an Upgrade option', async () => {
    const { page } = user;
    await openPath(user, '/dashboard/plan');
    const current = page.locator('section', { has: page.getByRole('heading', { name: 'Current plan' }) });
    await current.waitFor({ timeout: 15_000 });
    const text = await textOf(current);
    expect(text).toContain('Starter');
    expect(text).toMatch(/Billing period/);
    expect(text).toMatch(/Status/);
    expect(await page.getByRole('button', { name: 'Upgrade', exact: true }).count()).toBe(1);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the upgrade dialog opens on Starter, then it lists Plus and Pro with a monthly/annual toggle, and confirm stays disabled until a plan is chosen (needs helper E)', async () => {
    const { page } = user;
    await page.getByRole('button', { name: 'Upgrade', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const options = dialog.getByRole('radio');
    expect(await options.count(), 'one option per plan above Starter').toBe(2);
    expect(await dialog.getByRole('radio', { name: /Plus/ }).count()).toBe(1);
    expect(await dialog.getByRole('radio', { name: /Pro/ }).count()).toBe(1);
    expect(await dialog.getByRole('button', { name: /monthly/i }).count()).toBe(1);
    expect(await dialog.getByRole('button', { name: /annual|yearly/i }).count()).toBe(1);
    const confirm = dialog.getByRole('button', { name: /confirm/i });
    expect(await confirm.isDisabled(), 'confirm disabled without a plan').toBe(true);
    await page.waitForTimeout(SETTLE_MS);
    expect(await confirm.isDisabled(), 'and stays disabled').toBe(true);
    await dialog.getByRole('radio', { name: /Plus/ }).check();
    await expect.poll(() => confirm.isEnabled(), { message: 'confirm enabled once Plus is chosen' }).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when /dashboard/docs opens, then it documents the WebSocket protocol on port 9223', async () => {
    const { page } = user;
    await openPath(user, '/dashboard/docs');
    await page.locator('h1').waitFor({ timeout: 15_000 });
    expect(await page.locator('main h2').count()).toBeGreaterThanOrEqual(3);
    expect(await textOf(page.locator('main'))).toContain(DASHBOARD.wsPort);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when /dashboard/settings opens, then it has the tabs Profile, Security, Connection Details and Notifications, Profile first, each opening its panel', async () => {
    const { page } = user;
    await openPath(user, '/dashboard/settings');
    const tabs = page.getByRole('tab');
    await tabs.first().waitFor({ timeout: 15_000 });
    expect(await tabs.allInnerTexts()).toEqual(DASHBOARD.settingsTabs);
    expect(await tabs.first().getAttribute('aria-selected')).toBe('true');
    for (const label of DASHBOARD.settingsTabs) {
      await page.getByRole('tab', { name: label, exact: true }).click();
      await expect.poll(() => page.getByRole('tab', { name: label, exact: true }).getAttribute('aria-selected')).toBe('true');
      expect(await page.getByRole('tabpanel', { name: label, exact: true }).isVisible(), `${label} panel`).toBe(true);
    }
    expect(takeErrors(user)).toEqual([]);
  });
});

describe.sequential('dashboard sidebar (spec §2 "Dashboard": collapsible sidebar, a drawer on mobile)', () => {
  /** Signed in once for this block (its own user, so the block also runs alone with -t). */
  let owner: Visitor | undefined;
  const sidebarUser = async () => (owner ??= await signedInVisitor('Dorothy Vaughan'));
  afterAll(async () => owner?.context.close());

  /** The sidebar's page links, in order (the spec's four, Tradewind's Usage and Live pages, and the way back to the site). */
  const LINKS = [...DASHBOARD.sidebar, 'Usage', 'Live', 'Back to the website'];

  it('when /dashboard opens at 390 px, then the sidebar links are neither visible nor reachable until the menu button opens the drawer; Escape, the backdrop and a followed link close it, and Tab stays inside it while open', async () => {
    const v = await sidebarUser();
    const { page } = v;
    await page.setViewportSize({ width: 390, height: 844 });
    await openPath(v, '/dashboard');
    const menu = page.getByRole('button', { name: 'Open dashboard menu' });
    await menu.waitFor({ timeout: 15_000 });
    const sidebar = page.locator('#dash-sidebar');
    const link = (label: string) => sidebar.locator('a', { hasText: label });
    const insideSidebar = () => page.evaluate(() => Boolean(document.activeElement?.closest('#dash-sidebar')));

    // Closed: nothing of it shows, a click cannot reach a link, and Tab through the page never lands in it.
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    for (const label of LINKS) expect(await link(label).isVisible(), `${label} hidden`).toBe(false);
    expect(await visibleTexts(sidebar)).toEqual([]);
    await expect(link('Plan').click({ timeout: 1_000 })).rejects.toThrow();
    expect(pathOf(page)).toBe('/dashboard');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await insideSidebar(), `Tab ${i + 1} stays out of the closed drawer`).toBe(false);
    }

    // Open: the links show inside the viewport, focus is on the first, Tab cycles inside the drawer.
    await menu.click();
    await link('Plan').waitFor();
    expect(await page.locator('.dash-menu-button').getAttribute('aria-expanded')).toBe('true');
    await waitForLayoutSettled(page);
    for (const label of LINKS) await expectInsideViewport(page, link(label), `${label} in the open drawer`, 24);
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe(DASHBOARD.sidebar[0]);
    await page.screenshot({ path: shotFile('/dashboard-drawer-open', 390) });
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await insideSidebar(), `Tab ${i + 1} stays inside the open drawer`).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await insideSidebar(), 'Shift+Tab too').toBe(true);
    const close = sidebar.getByRole('button', { name: 'Close dashboard menu' });

    // Escape closes and gives focus back to the menu button.
    await page.keyboard.press('Escape');
    await expect.poll(() => link('Plan').isVisible(), { message: 'Escape closes the drawer' }).toBe(false);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Open dashboard menu');

    // The backdrop closes it; so does its close button.
    await menu.click();
    await link('Plan').waitFor();
    await page.mouse.click(370, 600);
    await expect.poll(() => link('Plan').isVisible(), { message: 'a backdrop click closes the drawer' }).toBe(false);
    await menu.click();
    await close.click();
    await expect.poll(() => link('Plan').isVisible(), { message: 'the close button closes the drawer' }).toBe(false);

    // A followed link navigates and closes it.
    await menu.click();
    await link('Plan').click();
    await page.waitForURL(`${ORIGIN}/dashboard/plan`);
    await expect.poll(() => link('Plan').isVisible(), { message: 'navigation closes the drawer' }).toBe(false);
    expect(await overflowX(page)).toBeLessThanOrEqual(0);

    // A window narrowed to a phone's width hides the sidebar at once (no links sliding away on show).
    await page.setViewportSize({ width: 1280, height: 900 });
    await link('Plan').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await link('Plan').isVisible(), 'hidden as soon as the window is narrow').toBe(false);
    expect(await visibleTexts(sidebar)).toEqual([]);
    expect(takeErrors(v)).toEqual([]);
  });

  it('when the sidebar is collapsed at 1280 px, then it shows icons only — no label text, even under the pointer or with focus in it — and each control names itself in a tooltip', async () => {
    const v = await sidebarUser();
    const { page } = v;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(v, '/dashboard');
    const sidebar = page.locator('#dash-sidebar');
    await sidebar.getByTestId('user-display-name').waitFor({ timeout: 15_000 });
    const wide = (await sidebar.boundingBox())!.width;
    const toggle = page.getByRole('button', { name: 'Collapse sidebar' });
    expect(await visibleTexts(sidebar.locator('nav'))).toEqual(LINKS);
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    // The pointer rests on a link of the collapsed sidebar and the focus stays on the toggle (both widened it before).
    await sidebar.getByRole('link', { name: 'Plan', exact: true }).hover();
    await page.waitForTimeout(400);
    await waitForLayoutSettled(page);
    const narrow = (await sidebar.boundingBox())!.width;
    expect(narrow, 'collapsed to a rail').toBeLessThan(wide / 2);
    expect(await visibleTexts(sidebar), 'no label text in the collapsed sidebar').toEqual([]);
    // Icons: each control shows one inside the rail; its label is its tooltip (and stays its accessible name).
    const controls = sidebar.locator('a.dash-nav-link, button.dash-nav-link');
    const tips = await controls.evaluateAll((els) => els.map((e) => [e.getAttribute('title'), e.textContent?.trim()]));
    expect(tips.slice(0, LINKS.length).map(([title]) => title)).toEqual(LINKS);
    expect(tips.length).toBeGreaterThan(LINKS.length); // theme, Sign out, the toggle
    for (const [title, label] of tips) expect(title, `tooltip of ${label}`).toBe(label);
    for (let i = 0; i < (await controls.count()); i++) {
      const icon = (await controls.nth(i).locator('svg').boundingBox())!;
      expect(icon.width, `icon ${i + 1}`).toBeGreaterThanOrEqual(16);
      expect(icon.x + icon.width, `icon ${i + 1} inside the rail`).toBeLessThanOrEqual(narrow);
    }
    for (const label of DASHBOARD.sidebar) expect(await sidebar.getByRole('link', { name: label, exact: true }).count(), label).toBe(1);
    await page.screenshot({ path: shotFile('/dashboard-collapsed', 1280) });
    // Reopened, the labels are back.
    await toggle.click();
    await page.mouse.move(1200, 800);
    await expect.poll(() => visibleTexts(sidebar.locator('nav')), { message: 'labels back when reopened' }).toEqual(LINKS);
    expect(takeErrors(v)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// The stream, plan changes, screenshots, sign-out
// ---------------------------------------------------------------------------------------------

interface WsClient {
  next(predicate: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  send(m: object): void;
  close(): void;
}

/** A WebSocket client of ws-fanout authenticated with {jwt, nkey}; resolves after `authenticated`. */
async function wsConnect(jwtValue: string, seedValue: string): Promise<{ client: WsClient; authenticated: Record<string, unknown> }> {
  const ws = new WebSocket('ws://localhost:9223');
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    seen.push(JSON.parse(data.toString()) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((ok, fail) => {
    ws.once('open', () => ok());
    ws.once('error', fail);
  });
  const client: WsClient = {
    async next(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = seen.findIndex(predicate);
        if (i >= 0) return seen.splice(i, 1)[0]!;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching WebSocket message in ${timeoutMs} ms; saw ${JSON.stringify(seen.slice(-3))}`);
        await new Promise<void>((ok) => {
          waiters.push(ok);
          setTimeout(ok, Math.min(left, 500));
        });
      }
    },
    send: (m) => ws.send(JSON.stringify(m)),
    close: () => ws.close(),
  };
  client.send({ jwt: jwtValue, nkey: seedValue });
  const authenticated = await client.next((m) => m.type === 'authenticated' || m.type === 'error');
  return { client, authenticated };
}

/** The plan ws-fanout reports for these credentials, polled until it equals `plan` (plan changes take seconds). */
async function waitForWsPlan(jwtValue: string, seedValue: string, plan: string, timeoutMs = 30_000): Promise<WsClient> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const { client, authenticated } = await wsConnect(jwtValue, seedValue);
    if (authenticated.plan === plan) return client;
    last = authenticated;
    client.close();
    if (Date.now() > deadline) throw new Error(`ws-fanout still reports ${JSON.stringify(last)}, expected plan ${plan}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe.sequential('the stream and plan changes (spec §1, §4 tiers, §6 plans, §7 streaming protocol)', () => {
  it("when a WebSocket connects with the dashboard's credentials, then a trade arrives and premium subjects are refused on Starter", async () => {
    expect(jwt, 'the connection panel test read the credentials').not.toBe('');
    const { client, authenticated } = await wsConnect(jwt, seed);
    expect(authenticated).toMatchObject({ type: 'authenticated', plan: 'starter' });
    client.send({ subject: 'basic.pumpfun' });
    client.send({ subject: 'basic.bonk' });
    // Trades carry no type, or (pump.fun, schema_version 2) type "trade"; control messages another type.
    const trade = await client.next((m) => m.type === undefined || m.type === 'trade', 60_000);
    expect(trade).toMatchObject({ source: expect.stringMatching(/^(pumpfun|bonk)$/), signature: expect.any(String) });
    client.send({ subject: 'premium.pumpswap' });
    const refused = await client.next((m) => m.type === 'error');
    expect(refused).toMatchObject({ code: 'subject_not_in_plan' });
    expect(String(refused.message)).toMatch(/Plus/);
    client.close();
  });

  it('when the user upgrades to Plus in the dialog and pays at the local checkout, then the plan page shows Plus with a next billing date and Manage billing, and premium subjects open (needs helper E)', async () => {
    const { page } = user;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(user, '/dashboard/plan');
    await page.getByRole('button', { name: 'Upgrade', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('radio', { name: /Plus/ }).check();
    const confirm = dialog.getByRole('button', { name: /confirm/i });
    await expect.poll(() => confirm.isEnabled(), { message: 'confirm enabled once Plus is chosen and priced' }).toBe(true);
    await confirm.click();
    await page.waitForURL(/localhost:8092\/checkout\//, { timeout: 20_000 });
    expect(await page.content()).toContain('Test checkout — no real payment');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/localhost:8080\/dashboard/, { timeout: 20_000 });
    await page
      .getByRole('status')
      .filter({ hasText: /payment successful|plan/i })
      .first()
      .waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('user-plan-label').first().textContent(), { timeout: 30_000 }).toBe('Plus plan');

    await openPath(user, '/dashboard/plan');
    const current = page.locator('section', { has: page.getByRole('heading', { name: 'Current plan' }) });
    await expect.poll(() => textOf(current), { timeout: 15_000 }).toMatch(/Next billing date/);
    expect(await textOf(current)).toContain('Plus');
    expect(await page.getByRole('button', { name: /manage billing/i }).count()).toBe(1);

    const client = await waitForWsPlan(jwt, seed, 'plus');
    client.send({ subject: 'premium.pumpswap' });
    expect(await client.next((m) => m.type === 'subscribed' || m.type === 'error')).toMatchObject({ type: 'subscribed', subject: 'premium.pumpswap' });
    client.close();
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the user cancels in the billing portal and the period ends, then they are back on Starter and premium subjects close', async () => {
    const { page } = user;
    await openPath(user, '/dashboard/plan');
    await page.getByRole('button', { name: /manage billing/i }).click();
    await page.waitForURL(/localhost:8092\/portal\//, { timeout: 20_000 });
    expect(await page.content()).toContain('Test billing portal — no real payment');
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.getByRole('button', { name: 'Advance to period end (renewal succeeds)' }).click();
    await page.getByRole('link', { name: 'Return to Tradewind' }).click();
    await page.waitForURL(/localhost:8080\/dashboard\/plan/);
    // Navigating away while this page load's refresh request is in flight would present the
    // rotated refresh token again, which auth treats as theft and answers by ending the session.
    await page.getByTestId('user-plan-label').first().waitFor({ timeout: 15_000 });
    // Each reload exchanges the refresh cookie; waiting for the signed-in label before the next
    // reload keeps a rotation from being cut off (a rotated token presented again ends the session).
    await expect
      .poll(
        async () => {
          await page.reload({ waitUntil: 'load' });
          const label = page.getByTestId('user-plan-label').first();
          await label.waitFor({ timeout: 15_000 });
          return label.textContent();
        },
        { timeout: 45_000, interval: 2_000 },
      )
      .toBe('Starter plan');

    const client = await waitForWsPlan(jwt, seed, 'starter');
    client.send({ subject: 'premium.pumpswap' });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'subject_not_in_plan' });
    client.close();
    expect(takeErrors(user)).toEqual([]);
  });
});

usageTests(() => ({ browser }));

describe.sequential('screenshots and sign-out', () => {
  it('when the signed-in pages open at 390 px and 1280 px, then they fit the width and are screenshotted', async () => {
    for (const path of APP_PATHS.filter((p) => p.startsWith('/dashboard'))) await visitAtWidths(user, path);
    expect(takeErrors(user)).toEqual([]);
  });

  it('when the user signs out, then the header offers Sign In again and the dashboard sends them to /login', async () => {
    const { page } = user;
    await page.setViewportSize({ width: 1280, height: 900 });
    await openPath(user, '/');
    await page.locator('.user-menu-button').click();
    await page.getByRole('menuitem', { name: HEADER.signOut }).click();
    await page.getByRole('link', { name: HEADER.signIn.label, exact: true }).first().waitFor();
    expect(pathOf(page)).toBe('/');
    await openPath(user, '/dashboard');
    await page.waitForURL(`${ORIGIN}/login`);
    expect(takeErrors(user)).toEqual([]);
  });

  it("when a public route was not opened by its screen's test, then it is opened and screenshotted signed out", async () => {
    for (const path of PUBLIC_PATHS) if (!existsSync(shotFile(path, 390))) await visitAtWidths(visitor, path);
    expect(takeErrors(visitor)).toEqual([]);
  });

  it('when the run ends, then every route has a screenshot at 390 px and at 1280 px', () => {
    const missing = ROUTES.flatMap((path) => WIDTHS.map((w) => shotFile(path, w))).filter((f) => !existsSync(f));
    expect(missing).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Browser security (issue 35; docs/web.md "Browser security")
// ---------------------------------------------------------------------------------------------

describe.sequential('browser security (issue 35: the policy on every route, no violation, no framing)', () => {
  /** A foreign site, as the Origin of cross-origin calls (no CORS allow header may answer it). */
  const FOREIGN_ORIGIN = 'https://evil.example';

  /** Opens `path` and waits until it has settled (its h1 shows, no transition runs) and every violation report has arrived. */
  async function openSettled(v: Visitor, path: string, ready = 'h1'): Promise<void> {
    await openPath(v, path);
    await v.page.locator(ready).first().waitFor({ state: 'visible', timeout: 15_000 });
    await waitForLayoutSettled(v.page);
    await flushReports(v.page);
  }

  /** Opens every route at both widths and returns the violations reported (each also in v.errors). */
  async function sweep(v: Visitor, paths: readonly string[]): Promise<string[]> {
    for (const width of WIDTHS) {
      await v.page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
      for (const path of paths) await openSettled(v, path);
    }
    return takeCspViolations(v);
  }

  it("when every route is fetched through the ingress, then each page's CSP lists exactly its own inline scripts by hash, and it carries every other security header", async () => {
    for (const path of ROUTES) {
      const res = await fetch(`${ORIGIN}${path}`);
      const html = await res.text();
      expectPageHeaders(headerBag(res), html, path);
      // The theme bootstrap and the site's JSON-LD: a page without them would make the hash check vacuous.
      expect(inlineScriptHashesOf(html).length, `${path}: inline scripts`).toBeGreaterThanOrEqual(2);
    }
  });

  it("when the services' routes answer through the ingress, signed out and signed in, then each carries the API policy, per-user answers are no-store, and a foreign Origin is never allowed", async () => {
    const signedOut: Array<[method: string, path: string, perUser: boolean]> = [
      ['GET', '/api/birdeye/tokens', false],
      ['GET', '/auth/.well-known/jwks.json', false],
      ['GET', '/auth/provider', false],
      ['POST', '/auth/token', true],
      ['GET', '/auth/user', true],
      ['GET', '/auth/session', true],
      ['GET', '/auth/notifications', true],
      ['GET', '/api/nats', true],
      ['GET', '/api/get-subscription', true],
      ['OPTIONS', '/api/nats', true],
    ];
    for (const [method, path, perUser] of signedOut) {
      const res = await fetch(`${ORIGIN}${path}`, {
        method,
        headers: {
          origin: FOREIGN_ORIGIN,
          ...(method === 'OPTIONS' ? { 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } : {}),
        },
      });
      expectApiHeaders(headerBag(res), `${method} ${path} signed out`, perUser);
    }
    const v = await signedInVisitor('Ada Security');
    try {
      await waitForSession(v);
      const answers = await v.page.evaluate(
        async (paths) => {
          const token = await fetch('/auth/token', { method: 'POST', credentials: 'include' });
          const { access_token } = (await token.clone().json()) as { access_token: string };
          const out = [{ path: 'POST /auth/token', status: token.status, headers: Object.fromEntries(token.headers.entries()) }];
          for (const path of paths) {
            const res = await fetch(path, { headers: { authorization: `Bearer ${access_token}` } });
            out.push({ path: `GET ${path}`, status: res.status, headers: Object.fromEntries(res.headers.entries()) });
          }
          return out;
        },
        ['/auth/user', '/auth/session', '/auth/notifications', '/auth/notification-preferences', '/api/nats', '/api/get-subscription'],
      );
      for (const a of answers) {
        expect(a.status, a.path).toBe(200);
        expectApiHeaders(a.headers, `${a.path} signed in`, true);
      }
      expect(takeErrors(v)).toEqual([]);
    } finally {
      await v.context.close();
    }
  });

  it("when the home page's policy lacks the theme script's hash (changed in flight), then the collector reports that violation: the checks below can fail", async () => {
    const v = await newVisitor(browser);
    try {
      await v.page.route(`${ORIGIN}/`, async (route) => {
        const res = await route.fetch();
        const html = await res.text();
        const themeHash = themeScriptHashOf(html);
        const csp = res.headers()['content-security-policy']!;
        expect(csp).toContain(themeHash);
        await route.fulfill({ response: res, body: html, headers: { ...res.headers(), 'content-security-policy': csp.replace(` ${themeHash}`, '') } });
      });
      await openSettled(v, '/');
      await expect.poll(() => v.cspViolations.length, { message: 'a violation was reported' }).toBeGreaterThan(0);
      expect(takeCspViolations(v).join('\n')).toMatch(/script-src-elem blocked \(inline\)|script-src-elem blocked inline/);
      expect(
        v.errors.some((e) => /inline script violates the following Content Security Policy directive|Refused to execute inline script/.test(e)),
        'and Chromium logged it to the console',
      ).toBe(true);
    } finally {
      await v.context.close();
    }
  });

  it('when every route opens at 390 and 1280 px signed out, then no CSP violation is reported', async () => {
    expect(await sweep(visitor, ROUTES)).toEqual([]);
    expect(takeErrors(visitor)).toEqual([]);
  }, 300_000);

  it('when every route opens at 390 and 1280 px signed in, the API reference loads its document, and checkout starts and is cancelled, then no CSP violation is reported', async () => {
    const v = await signedInVisitor('Grace Security');
    try {
      expect(await sweep(v, ROUTES)).toEqual([]);
      // The API reference: /dashboard/docs fetches the OpenAPI document and renders every operation (SchemaTable indents by depth).
      for (const width of WIDTHS) {
        await v.page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
        await openSettled(v, '/dashboard/docs#http-api', '[data-testid="openapi-version"]');
      }
      // Checkout start: /payment asks billing for a Checkout Session and leaves for the (local) checkout page.
      await openPath(v, '/payment?tier=plus&period=monthly');
      await v.page.waitForURL(/localhost:8092\/checkout\//, { timeout: 20_000 });
      await flushReports(v.page);
      await openSettled(v, '/pricing?checkout=cancelled');
      expect(takeCspViolations(v)).toEqual([]);
      expect(takeErrors(v)).toEqual([]);
    } finally {
      await v.context.close();
    }
  }, 300_000);

  it('when a page on another origin frames /dashboard, then the browser refuses to show it; with the two headers taken away, the same page would show it', async () => {
    const decoy = await startFramingPage(`${ORIGIN}/dashboard`);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const answered = page.waitForResponse((r) => r.url() === `${ORIGIN}/dashboard`);
      await page.goto(decoy.url, { waitUntil: 'load' });
      const response = await answered;
      expect(response.status(), 'the browser did fetch /dashboard').toBe(200);
      expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      const frame = await (await page.locator('#victim').elementHandle())!.contentFrame();
      await expect.poll(() => frame?.url(), { message: 'the frame shows an error page, not the dashboard' }).toBe('chrome-error://chromewebdata/');

      // The control: the same decoy, with CSP and X-Frame-Options removed from /dashboard in flight, does frame the app.
      const open = await browser.newContext();
      try {
        await open.route(`${ORIGIN}/dashboard`, async (route) => {
          const res = await route.fetch();
          const headers = { ...res.headers() };
          delete headers['content-security-policy'];
          delete headers['x-frame-options'];
          await route.fulfill({ response: res, headers });
        });
        const control = await open.newPage();
        await control.goto(decoy.url, { waitUntil: 'load' });
        const framed = await (await control.locator('#victim').elementHandle())!.contentFrame();
        await expect.poll(() => framed?.url().startsWith(ORIGIN), { message: 'without the headers the app loads in the frame' }).toBe(true);
      } finally {
        await open.close();
      }
    } finally {
      await context.close();
      await decoy.close();
    }
  });
});

describe('observability', () => {
  it('when Prometheus scrapes the local stack with deploy/prometheus, then every target is up, every rule evaluates and every dashboard query succeeds', async () => {
    if (!stack.attached) expect(stack.output()).toContain('Tradewind is running');
    // scripts/prometheus-check.ts: Debian's prometheus with prometheus.local.yml (the fixed admin ports 9301-9307).
    const { checkPrometheus, formatReport } = await import('../../scripts/prometheus-check');
    const report = await checkPrometheus();
    expect(report.failures, formatReport(report)).toEqual([]);
    expect(report.targets.map((t) => `${t.job} ${t.health}`)).toEqual(
      ['auth', 'billing', 'credential-issuer', 'ingest', 'token-price', 'web', 'ws-fanout'].map((job) => `${job} up`),
    );
    expect(report.rules.length).toBeGreaterThan(20);
    expect(report.rules.filter((r) => r.health !== 'ok' || r.lastError !== '')).toEqual([]);
    expect(report.queries.length).toBeGreaterThan(50);
    expect(report.queries.filter((q) => !q.ok)).toEqual([]);
  });
});

describeLivePage(() => browser);

// ---------------------------------------------------------------------------------------------
// Secrets in logs (issue 24): after everything above ran — sign-ins, checkouts with webhooks,
// credentials issued and used, refused logins — no service log holds a credential or an address.
// ---------------------------------------------------------------------------------------------

/**
 * What must never appear in a log line, by shape: NKey seeds (S + type letter + 56 base32
 * characters, nats.io nkeys), JWTs (three base64url parts, the first two JSON objects), Stripe
 * secret/restricted keys and webhook secrets (docs.stripe.com/keys), e-mail addresses.
 */
const SECRET_SHAPES: ReadonlyArray<[string, RegExp]> = [
  ['NKey seed', /\bS[ACNOUPX][A-Z2-7]{56}\b/],
  ['JWT', /\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{16,}/],
  ['Stripe key', /\b(?:sk|rk)_(?:test|live)_\w{8,}|\bwhsec_\w{8,}/],
  ['e-mail address', /[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b/i],
];

describe('secrets in logs', () => {
  it("when the run ends, then no service log holds an NKey seed, a JWT, a Stripe key, an e-mail address or this run's refresh tokens", async () => {
    if (stack.attached) return; // an attached stack's logs are not this run's to read
    const dir = join(stack.stateDir, 'logs');
    const files = readdirSync(dir).filter((f) => f.endsWith('.log'));
    expect(files.length).toBeGreaterThanOrEqual(8);
    // The refresh tokens this run's browsers hold (HttpOnly cookies, never to be logged).
    const refreshTokens = (await Promise.all([user, visitor].map((v) => v.context.cookies())))
      .flat()
      .filter((c) => c.name === 'tw_refresh')
      .map((c) => c.value);
    const found: string[] = [];
    let lines = 0;
    for (const file of files) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        lines += 1;
        for (const [what, shape] of SECRET_SHAPES) {
          const m = shape.exec(line);
          if (m) found.push(`${file}: ${what} ${m[0].slice(0, 12)}…`);
        }
        for (const token of refreshTokens) if (line.includes(token)) found.push(`${file}: a refresh token`);
      }
    }
    expect(lines).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });

  it('when a log line holds a seed, a JWT, a Stripe key or an address, then the shapes above find it', () => {
    const samples = [
      'SUAM6X2DRP3ULA5U2VI7OF7STOV25ZH2CHYCKPS2QEOQWE5PHC726P76DM',
      'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJleHAiOjE3OTgyNDIyNDgsImF1ZCI6Ik5BVFMifQ.V0sf0NnT8YjshKwS8Dn75k6a69qXE9pL',
      'sk_test_51Habcdefghijkl',
      'whsec_abcdefghijkl',
      'e2e-1a2b3c4d@example.test',
    ];
    for (const [i, sample] of samples.entries()) {
      const line = `{"level":30,"msg":"x","value":"${sample}"}`;
      expect(
        SECRET_SHAPES.some(([, shape]) => shape.test(line)),
        `sample ${i}`,
      ).toBe(true);
    }
    // A mint, a signature and a NATS public key are not secrets and must not trip the check.
    for (const benign of ['5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump', 'UAQFRHNU6JETWZSXP6DZURBKULCGCFKA5WFJK6QO4FGLHGDZLPRCV5DX']) {
      expect(
        SECRET_SHAPES.some(([, shape]) => shape.test(`{"mint":"${benign}"}`)),
        benign,
      ).toBe(false);
    }
  });
});
