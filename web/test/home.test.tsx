import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '../src/api';
import type { TokenRow } from '../src/lib/format';
import {
  GOOD_RESPONSE_MS,
  LIVE_PANEL_TEXT,
  MINT_ADDRESS_LABEL,
  performanceLabel,
  replayNote,
  TokenPanel,
  tokenName,
  tokenSymbol,
  TOKENS_REFRESH_MS,
} from '../src/components/marketing/TokenPanel';
import Home, { HOME_TITLE, homeActions } from '../src/pages/Home';
import { StaticAuthProvider } from '../src/session/session';

const USER: User = {
  id: '7d3b2c1e-0000-4000-8000-000000000001',
  email: 'ada@example.com',
  name: 'Ada',
  avatar_url: null,
  plan: 'plus',
  metadata: { tier: 'plus', billing_period: 'monthly', subscription_status: 'active', subscription_type: 'paid', trial_end_date: null },
  created_at: '2026-11-21T10:00:00.000Z',
};

const MINT = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';

function token(over: Partial<TokenRow> = {}): TokenRow {
  return {
    mint: MINT,
    symbol: null,
    name: null,
    price: 0.0000050964,
    marketCap: 5096.4,
    volume: 235.64,
    change: null,
    timestamp: 1795259827163,
    priceSol: 3.3976e-8,
    marketCapSol: 33.976,
    volumeSol: 1.570949359,
    usdSource: 'config',
    solUsd: 150,
    solUsdObservedAt: null,
    replayed: false,
    recordedAt: null,
    ...over,
  };
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const ok = (rows: TokenRow[]) => json({ success: true, data: rows });
const failure = () => json({ status: 500, message: 'Failed to fetch token data' }, 500);

let fetchMock: ReturnType<typeof vi.fn>;

function stubFetch(...answers: (() => Response)[]) {
  let i = 0;
  fetchMock = vi.fn(async () => {
    const answer = answers[Math.min(i, answers.length - 1)]!;
    i += 1;
    return answer();
  });
  vi.stubGlobal('fetch', fetchMock);
}

/** A fake clock advancing `stepMs` per reading, so every request measures exactly `stepMs`. */
function steppingClock(stepMs: number): () => number {
  let t = 1000;
  return () => {
    const value = t;
    t += stepMs;
    return value;
  };
}

function renderPanel(now?: () => number) {
  return render(<TokenPanel {...(now ? { now } : {})} />);
}

/** The texts of each body row's cells: [symbol, name, price, market cap, volume, change]. */
function rowTexts(table: HTMLElement): string[][] {
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) => [
      within(r).getByTestId('token-symbol').textContent ?? '',
      within(r).getByTestId('token-name').textContent ?? '',
      ...Array.from(r.querySelectorAll('td')).map((c) => c.textContent ?? ''),
    ]);
}

function renderHome(user: User | null = null) {
  return render(
    <MemoryRouter>
      <StaticAuthProvider user={user}>
        <Home />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('TokenPanel', () => {
  it('when the request is pending, then it shows the spec text "Connecting..."; when rows arrive, then symbol, name cut to 25, price with 6 decimals, cap in M/K, volume in M and signed change', async () => {
    stubFetch(() =>
      ok([
        token({
          mint: 'A'.repeat(44),
          name: 'A Remarkably Long Token Name Indeed',
          symbol: 'LONG',
          price: 0.0001234,
          marketCap: 1_234_567,
          volume: 120_000,
          change: 1.234,
        }),
        token({ mint: 'B'.repeat(44), name: 'Dip', symbol: 'DIP', price: 0.5, marketCap: 45_600, volume: 4_000_000, change: -4.5 }),
      ]),
    );
    renderPanel(steppingClock(42));
    expect(screen.getByRole('status').textContent?.trim()).toBe('Connecting...');
    const table = await screen.findByRole('table');
    expect(screen.queryByText('Connecting...')).toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/birdeye/tokens');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Token', 'Price', 'Market cap', '24 h volume', '24 h change']);
    expect(rowTexts(table)).toEqual([
      ['LONG', 'A Remarkably Long Token N…', '$0.000123', '$1.23M', '$0.12M', '+1.23%'],
      ['DIP', 'Dip', '$0.500000', '$45.6K', '$4.00M', '-4.50%'],
    ]);
    // The full name stays available as the title (the e2e test reads `th span[title]`).
    expect(within(table).getAllByTestId('token-name')[0]!.getAttribute('title')).toBe('A Remarkably Long Token Name Indeed');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]!.children[4]!.className).toBe('positive');
    expect(rows[1]!.children[4]!.className).toBe('negative');
    expect(table.querySelector('caption')?.textContent).toContain('Most traded tokens');
    expect(screen.queryByTestId('replay-note')).toBeNull();
    expect(screen.queryByTestId('sol-note')).toBeNull();
  });

  it('when loaded, then it says "Performance: Good" with the measured response time and no made-up latency figure', async () => {
    stubFetch(() => ok([token({ name: 'Fast' })]));
    renderPanel(steppingClock(42));
    await screen.findByRole('table');
    expect(screen.getByTestId('live-performance').textContent).toBe('Performance: Good');
    expect(screen.getByTestId('live-response-time').textContent).toContain('API response 42 ms');
    expect(document.body.textContent).not.toContain('45.2');
  });

  it('when the last request took longer than GOOD_RESPONSE_MS, then it says "Performance: Slow" and the measured time', async () => {
    stubFetch(() => ok([token({ name: 'Slow' })]));
    renderPanel(steppingClock(GOOD_RESPONSE_MS + 500));
    await screen.findByRole('table');
    expect(screen.getByTestId('live-performance').textContent).toBe('Performance: Slow');
    expect(screen.getByTestId('live-response-time').textContent).toContain(`API response ${GOOD_RESPONSE_MS + 500} ms`);
  });

  it('when the performance label is computed, then Good is up to GOOD_RESPONSE_MS inclusive, Slow above, Degraded after a failed refresh', () => {
    expect(GOOD_RESPONSE_MS).toBe(1000);
    expect(performanceLabel({ refreshError: null, responseMs: 1000 })).toBe('Performance: Good');
    expect(performanceLabel({ refreshError: null, responseMs: 1000.5 })).toBe('Performance: Slow');
    expect(performanceLabel({ refreshError: 'x', responseMs: 10 })).toBe('Performance: Degraded');
    expect(LIVE_PANEL_TEXT).toMatchObject({
      connecting: 'Connecting...',
      errorTitle: 'Connection Error',
      errorMessage: 'Failed to fetch live data',
      errorHint: 'Please refresh the page to retry',
      performanceGood: 'Performance: Good',
    });
  });

  it('when a row has no symbol or name of its own, then it shows the shortened mint as an address, never as a name', async () => {
    expect(tokenSymbol({ symbol: null, mint: MINT })).toBeNull();
    expect(tokenSymbol({ symbol: MINT, mint: MINT })).toBeNull();
    expect(tokenSymbol({ symbol: 'ED5n…PJBY', mint: MINT })).toBeNull();
    expect(tokenSymbol({ symbol: ' BONK ', mint: MINT })).toBe('BONK');
    expect(tokenName({ name: MINT, mint: MINT })).toBeNull();
    expect(tokenName({ name: null, mint: MINT })).toBeNull();
    expect(tokenName({ name: 'x'.repeat(25), mint: MINT })).toBe('x'.repeat(25));
    expect(tokenName({ name: 'x'.repeat(26), mint: MINT })).toBe(`${'x'.repeat(25)}…`);

    stubFetch(() => ok([token(), token({ mint: 'B'.repeat(44), symbol: 'PEX', name: 'PenguX' })]));
    renderPanel();
    const table = await screen.findByRole('table');
    const [unnamed, named] = within(table).getAllByTestId('token-symbol');
    expect(unnamed!.tagName).toBe('CODE');
    expect(unnamed!.textContent).toBe('ED5n…PJBY');
    expect(unnamed!.getAttribute('title')).toBe(`Mint address ${MINT}`);
    expect(named!.tagName).toBe('STRONG');
    const names = within(table).getAllByTestId('token-name');
    expect(names.map((n) => n.textContent)).toEqual([MINT_ADDRESS_LABEL, 'PenguX']);
    expect(names[0]!.getAttribute('title')).toBe(MINT); // the e2e test matches titles against name ?? mint
  });

  it('when the first load fails, then it shows "Connection Error", "Failed to fetch live data", "Please refresh the page to retry" and the cause; Retry loads again', async () => {
    stubFetch(failure, () => ok([token({ name: 'Back', change: 0 })]));
    renderPanel();
    const alert = await screen.findByRole('alert');
    const texts = Array.from(alert.querySelectorAll('p')).map((p) => p.textContent);
    expect(texts.slice(0, 3)).toEqual(['Connection Error', 'Failed to fetch live data', 'Please refresh the page to retry']);
    expect(within(alert).getByTestId('live-error-cause').textContent).toBe('Failed to fetch token data');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    const table = await screen.findByRole('table');
    expect(within(table).getByTestId('token-name').textContent).toBe('Back');
    expect(within(table).getAllByRole('cell')[3]!.textContent).toBe('0.00%');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('when the API cannot be reached, then it shows "Failed to fetch live data" and the network error as the cause', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    renderPanel();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Failed to fetch live data');
    expect(within(alert).getByTestId('live-error-cause').textContent).toContain('Could not reach Tradewind');
  });

  it('when there were no trades, then it says so instead of showing an empty table', async () => {
    stubFetch(() => ok([]));
    renderPanel();
    expect(await screen.findByText('No trades in the last 24 hours yet')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it("when every row is replayed and priced in SOL only, then one note says so for all, with the recording's dates, and no row carries a badge", async () => {
    const sol = { price: null, marketCap: null, volume: null, usdSource: null, solUsd: null, replayed: true } as const;
    stubFetch(() =>
      ok([
        token({ ...sol, recordedAt: 1725989127000 }),
        token({
          ...sol,
          mint: 'B'.repeat(44),
          symbol: 'PEX',
          name: 'PenguX',
          priceSol: 1.1323e-8,
          marketCapSol: 11.323,
          volumeSol: 1,
          recordedAt: 1749468265000,
        }),
        token({ ...sol, mint: 'C'.repeat(44), symbol: 'DOD', name: 'dod', priceSol: 0.000009852, marketCapSol: 9852, volumeSol: 0.0019, recordedAt: null }),
      ]),
    );
    renderPanel();
    const table = await screen.findByRole('table');
    expect(rowTexts(table)).toEqual([
      ['ED5n…PJBY', MINT_ADDRESS_LABEL, '<0.000001 SOL', '33.98 SOL', '1.57 SOL', 'N/A'],
      ['PEX', 'PenguX', '<0.000001 SOL', '11.32 SOL', '1.00 SOL', 'N/A'],
      ['DOD', 'dod', '0.000010 SOL', '9.9K SOL', '0.00 SOL', 'N/A'],
    ]);
    expect(within(table).queryByText('Replayed')).toBeNull();
    expect(table.querySelectorAll('.badge')).toHaveLength(0);
    const notes = screen.getAllByTestId('replay-note');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.textContent).toBe(
      'Replayed mainnet data. These figures come from real trades recorded 2024-09-10 to 2025-06-09, replayed by this deployment: not current market data. Their 24 h volume and change are measured in the recording’s own time.',
    );
    expect(screen.getByTestId('sol-note').textContent).toContain('Prices in SOL');
    expect(screen.queryByTestId('usd-note')).toBeNull();
    expect(document.body.textContent).not.toContain('$');
  });

  it('when live and replayed rows mix, then only the replayed rows are marked and the note says which', async () => {
    stubFetch(() =>
      ok([
        token({ symbol: 'LIVE', name: 'Live One' }),
        token({ mint: 'B'.repeat(44), symbol: 'OLD', name: 'Old One', replayed: true, recordedAt: 1725989127000 }),
      ]),
    );
    renderPanel();
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(within(rows[0]!).queryByText('Replayed')).toBeNull();
    expect(within(rows[1]!).getByText('Replayed').className).toContain('badge');
    expect(screen.getByTestId('replay-note').textContent).toContain('Rows marked “Replayed” come from real trades recorded 2024-09-10');
    expect(replayNote([token()])).toBeNull();
  });

  it("when the USD figures come from the stream's SOL/USD, then one note names the rate and its age", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 21, 12, 0, 0));
    stubFetch(() =>
      ok([token({ symbol: 'PEX', name: 'PenguX', price: 0.0000016, usdSource: 'stream', solUsd: 142.5, solUsdObservedAt: Date.UTC(2026, 10, 21, 11, 58, 0) })]),
    );
    renderPanel();
    const table = await screen.findByRole('table');
    expect(rowTexts(table)[0]!.slice(0, 3)).toEqual(['PEX', 'PenguX', '$0.000002']);
    expect(screen.getByTestId('usd-note').textContent).toBe('USD at SOL/USD $142.50 from a SOL/USDC or SOL/USDT swap on our stream, 2 min ago.');
    expect(screen.queryByTestId('sol-note')).toBeNull();
    expect(screen.queryByTestId('replay-note')).toBeNull();
  });

  it('when 15 s pass, then it reloads; when unmounted, then it stops', async () => {
    vi.useFakeTimers();
    stubFetch(
      () => ok([token({ name: 'First' })]),
      () => ok([token({ name: 'Second' })]),
    );
    const { unmount } = renderPanel();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByTestId('token-name').textContent).toBe('First');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(TOKENS_REFRESH_MS - 1);
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId('token-name').textContent).toBe('Second');
    unmount();
    await vi.advanceTimersByTimeAsync(TOKENS_REFRESH_MS * 3);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when a refresh fails, then it keeps the last rows, says so and reads "Performance: Degraded"', async () => {
    vi.useFakeTimers();
    stubFetch(() => ok([token({ name: 'Kept' })]), failure);
    renderPanel();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(TOKENS_REFRESH_MS);
    });
    expect(screen.getByTestId('token-name').textContent).toBe('Kept');
    expect(screen.getByRole('alert').textContent).toContain('Could not refresh: Failed to fetch token data');
    expect(screen.getByTestId('live-performance').textContent).toBe('Performance: Degraded');
  });
});

describe('Home page', () => {
  beforeEach(() => stubFetch(() => ok([])));

  it('when signed out, then the primary button opens /pricing, "See How It Works" opens /how-it-works and "Start Your Free Trial" opens /pricing', async () => {
    renderHome();
    expect(screen.getByTestId('home-primary').textContent).toBe('Get Started');
    expect(screen.getByTestId('home-primary').getAttribute('href')).toBe('/pricing');
    expect(screen.getByTestId('home-secondary').textContent).toBe('See How It Works');
    expect(screen.getByTestId('home-secondary').getAttribute('href')).toBe('/how-it-works');
    expect(screen.getByTestId('home-bottom').textContent).toBe('Start Your Free Trial');
    expect(screen.getByTestId('home-bottom').getAttribute('href')).toBe('/pricing');
    await screen.findByText('No trades in the last 24 hours yet');
  });

  it('when signed in, then the primary button opens /dashboard, the secondary still /how-it-works, and "Start Your Free Trial" is hidden', async () => {
    renderHome(USER);
    expect(screen.getByTestId('home-primary').getAttribute('href')).toBe('/dashboard');
    expect(screen.getByTestId('home-secondary').textContent).toBe('See How It Works');
    expect(screen.getByTestId('home-secondary').getAttribute('href')).toBe('/how-it-works');
    expect(screen.queryByTestId('home-bottom')).toBeNull();
    expect(screen.queryByText('Start Your Free Trial')).toBeNull();
    expect(homeActions(true).bottom).toBeNull();
    await screen.findByText('No trades in the last 24 hours yet');
  });

  it('when the home page renders, then the carousel offers "View All Articles" to /blog and the panel shows "Performance: Good"', async () => {
    renderHome();
    expect(screen.getByRole('link', { name: 'View All Articles' }).getAttribute('href')).toBe('/blog');
    expect((await screen.findByTestId('live-performance')).textContent).toBe('Performance: Good');
  });

  it('when the home page renders, then it has one h1, the full title, the four subjects and the dated measurement', async () => {
    renderHome();
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    await waitFor(() => expect(document.title).toBe(HOME_TITLE));
    expect(HOME_TITLE).toBe('Tradewind — real-time Solana trade data over WebSocket and NATS');
    for (const s of ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium']) {
      expect(screen.getAllByText(s).length).toBeGreaterThan(0);
    }
    expect(screen.getByRole('heading', { name: 'WebSocket, port 9223' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Native NATS JetStream, port 4223' })).toBeTruthy();
    expect(screen.getByText(/2026-11-21/).textContent).toContain('4,975 trade messages per second');
    expect(screen.getByRole('region', { name: 'Articles from the blog' })).toBeTruthy();
    await screen.findByText('No trades in the last 24 hours yet');
  });
});
