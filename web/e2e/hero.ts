/**
 * The home page hero's live trade tape in the real browser against the local stack (issue 34, part 3;
 * docs/web.md "Hero trade tape", docs/token-price.md "Trade tape"): trades replayed by the local ingest
 * arrive over `GET /api/trades/tape` (Server-Sent Events through the ingress, same origin), the tape keeps
 * updating, says that the data is replayed, closes its stream while the tab is hidden and opens it again
 * when shown, and fits 390 and 1280 px. Registered by web/e2e/app.test.ts, which owns the stack and the browser.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInsideViewport, newVisitor, openPath, overflowX, takeErrors, type Visitor } from './harness';

/** Where the tape reads from (written here, not imported from the app). */
const TAPE_PATH = '/api/trades/tape';

/** The `data-seq` (TRADES stream sequence) of every row on show, top first. */
async function rowSeqs(page: Page): Promise<number[]> {
  return page.locator('[data-testid="hero-tape-row"]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
}

/** Makes the page believe its tab is hidden or visible, as the browser does when the user switches tabs. */
async function setVisibility(page: Page, state: 'hidden' | 'visible'): Promise<void> {
  await page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
}

const isTape = (r: Request) => new URL(r.url()).pathname === TAPE_PATH;

/** Registers the hero tape's tests; `browser` is read when they run (app.test.ts launches it in its beforeAll). */
export function describeHeroTape(browser: () => Browser): void {
  describe.sequential('home / hero: the live trade tape (issue 34)', () => {
    let v: Visitor;

    beforeAll(async () => {
      v = await newVisitor(browser());
    });

    afterAll(async () => {
      await v?.context.close();
    });

    it('when the home page is open, then the tape shows different trades within 10 s, keeps updating, and says they are replayed', async () => {
      const { page } = v;
      await page.setViewportSize({ width: 1280, height: 900 });
      const tapeRequest = page.waitForRequest(isTape);
      await openPath(v, '/');
      await tapeRequest;
      const tape = page.getByTestId('hero-tape');
      await expect.poll(() => rowSeqs(page), { message: 'two different trades on the tape', timeout: 10_000 }).toSatisfy((s: number[]) => new Set(s).size >= 2);
      await expect.poll(async () => (await tape.getByTestId('hero-tape-state').textContent())?.trim()).toBe('Live');
      const first = (await rowSeqs(page))[0]!;
      await expect.poll(async () => (await rowSeqs(page))[0]!, { message: 'a newer trade on top', timeout: 10_000 }).toBeGreaterThan(first);
      const seqs = await rowSeqs(page);
      expect(seqs, 'newest on top').toEqual([...seqs].sort((a, b) => b - a));
      // Each row: the kind, a token (symbol or shortened mint) and the SOL amount.
      const row = await page.locator('[data-testid="hero-tape-row"]').first().textContent();
      expect(row).toMatch(/^(BUY|SELL|SWAP|CREATE_POOL|DEPOSIT|WITHDRAW|MIGRATE)\S.*\d SOL$/);
      // The local stack replays a recording: the tape says so, once.
      const note = page.getByTestId('hero-tape-replay-note');
      expect(await note.textContent()).toMatch(/^Replayed mainnet data\. .* not current market data\.$/);
      expect(takeErrors(v)).toEqual([]);
    });

    it('when the tab is hidden, then the tape request ends and no trade arrives for 5 s; when it is shown again, then a new request brings trades', async () => {
      const { page } = v;
      await expect.poll(() => rowSeqs(page), { timeout: 10_000 }).toSatisfy((s: number[]) => s.length > 0);
      const started: Request[] = [];
      page.on('request', (r) => void (isTape(r) && started.push(r)));
      const ended = Promise.race([page.waitForEvent('requestfailed', isTape), page.waitForEvent('requestfinished', isTape)]);
      await setVisibility(page, 'hidden');
      await ended;
      expect((await page.getByTestId('hero-tape-state').textContent())?.trim()).toBe('Paused');
      const before = await rowSeqs(page);
      await page.waitForTimeout(5_000);
      expect(await rowSeqs(page), 'no trade while hidden').toEqual(before);
      expect(started, 'no new tape request while hidden').toEqual([]);

      const reopened = page.waitForRequest(isTape);
      await setVisibility(page, 'visible');
      await reopened;
      await expect.poll(async () => (await rowSeqs(page))[0]!, { message: 'trades again', timeout: 10_000 }).toBeGreaterThan(before[0]!);
      expect((await page.getByTestId('hero-tape-state').textContent())?.trim()).toBe('Live');
      expect(takeErrors(v)).toEqual([]);
    });

    it('when the page is 1280 px wide, then the tape fills the right half of the hero; at 390 px it stacks below the text; neither overflows', async () => {
      const { page } = v;
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
        await openPath(v, '/');
        const tape = page.getByTestId('hero-tape');
        await expect.poll(() => rowSeqs(page), { timeout: 10_000 }).toSatisfy((s: number[]) => s.length > 0);
        expect(await overflowX(page), `overflow at ${width}px`).toBeLessThanOrEqual(0);
        await expectInsideViewport(page, tape, `the tape at ${width}px`, 200);
        const box = (await tape.boundingBox())!;
        const h1 = (await page.locator('h1').boundingBox())!;
        const actions = (await page.locator('.home-actions').boundingBox())!;
        if (width === 1280) {
          expect(box.x, 'the tape is right of the hero text').toBeGreaterThanOrEqual(h1.x + h1.width);
          expect(box.x, 'in the right half').toBeGreaterThanOrEqual(width / 2 - 40);
        } else {
          expect(box.y, 'the tape is below the hero text').toBeGreaterThanOrEqual(actions.y + actions.height);
        }
      }
      expect(takeErrors(v)).toEqual([]);
    });
  });
}
