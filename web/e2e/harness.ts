/**
 * Browser helpers of the end-to-end tests (web/e2e/app.test.ts): one Chromium, a browser context
 * per visitor (each with Playwright's fake clock installed and running at normal speed until a test
 * pauses it), console-error and Content Security Policy violation collection, sign-in through the
 * local OpenID Connect provider, layout checks and screenshots.
 */
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** The local stack's public origin (scripts/start.ts: the ingress on 8080). */
export const ORIGIN = 'http://localhost:8080';
/** Where screenshots go (`<route>-<width>.png`); .ci/run counts them after the run, CI keeps artifacts/. */
export const SHOTS_DIR = resolve(import.meta.dirname, '../../artifacts/screenshots');
/** The two widths every route is checked and photographed at (px): a phone and a laptop. */
export const WIDTHS = [390, 1280] as const;
/**
 * Screenshots stop this far down the page, px. The API reference is ~96,000 px tall at 390 px and
 * the articles 20,000–40,000: capturing and PNG-encoding all of it took Chromium several seconds
 * of both cores, long enough under load for the 10 s step timeout (a capture timed out in a
 * fresh-clone run) and for the page's own requests to stall behind it. The top of a page is what
 * a reviewer looks at; overflow and content checks cover the whole page.
 */
export const SHOT_MAX_HEIGHT_PX = 8_000;

/** Resource errors the browser logs for answers the app handles itself (signed-out session probe, the 404 page). */
const EXPECTED_RESOURCE_ERROR = /Failed to load resource: the server responded with a status of (401|404)/;

/** One visitor: a browser context with its own cookies, fake clock and page, and the errors its page logged. */
export interface Visitor {
  context: BrowserContext;
  page: Page;
  /**
   * Uncaught page errors, console errors (expected 401/404 resource errors excluded; a CSP violation's
   * "Refused to …" message is one) and Content Security Policy violations, with the URL.
   */
  errors: string[];
  /**
   * Every `securitypolicyviolation` event of any document of the context (the app's pages and any other
   * origin it visits), as `<document URL>: CSP violation: <directive> blocked <what> (<source>:<line>)`;
   * each is also in {@link errors}. Read with {@link takeCspViolations} after {@link flushReports}.
   */
  cspViolations: string[];
  /**
   * Whether the page's session is settled: the document on show (if it is the app's) has sent its
   * session refresh (`POST /auth/token`) and every refresh has been answered.
   */
  sessionSettled(): boolean;
}

/**
 * A fresh visitor: a new context (viewport 1280 × 900, clipboard allowed on the origin), the fake
 * clock installed before any page loads (time flows normally until {@link pauseClock}), and one page
 * whose errors are collected.
 */
export async function newVisitor(browser: Browser): Promise<Visitor> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  await context.clock.install();
  const errors: string[] = [];
  const cspViolations: string[] = [];
  await collectCspViolations(context, (line) => {
    cspViolations.push(line);
    errors.push(line);
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // Every document of the app refreshes its session once on start; count documents and refreshes.
  const refreshes = new Set<unknown>();
  let documents = 0;
  let refreshedDocument = 0;
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) documents = url.origin === ORIGIN ? documents + 1 : documents;
    else if (r.method() === 'POST' && url.origin === ORIGIN && url.pathname === '/auth/token') {
      refreshes.add(r);
      refreshedDocument = documents;
    }
  });
  page.on('requestfinished', (r) => void refreshes.delete(r));
  page.on('requestfailed', (r) => void refreshes.delete(r));
  page.on('pageerror', (err) => errors.push(`${page.url()}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !EXPECTED_RESOURCE_ERROR.test(msg.text())) errors.push(`${page.url()}: console: ${msg.text()}`);
  });
  return {
    context,
    page,
    errors,
    cspViolations,
    sessionSettled: () => refreshes.size === 0 && (refreshedDocument === documents || new URL(page.url()).origin !== ORIGIN),
  };
}

/** What the page reports of one `securitypolicyviolation` event (SecurityPolicyViolationEvent, CSP3 §5.3). */
interface CspViolationReport {
  directive: string;
  blocked: string;
  source: string;
  line: number;
  sample: string;
  disposition: string;
}

/**
 * Reports every `securitypolicyviolation` event of every document and frame of `context` to `report`,
 * before any page script runs: a listener on the document (the event bubbles up from the element that
 * caused it, or fires at the document) calls a binding into the test. Neither the init script nor the
 * binding is subject to the page's CSP (DevTools protocol), so the collector cannot itself cause a violation.
 */
export async function collectCspViolations(context: BrowserContext, report: (line: string) => void): Promise<void> {
  await context.exposeBinding('__twCspViolation', ({ frame }, v: CspViolationReport) => {
    report(
      `${frame.url()}: CSP violation (${v.disposition}): ${v.directive} blocked ${v.blocked || '(inline)'} (${v.source || '?'}:${v.line}) ${v.sample}`.trim(),
    );
  });
  await context.addInitScript(() => {
    document.addEventListener(
      'securitypolicyviolation',
      (e) => {
        const send = (window as unknown as { __twCspViolation?: (v: CspViolationReport) => void }).__twCspViolation;
        send?.({
          directive: e.effectiveDirective,
          blocked: e.blockedURI,
          source: e.sourceFile,
          line: e.lineNumber,
          sample: e.sample,
          disposition: e.disposition,
        });
      },
      true,
    );
  });
}

/**
 * Waits until the page has run every task queued so far (one macrotask turn in the page): a violation
 * report is queued as a task when the violation happens, and its binding call reaches the test before
 * this evaluation's answer, so what happened before the call has been collected when it returns.
 */
export async function flushReports(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((done) => setTimeout(done, 0)));
}

/** Returns and clears the CSP violations collected so far (they stay in {@link Visitor.errors} too). */
export function takeCspViolations(v: Visitor): string[] {
  return v.cspViolations.splice(0);
}

/**
 * Loads `path` once the page's session refresh (if any) has been answered. Each page load exchanges
 * auth's rotating refresh cookie; leaving a page while that exchange is in flight would present the
 * old cookie again, which auth treats as theft and answers by ending the session (docs/auth.md).
 */
export async function openPath(v: Visitor, path: string): Promise<void> {
  await waitForSession(v);
  await v.page.goto(`${ORIGIN}${path}`, { waitUntil: 'load' });
}

/** Waits (up to 10 s) until {@link Visitor.sessionSettled}. @throws Error when it does not settle. */
export async function waitForSession(v: Visitor): Promise<void> {
  await expect.poll(() => v.sessionSettled(), { message: `the session refresh of ${v.page.url()} finished`, timeout: 10_000, interval: 50 }).toBe(true);
}

/** Returns and clears the errors collected so far (for tests that cause one on purpose). */
export function takeErrors(v: Visitor): string[] {
  return v.errors.splice(0);
}

/**
 * Signs in through /login and the local OpenID Connect provider (the stand-in for Google) as a new
 * user named `name`, starting from `loginPath` (e.g. `/login?tier=plus&period=yearly`). Resolves
 * once auth has redirected away from the provider (to /dashboard or /payment).
 */
export async function signIn(v: Visitor, name: string, loginPath = '/login'): Promise<string> {
  const email = `e2e-${Math.random().toString(16).slice(2, 10)}@example.test`;
  const { page } = v;
  await openPath(v, loginPath);
  await page.locator('a.auth-button').click();
  await page.waitForURL(/localhost:8091\/authorize/);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Local sign-in — not Google');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Continue as this user' }).click();
  await page.waitForURL((url) => url.origin === ORIGIN);
  return email;
}

/** `href` of a link, as written (router links carry the path, e.g. `/pricing`). */
export async function hrefOf(link: Locator): Promise<string | null> {
  return link.getAttribute('href');
}

/** Path and query of the page's URL (`/dashboard?x=1`). */
export function pathOf(page: Page): string {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
}

/** Horizontal overflow of the document in px (0 or less: the page fits the viewport's width). */
export async function overflowX(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** Asserts that `locator`'s box lies inside the viewport horizontally and is at least `minSize` px wide and high. */
export async function expectInsideViewport(page: Page, locator: Locator, what: string, minSize = 0): Promise<void> {
  const box = await locator.boundingBox();
  const width = page.viewportSize()!.width;
  expect(box, `${what} is rendered`).not.toBeNull();
  expect(box!.x, `${what} starts inside the viewport at ${width}px`).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, `${what} ends inside the viewport at ${width}px`).toBeLessThanOrEqual(width);
  expect(Math.min(box!.width, box!.height), `${what} is at least ${minSize}px in both directions`).toBeGreaterThanOrEqual(minSize);
}

/** The page's current (fake) time, ms since the epoch. */
export async function pageNow(page: Page): Promise<number> {
  return page.evaluate(() => Date.now());
}

/**
 * Stops the page's clock (timers fire only through `clock.runFor`) a moment from now. The clock
 * keeps running while the pause is requested, so the target is a little ahead (timers due before
 * it fire); when it has already passed, a later target is tried. Callers resume in a `finally`.
 */
export async function pauseClock(page: Page): Promise<void> {
  for (let ahead = 100; ; ahead *= 2) {
    try {
      await page.clock.pauseAt((await pageNow(page)) + ahead);
      return;
    } catch (err) {
      if (ahead >= 3200 || !/past/i.test(String(err))) throw err;
    }
  }
}

/** How long {@link waitForLayoutSettled} waits for CSS transitions to end before it fails, ms. */
const SETTLE_TIMEOUT_MS = 5_000;

/**
 * Waits until no CSS transition is in flight in the page (none running at two looks 50 ms apart),
 * so a screenshot never catches an element half-way (a sidebar changing width, a drawer sliding,
 * labels clipped at a moving edge). Endless CSS animations (spinners) are not transitions and are
 * not waited for. @throws Error when transitions still run after {@link SETTLE_TIMEOUT_MS}.
 */
export async function waitForLayoutSettled(page: Page): Promise<void> {
  const running = () =>
    page.evaluate(() =>
      document
        .getAnimations()
        .filter((a) => a instanceof CSSTransition && a.playState !== 'finished')
        .map((a) => `${(a as CSSTransition).transitionProperty} of ${((a.effect as KeyframeEffect | null)?.target as Element | null)?.className ?? '?'}`),
    );
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (let quiet = 0; quiet < 2; ) {
    const inFlight = await running();
    if (inFlight.length > 0 && Date.now() > deadline) throw new Error(`CSS transitions still running on ${page.url()}: ${inFlight.join(', ')}`);
    quiet = inFlight.length === 0 ? quiet + 1 : 0;
    if (quiet < 2) await page.waitForTimeout(50);
  }
}

/** File of the screenshot of `path` at `width`: `/` → home-390.png, `/dashboard/plan` → dashboard__plan-390.png. */
export function shotFile(path: string, width: number): string {
  const bare = path.split('?')[0]!;
  const name = bare === '/' ? 'home' : bare.slice(1).replace(/\//g, '__');
  return resolve(SHOTS_DIR, `${name}-${width}.png`);
}

/**
 * Opens `path` at each of {@link WIDTHS}: its one h1 shows, the page does not overflow the width, and
 * once the layout has settled ({@link waitForLayoutSettled}) a full-page screenshot (its top
 * {@link SHOT_MAX_HEIGHT_PX}) is written ({@link shotFile}; `shotAs` names it after another path, e.g. a
 * redirect's source). `check` then runs for page-specific assertions (after the screenshot, so a
 * failing check still leaves the picture of what failed).
 */
export async function visitAtWidths(v: Visitor, path: string, check?: (width: number) => Promise<void>, shotAs = path): Promise<void> {
  const { page } = v;
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
    await openPath(v, path);
    await page.locator('h1').first().waitFor({ state: 'visible', timeout: 15_000 });
    const overflow = await overflowX(page);
    expect(overflow, `${path} at ${width}px overflows by ${overflow}px`).toBeLessThanOrEqual(0);
    expect(await page.locator('h1').count(), `${path} has one h1`).toBe(1);
    await page.waitForTimeout(300); // data settles
    await waitForLayoutSettled(page); // and no CSS transition is in flight (the sidebar after a resize)
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: shotFile(shotAs, width), fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, SHOT_MAX_HEIGHT_PX) } });
    await check?.(width);
  }
}
