/**
 * End to end: the real local stack (`npm start`'s scripts/start.ts: replayed mainnet trades,
 * NATS in operator mode, auth with the local OpenID Connect provider, billing with the local
 * Stripe stand-in, credential-issuer, ws-fanout, token-price, the web app behind the ingress)
 * driven by Debian's Chromium through playwright-core (never a browser download).
 *
 * Screenshots of every route at 390 px and 1280 px go to artifacts/screenshots/ (CI keeps
 * artifacts/).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOG_POSTS } from '../src/content/blog/posts';
import { APP_PATHS, PUBLIC_PATHS } from '../src/route-paths';
import { startLocalStack, type LocalStack } from './stack';

const ROOT = resolve(import.meta.dirname, '../..');
const SHOTS = resolve(ROOT, 'artifacts/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WIDTHS = [390, 1280] as const;

let stack: LocalStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

function shotName(path: string, width: number): string {
  const bare = path.split('?')[0]!;
  const name = bare === '/' ? 'home' : bare.slice(1).replace(/\//g, '__');
  return resolve(SHOTS, `${name}-${width}.png`);
}

/** Visits `path` at each width: no horizontal overflow, one h1, a screenshot. */
async function visitAtWidths(p: Page, path: string): Promise<void> {
  for (const width of WIDTHS) {
    await p.setViewportSize({ width, height: width < 800 ? 844 : 900 });
    await p.goto(`${stack.origin}${path}`, { waitUntil: 'load' });
    await p.locator('h1').first().waitFor({ state: 'visible', timeout: 15_000 });
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} at ${width}px overflows by ${overflow}px`).toBeLessThanOrEqual(0);
    expect(await p.locator('h1').count(), `${path} has one h1`).toBe(1);
    await p.waitForTimeout(400); // let data and CSS transitions (the sidebar after a resize) settle
    await p.screenshot({ path: shotName(path, width), fullPage: true });
  }
}

interface WsClient {
  next(predicate: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  send(m: object): void;
  close(): void;
}

/** A WebSocket client of ws-fanout authenticated with {jwt, nkey}; resolves after `authenticated`. */
async function wsConnect(jwt: string, seed: string): Promise<{ client: WsClient; authenticated: Record<string, unknown> }> {
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
  client.send({ jwt, nkey: seed });
  const authenticated = await client.next((m) => m.type === 'authenticated' || m.type === 'error');
  return { client, authenticated };
}

/** The plan ws-fanout reports for these credentials, polled until it equals `plan` (plan changes take seconds). */
async function waitForWsPlan(jwt: string, seed: string, plan: string, timeoutMs = 30_000): Promise<WsClient> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const { client, authenticated } = await wsConnect(jwt, seed);
    if (authenticated.plan === plan) return client;
    last = authenticated;
    client.close();
    if (Date.now() > deadline) throw new Error(`ws-fanout still reports ${JSON.stringify(last)}, expected plan ${plan}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  stack = await startLocalStack();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: 'http://localhost:8080' });
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of (401|404)/.test(msg.text())) {
      pageErrors.push(`${page.url()}: console: ${msg.text()}`);
    }
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

describe.sequential('the web app against the local stack', () => {
  it('when a crawler fetches a public page without JavaScript, then the HTML carries its title, description, canonical link and structured data', async () => {
    for (const path of PUBLIC_PATHS) {
      const res = await fetch(`${stack.origin}${path}`);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html, path).toMatch(/<title>[^<]{5,}<\/title>/);
      expect(html, path).toMatch(/<meta name="description" content="[^"]{20,}"/);
      expect(html, path).toContain(`<link rel="canonical" href="http://localhost:8080${path}"`);
      expect(html, path).toContain('"@type":"Organization"');
      expect(html, path).toContain('"@type":"WebSite"');
      expect(html, path).toMatch(/<h1[ >]/);
    }
    for (const post of BLOG_POSTS) {
      const html = await (await fetch(`${stack.origin}/blog/${post.slug}`)).text();
      expect(html, post.slug).toContain('"@type":"Article"');
      expect(html.includes('"@type":"FAQPage"'), `${post.slug} FAQPage`).toBe(Boolean(post.hasFaq));
      expect(html, post.slug).toContain(`<meta property="og:type" content="article"`);
    }
    const missing = await fetch(`${stack.origin}/no-such-page`);
    expect(missing.status).toBe(404);
    const shell = await (await fetch(`${stack.origin}/dashboard`)).text();
    expect(shell).toContain('<meta name="robots" content="noindex"');
  });

  it('when each public page opens at 390 px and 1280 px, then it hydrates without errors, fits the width and is screenshotted', async () => {
    for (const path of PUBLIC_PATHS) await visitAtWidths(page, path);
    expect(pageErrors).toEqual([]);
  });

  it('when the home page loads, then the live token panel shows the rows of GET /api/birdeye/tokens', async () => {
    const api = (await (await fetch(`${stack.origin}/api/birdeye/tokens`)).json()) as { success: boolean; data: Array<{ mint: string; name: string | null }> };
    expect(api.success).toBe(true);
    expect(api.data.length).toBeGreaterThan(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.origin}/`);
    const rows = page.locator('[data-testid="token-row"]');
    await rows.first().waitFor({ timeout: 20_000 });
    // Tokens only accumulate, and the panel asked after this test did: at least as many rows, at most its limit.
    expect(await rows.count()).toBeGreaterThanOrEqual(Math.min(api.data.length, 20));
    expect(await rows.count()).toBeLessThanOrEqual(20);
    const labels = await rows.locator('th span[title]').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    const known = new Set(api.data.map((t) => t.name ?? t.mint));
    expect(labels.filter((l) => known.has(l!)).length).toBeGreaterThan(0);
  });

  let jwt = '';
  let seed = '';

  it('when a visitor signs in through the local OpenID Connect provider, then the dashboard shows their credentials and copies the seed', async () => {
    const email = `e2e-${randomBytes(4).toString('hex')}@example.test`;
    await page.goto(`${stack.origin}/login`);
    await page.locator('a.auth-button').click();
    await page.waitForURL(/localhost:8091\/authorize/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Local sign-in — not Google');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Continue as this user' }).click();
    await page.waitForURL(`${stack.origin}/dashboard`);
    await expect.poll(() => page.getByTestId('user-display-name').first().textContent(), { timeout: 15_000 }).toBe('Ada Lovelace');

    const seedField = page.getByLabel('NKey seed', { exact: true });
    await seedField.waitFor({ timeout: 15_000 });
    expect(await seedField.inputValue()).not.toMatch(/^SU/); // masked
    await page.getByRole('button', { name: /show.*seed/i }).first().click();
    seed = await seedField.inputValue();
    expect(seed).toMatch(/^SU[A-Z2-7]{56}$/);
    await page.getByRole('button', { name: /show.*jwt/i }).first().click();
    jwt = await page.getByLabel('User JWT', { exact: true }).inputValue();
    expect(jwt.split('.')).toHaveLength(3);

    // The button's accessible name changes with its state; hold the element itself.
    const copy = (await page.getByRole('button', { name: 'Copy NKey seed' }).elementHandle())!;
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(seed);
    await expect.poll(() => copy.textContent(), { timeout: 5_000 }).toBe('Copy');
  });

  it('when a WebSocket connects with those credentials, then a trade arrives and premium subjects are refused on Starter', async () => {
    const { client, authenticated } = await wsConnect(jwt, seed);
    expect(authenticated).toMatchObject({ type: 'authenticated', plan: 'starter' });
    client.send({ subject: 'basic.pumpfun' });
    client.send({ subject: 'basic.bonk' });
    const trade = await client.next((m) => m.type === undefined, 60_000);
    expect(trade).toMatchObject({ source: expect.stringMatching(/^(pumpfun|bonk)$/), signature: expect.any(String) });
    client.send({ subject: 'premium.pumpswap' });
    const refused = await client.next((m) => m.type === 'error');
    expect(refused).toMatchObject({ code: 'subject_not_in_plan' });
    expect(String(refused.message)).toMatch(/Plus/);
    client.close();
  });

  it('when the user upgrades to Plus through the local checkout, then the plan changes and premium subjects open', async () => {
    await page.goto(`${stack.origin}/dashboard/plan`);
    await page.getByRole('button', { name: 'Upgrade', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('link', { name: /^Upgrade to Plus, / }).first().click();
    await page.waitForURL(/localhost:8092\/checkout\//, { timeout: 20_000 });
    expect(await page.content()).toContain('Test checkout — no real payment');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/localhost:8080\/dashboard/, { timeout: 20_000 });
    await page.getByRole('status').filter({ hasText: /payment successful|plan/i }).first().waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('user-plan-label').first().textContent(), { timeout: 30_000 }).toBe('Plus plan');

    const client = await waitForWsPlan(jwt, seed, 'plus');
    client.send({ subject: 'premium.pumpswap' });
    expect(await client.next((m) => m.type === 'subscribed' || m.type === 'error')).toMatchObject({ type: 'subscribed', subject: 'premium.pumpswap' });
    client.close();
  });

  it('when the user cancels in the billing portal and the period ends, then they are back on Starter and premium subjects close', async () => {
    await page.goto(`${stack.origin}/dashboard/plan`);
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
    await expect.poll(async () => {
      await page.reload({ waitUntil: 'load' });
      const label = page.getByTestId('user-plan-label').first();
      await label.waitFor({ timeout: 15_000 });
      return label.textContent();
    }, { timeout: 45_000, interval: 2_000 }).toBe('Starter plan');

    const client = await waitForWsPlan(jwt, seed, 'starter');
    client.send({ subject: 'premium.pumpswap' });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'subject_not_in_plan' });
    client.close();
  });

  it('when the signed-in pages open at 390 px and 1280 px, then they fit the width and are screenshotted', async () => {
    for (const path of APP_PATHS.filter((p) => p.startsWith('/dashboard'))) await visitAtWidths(page, path);
    expect(pageErrors).toEqual([]);
  });

  it('when the user signs out, then the header offers sign-in again and the dashboard sends them to /login', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.origin}/`);
    await page.locator('.user-menu-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    await page.goto(`${stack.origin}/dashboard`);
    await page.waitForURL(/\/login/);
    // Signed out, /payment sends the visitor to sign in first; an unknown path is the 404 page.
    for (const path of ['/login', '/payment?tier=plus&period=monthly', '/no-such-page']) await visitAtWidths(page, path);
    expect(pageErrors).toEqual([]);
  });
});

describe('observability', () => {
  it('when Prometheus scrapes the local stack with deploy/prometheus, then every target is up, every rule evaluates and every dashboard query succeeds', async () => {
    expect(stack.output()).toContain('Tradewind is running');
    // scripts/prometheus-check.ts: Debian's prometheus with prometheus.local.yml (the fixed admin ports 9301-9307).
    const { checkPrometheus, formatReport } = await import('../../scripts/prometheus-check');
    const report = await checkPrometheus();
    expect(report.failures, formatReport(report)).toEqual([]);
    expect(report.targets.map((t) => `${t.job} ${t.health}`)).toEqual(
      ['auth', 'billing', 'credential-issuer', 'ingest', 'token-price', 'web', 'ws-fanout'].map((job) => `${job} up`));
    expect(report.rules.length).toBeGreaterThan(20);
    expect(report.rules.filter((r) => r.health !== 'ok' || r.lastError !== '')).toEqual([]);
    expect(report.queries.length).toBeGreaterThan(50);
    expect(report.queries.filter((q) => !q.ok)).toEqual([]);
  });
});
