import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TokenRow, User } from '../src/api';
import { TokenPanel, TOKENS_REFRESH_MS } from '../src/components/marketing/TokenPanel';
import Home, { HOME_TITLE } from '../src/pages/Home';
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
    mint: MINT, symbol: 'ED5n…PJBY', name: MINT, price: 0.0000050964, marketCap: 5096.4, volume: 235.64, change: null,
    timestamp: 1795259827163, priceSol: 3.3976e-8, marketCapSol: 33.976, volumeSol: 1.570949359, usdSource: 'config',
    replayed: false, ...over,
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

function renderPanel() {
  return render(<TokenPanel />);
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
  it('shows loading, then a table of the rows from GET /api/birdeye/tokens', async () => {
    stubFetch(() =>
      ok([
        token({ mint: 'A'.repeat(44), name: 'A Remarkably Long Token Name Indeed', symbol: 'LONG', price: 0.0001234, marketCap: 1_234_567, volume: 120_000, change: 1.234 }),
        token({ mint: 'B'.repeat(44), name: 'Dip', symbol: 'DIP', price: 0.5, marketCap: 45_600, volume: 4_000_000, change: -4.5 }),
      ]),
    );
    renderPanel();
    expect(screen.getByRole('status').textContent).toContain('Loading token data');
    const table = await screen.findByRole('table');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/birdeye/tokens');
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Token', 'Price', 'Market cap', '24 h volume', '24 h change',
    ]);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => Array.from(r.children).map((c) => c.textContent))).toEqual([
      ['A Remarkably Long Token N…', '$0.000123', '$1.23M', '$0.12M', '+1.23%'],
      ['Dip', '$0.500000', '$45.6K', '$4.00M', '-4.50%'],
    ]);
    expect(rows[0]!.children[4]!.className).toBe('positive');
    expect(rows[1]!.children[4]!.className).toBe('negative');
    expect(table.querySelector('caption')?.textContent).toContain('Most traded tokens');
    expect(screen.queryByTestId('replay-note')).toBeNull();
    expect(screen.queryByTestId('sol-note')).toBeNull();
  });

  it('shows the API message and a Retry button on error; Retry loads again', async () => {
    stubFetch(failure, () => ok([token({ name: 'Back', change: 0 })]));
    renderPanel();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Failed to fetch token data');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    const table = await screen.findByRole('table');
    expect(within(table).getByRole('rowheader').textContent).toBe('Back');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('shows the network error message when the API cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => { throw new TypeError('Failed to fetch'); }));
    renderPanel();
    expect((await screen.findByRole('alert')).textContent).toContain('Could not reach Tradewind');
  });

  it('says so honestly when there were no trades', async () => {
    stubFetch(() => ok([]));
    renderPanel();
    expect(await screen.findByText('No trades in the last 24 hours yet')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('labels replayed rows and SOL-only figures', async () => {
    stubFetch(() => ok([token({ price: null, marketCap: null, volume: null, usdSource: null, replayed: true })]));
    renderPanel();
    const table = await screen.findByRole('table');
    const cells = Array.from(within(table).getAllByRole('row')[1]!.children).map((c) => c.textContent);
    expect(cells).toEqual(['ED5n…PJBYReplay', '0.0000000340 SOL', '33.98 SOL', '1.57 SOL', 'N/A']);
    expect(within(table).getByText('Replay').className).toContain('badge');
    expect(screen.getByTestId('replay-note').textContent).toContain('bundled replay of recorded mainnet trades');
    expect(screen.getByTestId('sol-note').textContent).toContain('No SOL/USD rate');
  });

  it('refreshes every 15 s and stops when unmounted', async () => {
    vi.useFakeTimers();
    stubFetch(() => ok([token({ name: 'First' })]), () => ok([token({ name: 'Second' })]));
    const { unmount } = renderPanel();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByRole('rowheader').textContent).toBe('First');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(TOKENS_REFRESH_MS - 1);
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(screen.getByRole('rowheader').textContent).toBe('Second');
    unmount();
    await vi.advanceTimersByTimeAsync(TOKENS_REFRESH_MS * 3);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps the last rows when a refresh fails, and says so', async () => {
    vi.useFakeTimers();
    stubFetch(() => ok([token({ name: 'Kept' })]), failure);
    renderPanel();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(TOKENS_REFRESH_MS);
    });
    expect(screen.getByRole('rowheader').textContent).toBe('Kept');
    expect(screen.getByRole('alert').textContent).toContain('Could not refresh: Failed to fetch token data');
  });
});

describe('Home page', () => {
  beforeEach(() => stubFetch(() => ok([])));

  it('signed out: Start free, See pricing and the bottom call to action lead to sign-in', async () => {
    renderHome();
    expect(screen.getByTestId('home-primary').textContent).toBe('Start free');
    expect(screen.getByTestId('home-primary').getAttribute('href')).toBe('/login');
    expect(screen.getByTestId('home-secondary').textContent).toBe('See pricing');
    expect(screen.getByTestId('home-secondary').getAttribute('href')).toBe('/pricing');
    expect(screen.getByTestId('home-bottom').getAttribute('href')).toBe('/login');
    await screen.findByText('No trades in the last 24 hours yet');
  });

  it('signed in: the dashboard, the docs and the dashboard', async () => {
    renderHome(USER);
    expect(screen.getByTestId('home-primary').textContent).toBe('Open dashboard');
    expect(screen.getByTestId('home-primary').getAttribute('href')).toBe('/dashboard');
    expect(screen.getByTestId('home-secondary').getAttribute('href')).toBe('/dashboard/docs');
    expect(screen.getByTestId('home-bottom').getAttribute('href')).toBe('/dashboard');
    await screen.findByText('No trades in the last 24 hours yet');
  });

  it('has one h1, the full title, the four subjects and the dated measurement', async () => {
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
