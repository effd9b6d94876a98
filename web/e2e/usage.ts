/**
 * End to end: the dashboard's Usage page (issue 34) on the real local stack, registered by
 * web/e2e/app.test.ts (`usageTests`), which holds the one stack and browser of the run.
 *
 * A new Starter user opens /dashboard/usage at 1280 and 390 px: the figures on the page are the
 * ones `GET /api/usage` answers the test with the page's own session (its bearer token, read from
 * the page's request), each chart has the report's 30 days (read from the chart's hover legend at
 * its left and right edges), and after a WebSocket client with the user's credentials
 * (`GET /api/nats`) has received trades, the page shows the connection in use and then, within one
 * reporting interval (`report_interval_ms`), WebSocket figures above zero. The expected texts are
 * derived here from the API's numbers (own parsing of "1,234" and "1.5 MB", own date labels), not
 * with the app's formatters.
 */
import type { UsageReport } from '@tradewind/contracts/usage';
import type { Browser, Locator, Page } from 'playwright-core';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { newVisitor, openPath, ORIGIN, overflowX, shotFile, signIn, takeErrors, waitForLayoutSettled, waitForSession, WIDTHS, type Visitor } from './harness';

const PATH = '/dashboard/usage';
/** Days of history the issue asks for (today and the 29 UTC days before it). */
const DAYS = 30;

/** The text of `locator`, whitespace collapsed. */
async function textOf(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** "1,234,567 messages" or "465,000" → 1234567. */
function parseCount(text: string): number {
  const m = /^([\d,]+)/.exec(text.trim());
  if (!m) throw new Error(`not a count: ${text}`);
  return Number(m[1]!.replace(/,/g, ''));
}

/** Decimal byte units as a customer reads them (1 KB = 1,000 bytes). */
const UNIT: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, PB: 1e15 };

/** Whether `text` ("2.3 MB", "999 B") names `bytes`, within the rounding of its one decimal. */
function showsBytes(text: string, bytes: number): boolean {
  const m = /^([\d,]+(?:\.\d+)?) (B|KB|MB|GB|TB|PB)$/.exec(text.trim());
  if (!m) return false;
  const unit = UNIT[m[2]!]!;
  const shown = Number(m[1]!.replace(/,/g, ''));
  const decimals = m[1]!.split('.')[1]?.length ?? 0;
  return Math.abs(shown * unit - bytes) <= (0.5 * unit) / 10 ** decimals + 1e-9;
}

/** "2026-11-30" → "30 Nov 2026" (UTC), written here, not taken from the app. */
function longDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}

/** `GET <path>` through the ingress with a bearer token; the parsed JSON of a 200. */
async function getJson<T>(path: string, token: string): Promise<T> {
  const res = await fetch(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  expect(res.status, `${path}: ${body}`).toBe(200);
  return JSON.parse(body) as T;
}

/** The figures the page shows, as text. */
interface Shown {
  totals: Record<'websocket' | 'nats', { messages: string; bytes: string }>;
  meters: { ws: string; nats: string; requests: string };
  rows: string[][];
}

async function shown(page: Page): Promise<Shown> {
  const text = (id: string) => textOf(page.getByTestId(id));
  const totals = {
    websocket: { messages: await text('usage-total-websocket-messages'), bytes: await text('usage-total-websocket-bytes') },
    nats: { messages: await text('usage-total-nats-messages'), bytes: await text('usage-total-nats-bytes') },
  };
  const meters = { ws: await text('usage-ws-connections'), nats: await text('usage-nats-connections'), requests: await text('usage-requests') };
  // textContent: the table is in a <details> that may be closed.
  const rows = await page
    .getByTestId('usage-table')
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').trim())));
  return { totals, meters, rows };
}

/** The differences between what the page shows and `report` (empty: the same figures). */
function differences(s: Shown, report: UsageReport): string[] {
  const out: string[] = [];
  for (const t of ['websocket', 'nats'] as const) {
    if (parseCount(s.totals[t].messages) !== report.totals[t].messages) out.push(`${t} messages ${s.totals[t].messages} ≠ ${report.totals[t].messages}`);
    if (!showsBytes(s.totals[t].bytes, report.totals[t].bytes)) out.push(`${t} bytes ${s.totals[t].bytes} ≠ ${report.totals[t].bytes}`);
  }
  const meter = (label: string, text: string, m: UsageReport['requests_per_minute']) => {
    const expected = m.in_use === null ? /not measurable right now/ : new RegExp(`^${m.in_use.toLocaleString('en-US')} of ${m.limit.toLocaleString('en-US')} `);
    if (!expected.test(text)) out.push(`${label} meter "${text}" ≠ ${JSON.stringify(m)}`);
  };
  meter('WebSocket connections', s.meters.ws, report.connections.websocket);
  meter('NATS connections', s.meters.nats, report.connections.nats);
  meter('requests', s.meters.requests, report.requests_per_minute);
  // The table lists the days newest first.
  const days = [...report.days].reverse();
  if (s.rows.length !== days.length) out.push(`${s.rows.length} table rows ≠ ${days.length} days`);
  days.forEach((d, i) => {
    const [day, wm, wb, nm, nb] = s.rows[i] ?? [];
    if (day !== longDay(d.day)) out.push(`row ${i}: day ${day} ≠ ${d.day}`);
    if (parseCount(wm ?? '') !== d.websocket.messages || !showsBytes(wb ?? '', d.websocket.bytes))
      out.push(`row ${d.day}: WebSocket ${wm}, ${wb} ≠ ${JSON.stringify(d.websocket)}`);
    if (parseCount(nm ?? '') !== d.nats.messages || !showsBytes(nb ?? '', d.nats.bytes))
      out.push(`row ${d.day}: NATS ${nm}, ${nb} ≠ ${JSON.stringify(d.nats)}`);
  });
  return out;
}

/**
 * Presses Refresh and waits for the page's `GET /api/usage` answer and the figures it brings
 * (the button is enabled again).
 */
async function refresh(page: Page): Promise<void> {
  const button = page.getByRole('button', { name: 'Refresh', exact: true });
  await button.waitFor();
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/usage', { timeout: 15_000 });
  await button.click();
  await answered;
  await expect.poll(() => button.isEnabled(), { message: 'Refresh enabled again after the reload' }).toBe(true);
}

/**
 * Reads the report with the test's token and the page's figures until both agree, allowing for a
 * report that moved on between the two reads (it moves once per reporting interval at most).
 */
async function expectPageShowsApi(page: Page, token: () => string): Promise<UsageReport> {
  let last: string[] = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    const before = await getJson<UsageReport>('/api/usage', token());
    await refresh(page);
    const after = await getJson<UsageReport>('/api/usage', token());
    const s = await shown(page);
    last = differences(s, after);
    if (last.length === 0) return after;
    if (differences(s, before).length === 0) return before;
    await page.waitForTimeout(1_000);
  }
  throw new Error(`the page's figures differ from GET /api/usage: ${last.slice(0, 10).join('; ')}`);
}

/** Points at `fraction` of chart `chartIndex`'s plot width and expects its legend to name `day` (the hovered day). */
async function expectHoveredDay(page: Page, chartIndex: number, fraction: number, day: string): Promise<void> {
  const chart = page.getByTestId('series-chart').nth(chartIndex);
  const over = chart.locator('.u-over');
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + Math.max(1, Math.min(box.width - 1, box.width * fraction)), box.y + box.height / 2);
  const legendDay = chart.locator('.u-legend .u-series').first().locator('.u-value');
  await expect.poll(() => textOf(legendDay), { message: `chart ${chartIndex} at ${fraction * 100}% of its width shows ${day}` }).toBe(day);
}

/** A WebSocket client of ws-fanout signed in with the user's credentials and subscribed to the Starter subjects; resolves at its first trade. */
async function receiveTrades(url: string, jwt: string, seed: string): Promise<{ trades: () => number; close: () => Promise<void> }> {
  const ws = new WebSocket(url);
  let trades = 0;
  let settle: { ok: () => void; fail: (e: Error) => void } | null = null;
  const firstTrade = new Promise<void>((ok, fail) => {
    settle = { ok, fail };
  });
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Record<string, unknown>;
    if (m.type === 'challenge') ws.send(JSON.stringify({ jwt, nkey: seed }));
    else if (m.type === 'authenticated') {
      ws.send(JSON.stringify({ subject: 'basic.pumpfun' }));
      ws.send(JSON.stringify({ subject: 'basic.bonk' }));
    } else if (m.type === 'error') settle?.fail(new Error(`ws-fanout refused: ${JSON.stringify(m)}`));
    else if (m.type === undefined || m.type === 'trade') {
      trades += 1;
      settle?.ok();
    }
  });
  ws.once('error', (err) => settle?.fail(err));
  const timer = setTimeout(() => settle?.fail(new Error('no trade within 60 s')), 60_000);
  try {
    await firstTrade;
  } finally {
    clearTimeout(timer);
  }
  return {
    trades: () => trades,
    close: () =>
      new Promise<void>((done) => {
        ws.once('close', () => done());
        ws.close();
      }),
  };
}

/** Registers the Usage page's end-to-end test; `env()` gives the run's browser once `beforeAll` has started it. */
export function usageTests(env: () => { browser: Browser }): void {
  describe.sequential('usage page (issue 34: /dashboard/usage)', () => {
    it('when a signed-in user opens /dashboard/usage at 1280 and 390 px, then it shows the figures of GET /api/usage over 30 days, and after a WebSocket client receives trades its WebSocket figures grow within one reporting interval', async () => {
      const v: Visitor = await newVisitor(env().browser);
      try {
        await signIn(v, 'Usage Tester');
        await v.page.waitForURL(`${ORIGIN}/dashboard`);
        await waitForSession(v);
        const { page } = v;
        // The page's own bearer token: the test reads the API with the same session.
        let token = '';
        page.on('request', (r) => {
          const auth = r.headers().authorization;
          if (new URL(r.url()).pathname === '/api/usage' && auth?.startsWith('Bearer ')) token = auth.slice('Bearer '.length);
        });

        let report: UsageReport | undefined;
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
          await openPath(v, PATH);
          await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
          await page.getByTestId('usage-total-websocket-messages').waitFor({ timeout: 15_000 });
          expect(token, 'the page sent GET /api/usage with its bearer token').not.toBe('');
          // The table alternative opens, and the page and the API agree.
          await page.getByText('Show as table', { exact: true }).click();
          report = await expectPageShowsApi(page, () => token);
          expect(report.days).toHaveLength(DAYS);
          expect(report.plan).toBe('starter');
          expect(await textOf(page.getByTestId('usage-note'))).toMatch(/lag delivery by up to \d+ (second|minute)/);
          // Each chart spans the report's 30 days: its first and last day under the pointer.
          const charts = page.getByTestId('series-chart');
          expect(await charts.count()).toBe(2);
          for (const i of [0, 1]) {
            await expectHoveredDay(page, i, 0, `${longDay(report.days[0]!.day)} (UTC)`);
            await expectHoveredDay(page, i, 1, `${longDay(report.days[DAYS - 1]!.day)} (UTC)`);
          }
          await waitForLayoutSettled(page);
          const overflow = await overflowX(page);
          expect(overflow, `${PATH} at ${width}px with its figures and the table open overflows by ${overflow}px`).toBeLessThanOrEqual(0);
        }
        expect(report!.totals.websocket.messages, 'a new user has received nothing over WebSocket yet').toBe(0);

        // A WebSocket client with the dashboard's credentials receives trades.
        const creds = await getJson<{ ws_connection: string; user_jwt: string; user_nkey_seed: string }>('/api/nats', token);
        const client = await receiveTrades(creds.ws_connection, creds.user_jwt, creds.user_nkey_seed);
        try {
          await expect
            .poll(
              async () => {
                await refresh(page);
                return textOf(page.getByTestId('usage-ws-connections'));
              },
              { message: 'the open WebSocket connection is counted', timeout: 20_000, interval: 1_000 },
            )
            .toMatch(/^1 of 1 WebSocket connections/);
          await page.waitForTimeout(2_000); // a few more trades
        } finally {
          await client.close();
        }
        expect(client.trades()).toBeGreaterThan(0);

        // Within one reporting interval (and a margin for the refresh itself) the figures show it.
        await expect
          .poll(
            async () => {
              await refresh(page);
              return parseCount(await textOf(page.getByTestId('usage-total-websocket-messages')));
            },
            { message: 'WebSocket messages delivered grow on the page', timeout: report!.report_interval_ms + 30_000, interval: 5_000 },
          )
          .toBeGreaterThan(0);
        const after = await expectPageShowsApi(page, () => token);
        expect(after.totals.websocket.messages).toBeGreaterThan(0);
        expect(after.totals.websocket.bytes).toBeGreaterThan(0);
        expect(after.days[DAYS - 1]!.websocket.messages, "today's row holds them").toBe(after.totals.websocket.messages);
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
          await waitForLayoutSettled(page);
          await page.screenshot({ path: shotFile('/dashboard/usage-after-trades', width), fullPage: true });
        }
        expect(takeErrors(v)).toEqual([]);
      } finally {
        await v.context.close();
      }
    }, 300_000);
  });
}
