/**
 * End to end: the dashboard's Live page (/dashboard/live) against the real local stack, registered from
 * web/e2e/app.test.ts (one stack and one browser for the file). A user of its own (a new Starter
 * customer: one WebSocket connection) opens the page and sees its own stream through ws-fanout; a Node
 * `ws` client with the same credentials checks what the page showed and holds the slot when the page
 * must be refused. Screenshots of the page with trades at 390 and 1280 px replace the route's (taken by
 * app.test.ts before the stream had sent anything).
 */
import type { Browser, Page, Response } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import {
  newVisitor,
  ORIGIN,
  openPath,
  overflowX,
  SHOT_MAX_HEIGHT_PX,
  shotFile,
  signIn,
  takeErrors,
  waitForLayoutSettled,
  waitForSession,
  WIDTHS,
  type Visitor,
} from './harness';

const LIVE = '/dashboard/live';
/** ws-fanout of the local stack (scripts/start.ts), as GET /api/nats `ws_connection` names it. */
const WS_URL = 'ws://localhost:9223';
/** The subject the page opens on for a Starter customer (the plan's first). */
const SUBJECT = 'basic.pumpfun';
/** The User-Agent of the Node client that holds the slot (ws sends none of its own). */
const HOLDER_AGENT = 'tradewind-e2e-holder/1.0';

/** A Node WebSocket client of ws-fanout: every message kept, parsed. */
class NodeClient {
  readonly ws: WebSocket;
  readonly seen: Array<Record<string, unknown>> = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<number>;

  constructor(headers: Record<string, string> = {}) {
    this.ws = new WebSocket(WS_URL, { headers });
    this.opened = new Promise((ok, fail) => {
      this.ws.once('open', () => ok());
      this.ws.once('error', fail);
    });
    this.closed = new Promise((ok) => this.ws.once('close', (code) => ok(code)));
    this.ws.on('message', (data) => this.seen.push(JSON.parse(data.toString()) as Record<string, unknown>));
  }

  /** The first message matching `predicate` (kept in `seen`), waiting up to `timeoutMs`. */
  async find(predicate: (m: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    await expect.poll(() => this.seen.some(predicate), { timeout: timeoutMs, interval: 50 }).toBe(true);
    return this.seen.find(predicate)!;
  }

  send(m: object): void {
    this.ws.send(JSON.stringify(m));
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * Logs in with the customer's credentials; the page's connection may still be freeing the one slot, so a
 * `connection_limit` refusal is retried for a few seconds. @returns the authenticated client.
 */
async function nodeLogin(creds: { jwt: string; seed: string }, headers: Record<string, string> = {}): Promise<NodeClient> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const c = new NodeClient(headers);
    await c.opened;
    c.send({ jwt: creds.jwt, nkey: creds.seed });
    const answer = await c.find((m) => m.type === 'authenticated' || m.type === 'error');
    if (answer.type === 'authenticated') return c;
    c.close();
    if (answer.code !== 'connection_limit' || Date.now() > deadline) throw new Error(`login refused: ${JSON.stringify(answer)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Whether a message is a trade (no `type`, or pump.fun's `"type":"trade"`), not a control message such as a heartbeat (which has a `seq` too). */
const isTrade = (m: Record<string, unknown>) => (m.type === undefined || m.type === 'trade') && typeof m.seq === 'number';

/** The `seq` of every trade row on the page, newest first. */
async function pageSeqs(page: Page): Promise<number[]> {
  return page.locator('.live-table tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
}

/** Whether `r` is the page's GET /api/nats. */
const isCredentials = (r: Response) => new URL(r.url()).pathname === '/api/nats' && r.request().method() === 'GET';

/** Registers the Live page's tests; `browser` is read when they run (app.test.ts launches it in beforeAll). */
export function describeLivePage(browser: () => Browser): void {
  describe.sequential('the Live page (/dashboard/live: the customer’s own stream in the browser)', () => {
    let v: Visitor;
    let signedIn: Promise<Visitor> | undefined;
    let creds: { jwt: string; seed: string } = { jwt: '', seed: '' };
    /** Every frame the page's WebSockets sent. */
    const sent: string[] = [];

    /** A new Starter customer of its own, signed in once for the block (inside a test: sign-in polls with expect). */
    const signedInVisitor = () =>
      (signedIn ??= (async () => {
        const visitor = await newVisitor(browser());
        await signIn(visitor, 'Katherine Johnson');
        await visitor.page.waitForURL(`${ORIGIN}/dashboard`);
        await waitForSession(visitor);
        visitor.page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(typeof f.payload === 'string' ? f.payload : f.payload.toString('utf8'))));
        v = visitor;
        return visitor;
      })());

    afterAll(async () => (await signedIn?.catch(() => undefined))?.context.close());

    /** Opens the Live page at `width` and reads the credentials it fetched. */
    async function openLive(width = 1280): Promise<void> {
      await v.page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
      const answer = v.page.waitForResponse(isCredentials, { timeout: 15_000 });
      await openPath(v, LIVE);
      const body = (await (await answer).json()) as { user_jwt: string; user_nkey_seed: string };
      creds = { jwt: body.user_jwt, seed: body.user_nkey_seed };
    }

    it('when the page opens, then trades show within 10 s over its own WebSocket, which signs the challenge and never sends the seed', async () => {
      const { page } = await signedInVisitor();
      // Trades within 10 s of opening the page (the sign-in before it is not the page's time).
      const opened = Date.now();
      await openLive();
      await page
        .locator('.live-table tbody tr')
        .first()
        .waitFor({ timeout: 10_000 - (Date.now() - opened) });
      expect(await page.getByTestId('live-slot-note').textContent()).toContain('This preview uses 1 of your 1 WebSocket connection while it is open');
      expect(await page.locator('.live-status[data-state="live"]').count()).toBe(1);
      const login = sent.map((f) => JSON.parse(f) as Record<string, unknown>).find((m) => 'jwt' in m);
      expect(login && Object.keys(login).sort()).toEqual(['jwt', 'sig']);
      expect(login!.jwt).toBe(creds.jwt);
      expect(creds.seed).toMatch(/^SU/);
      expect(sent.filter((f) => f.includes(creds.seed))).toEqual([]);
      expect(sent.some((f) => f === JSON.stringify({ subject: SUBJECT }))).toBe(true);
      expect(takeErrors(v)).toEqual([]);
    });

    it('when the filter is BUY only, then the server is asked for it and every row shown is a BUY', async () => {
      const { page } = await signedInVisitor();
      await page.getByRole('checkbox', { name: 'BUY', exact: true }).check();
      await page.getByRole('button', { name: 'Apply filter' }).click();
      await expect.poll(() => sent.some((f) => f === JSON.stringify({ subject: SUBJECT, filter: { types: ['BUY'] } }))).toBe(true);
      await expect.poll(() => page.locator('.live-table tbody tr').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      const kinds = await page.getByTestId('live-kind').allTextContents();
      expect(new Set(kinds)).toEqual(new Set(['BUY']));
      expect(await page.getByTestId('live-code').textContent()).toContain("client.subscribe('basic.pumpfun', { filter: { types: ['BUY'] } });");
      expect(takeErrors(v)).toEqual([]);
    });

    it('when the stream is paused and resumed, then every BUY of the pause is shown, exactly as a Node client resuming after the same seq receives them', async () => {
      const { page } = await signedInVisitor();
      await page.getByTestId('live-pause').click();
      await page.locator('.live-status[data-state="paused"]').waitFor();
      await expect.poll(() => sent.at(-1)).toBe(JSON.stringify({ unsubscribe: SUBJECT }));
      // Paused, the table holds still: its newest row is the last trade shown, which the resume must start after.
      const before = Math.max(...(await pageSeqs(page)));
      await page.waitForTimeout(4_000);
      await page.getByTestId('live-pause').click();
      await expect.poll(() => sent.at(-1)).toBe(JSON.stringify({ subject: SUBJECT, filter: { types: ['BUY'] }, resume_after: before }));
      // Trades of the pause, then live ones: wait until some newer than the pause's start are shown.
      await expect.poll(async () => (await pageSeqs(page)).filter((s) => s > before).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      const shown = (await pageSeqs(page)).filter((s) => s > before).sort((a, b) => a - b);
      const last = shown.at(-1)!;
      // Starter has one connection: leave the page (which closes its socket), then ask as the Node client.
      await openPath(v, '/dashboard');
      const client = await nodeLogin(creds);
      client.send({ subject: SUBJECT, filter: { types: ['BUY'] }, resume_after: before });
      await client.find((m) => isTrade(m) && (m.seq as number) >= last, 20_000);
      const received = client.seen.filter((m) => isTrade(m) && (m.seq as number) <= last).map((m) => m.seq);
      client.close();
      await client.closed;
      expect(shown).toEqual(received);
      expect(takeErrors(v)).toEqual([]);
    });

    it('when another client of the customer holds the one slot, then the page names it (since when, User-Agent) with a way to upgrade, and connects once it leaves', async () => {
      const { page } = await signedInVisitor();
      const holder = await nodeLogin(creds, { 'User-Agent': HOLDER_AGENT });
      await openLive();
      const problem = page.locator('[data-state="limit"]');
      await problem.waitFor({ timeout: 15_000 });
      expect(await problem.getByRole('heading').textContent()).toBe('All your WebSocket connections are in use');
      const holders = await page.getByTestId('live-holders').textContent();
      expect(holders).toContain(HOLDER_AGENT);
      expect(holders).toMatch(/Connected at \d{2}:\d{2}:\d{2} UTC \(\d+ s ago\) from/);
      expect(await problem.getByRole('link', { name: 'upgrade your plan' }).getAttribute('href')).toBe('/dashboard/plan');
      holder.close();
      await holder.closed;
      await page.locator('.live-status[data-state="live"]').waitFor({ timeout: 20_000 });
      expect(takeErrors(v)).toEqual([]);
    });

    it('when the page shows trades at 390 px and 1280 px, then it fits the width and is screenshotted with them', async () => {
      const { page } = await signedInVisitor();
      for (const width of WIDTHS) {
        await openLive(width);
        await expect.poll(() => page.locator('.live-table tbody tr').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
        await page.locator('.live-table tbody tr .live-seq').first().click(); // the raw JSON of a trade, in the picture too
        await page.getByTestId('live-raw-json').waitFor();
        const overflow = await overflowX(page);
        expect(overflow, `${LIVE} at ${width}px overflows by ${overflow}px`).toBeLessThanOrEqual(0);
        await waitForLayoutSettled(page);
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.screenshot({ path: shotFile(LIVE, width), fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, SHOT_MAX_HEIGHT_PX) } });
      }
      await openPath(v, '/dashboard'); // closes the page's connection
      expect(takeErrors(v)).toEqual([]);
    });
  });
}
