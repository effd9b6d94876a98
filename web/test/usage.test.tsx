/**
 * The Usage page (issue 34): the formatting of its figures, the shape check of `GET /api/usage`,
 * each state of the page (loading, error with the server's message and Retry, nothing delivered
 * yet, figures), the two charts and the table, and the refresh rules (every 30 s while visible,
 * paused while the tab is hidden, at once when it shows again, the Refresh button).
 * The reports here are test fixtures, never shown to anyone.
 */
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// uPlot reads the device pixel ratio through matchMedia when its module loads, and draws on a 2D
// canvas: jsdom has neither, so both are provided before the page (and uPlot) are imported.
vi.hoisted(() => {
  if (typeof window.matchMedia !== 'function') {
    window.matchMedia = ((query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    })) as unknown as typeof window.matchMedia;
  }
  const noop = () => undefined;
  // A 2D context that accepts every call: enough for uPlot to lay out and "draw".
  const fakeContext = new Proxy(
    {},
    {
      get: (_t, prop) => {
        if (prop === 'measureText') return (text: string) => ({ width: String(text).length * 6 });
        if (prop === 'canvas') return undefined;
        return noop;
      },
      set: () => true,
    },
  );
  HTMLCanvasElement.prototype.getContext = (() => fakeContext) as unknown as HTMLCanvasElement['getContext'];
  if (typeof (globalThis as { Path2D?: unknown }).Path2D !== 'function') {
    (globalThis as { Path2D?: unknown }).Path2D = class {
      moveTo() {}
      lineTo() {}
      rect() {}
      arc() {}
      closePath() {}
      bezierCurveTo() {}
      addPath() {}
    };
  }
});

import { StaticAuthProvider } from '../src/session/session';
import { ThemeProvider } from '../src/theme';
import Usage from '../src/pages/dashboard/Usage';
import { SeriesChart } from '../src/components/charts/SeriesChart';
import {
  MALFORMED_USAGE_MESSAGE,
  USAGE_REFRESH_MS,
  dayLabel,
  dayLabelLong,
  formatBytes,
  formatBytesShort,
  formatCount,
  formatCountShort,
  formatDuration,
  inUseText,
  isUsageReport,
  lagNote,
  type UsageReport,
} from '../src/lib/usage';
import { USAGE_DAYS } from '@tradewind/contracts/usage';
import { json, testUser } from './dashboard-fixtures';

/** 30 UTC days ending 2026-11-30; `perDay(i)` gives day i's WebSocket and NATS figures (zeros by default). */
function report(
  perDay: (i: number) => { ws?: [number, number]; nats?: [number, number] } = () => ({}),
  over: Partial<Pick<UsageReport, 'connections' | 'requests_per_minute' | 'report_interval_ms' | 'plan'>> = {},
): UsageReport {
  const end = Date.UTC(2026, 10, 30);
  const days = Array.from({ length: USAGE_DAYS }, (_, i) => {
    const f = perDay(i);
    const [wm, wb] = f.ws ?? [0, 0];
    const [nm, nb] = f.nats ?? [0, 0];
    return {
      day: new Date(end - (USAGE_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
      websocket: { messages: wm, bytes: wb },
      nats: { messages: nm, bytes: nb },
    };
  });
  const sum = (t: 'websocket' | 'nats') => ({
    messages: days.reduce((a, d) => a + d[t].messages, 0),
    bytes: days.reduce((a, d) => a + d[t].bytes, 0),
  });
  return {
    plan: 'starter',
    generated_at: '2026-11-30T12:34:56.000Z',
    report_interval_ms: 60_000,
    days,
    totals: { websocket: sum('websocket'), nats: sum('nats') },
    connections: { websocket: { in_use: 1, limit: 1 }, nats: { in_use: null, limit: 1 } },
    requests_per_minute: { in_use: 37, limit: 100 },
    ...over,
  };
}

/** A report with traffic: day i has 1000·(i+1) WebSocket messages of 250 bytes each and, from day 20, NATS too. */
const busy = report((i) => ({ ws: [1000 * (i + 1), 250_000 * (i + 1)], ...(i >= 20 ? { nats: [10 * i, 3_000_000 * i] } : {}) }));

function renderUsage() {
  return render(
    <MemoryRouter initialEntries={['/dashboard/usage']}>
      <StaticAuthProvider user={testUser()}>
        <ThemeProvider>
          <Usage />
        </ThemeProvider>
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

/** Calls to GET /api/usage of a stubbed fetch. */
function usageCalls(fetchMock: ReturnType<typeof vi.fn>): number {
  return fetchMock.mock.calls.filter((c) => String(c[0]) === '/api/usage').length;
}

function setVisibility(state: 'visible' | 'hidden') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
});

describe('usage formatting', () => {
  it('when bytes are shown, then they use decimal KB/MB/GB with one decimal, the unit chosen by the rounded value', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.0 KB');
    expect(formatBytes(1500)).toBe('1.5 KB');
    expect(formatBytes(999_949)).toBe('999.9 KB');
    expect(formatBytes(999_960)).toBe('1.0 MB');
    expect(formatBytes(2_345_678)).toBe('2.3 MB');
    expect(formatBytes(5e9)).toBe('5.0 GB');
    expect(formatBytes(1.25e12)).toBe('1.3 TB');
    expect(formatBytes(2.5e18)).toBe('2,500.0 PB');
    expect(formatBytesShort(80e6)).toBe('80 MB');
    expect(formatBytesShort(2.5e9)).toBe('2.5 GB');
    expect(formatBytesShort(0)).toBe('0 B');
  });

  it('when counts are shown, then they have thousands separators, and the axis form is short', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCountShort(950)).toBe('950');
    expect(formatCountShort(1000)).toBe('1K');
    expect(formatCountShort(1500)).toBe('1.5K');
    expect(formatCountShort(999_999)).toBe('1M');
    expect(formatCountShort(2_000_000)).toBe('2M');
  });

  it('when the lag is stated, then it is in plain seconds, minutes and hours', () => {
    expect(formatDuration(0)).toBe('0 seconds');
    expect(formatDuration(500)).toBe('1 second');
    expect(formatDuration(30_000)).toBe('30 seconds');
    expect(formatDuration(60_000)).toBe('1 minute');
    expect(formatDuration(90_000)).toBe('1 minute 30 seconds');
    expect(formatDuration(300_000)).toBe('5 minutes');
    expect(formatDuration(3_600_000)).toBe('1 hour');
    expect(lagNote({ report_interval_ms: 60_000 })).toMatch(/per UTC day .*lag delivery by up to 1 minute\.$/);
  });

  it('when a UTC day is labelled, then the label does not depend on the time zone', () => {
    expect(dayLabel('2026-11-30')).toBe('30 Nov');
    expect(dayLabel('2026-01-01')).toBe('1 Jan');
    expect(dayLabelLong('2026-12-05')).toBe('5 Dec 2026');
  });

  it('when a meter is described, then it reads "n of limit", or says it is not measurable', () => {
    expect(inUseText({ in_use: 1, limit: 1 }, 'WebSocket connections')).toBe('1 of 1 WebSocket connections');
    expect(inUseText({ in_use: 1234, limit: 10_000 }, 'requests')).toBe('1,234 of 10,000 requests');
    expect(inUseText({ in_use: null, limit: 5 }, 'native NATS connections')).toBe('Native NATS connections: not measurable right now (limit 5)');
  });

  it('when an answer has another shape, then it is not taken for a report', () => {
    expect(isUsageReport(busy)).toBe(true);
    expect(isUsageReport(null)).toBe(false);
    expect(isUsageReport({ ...busy, days: [{ day: '30 Nov', websocket: { messages: 1, bytes: 1 }, nats: { messages: 0, bytes: 0 } }] })).toBe(false);
    expect(isUsageReport({ ...busy, totals: { websocket: { messages: -1, bytes: 0 }, nats: { messages: 0, bytes: 0 } } })).toBe(false);
    expect(isUsageReport({ ...busy, connections: { websocket: { in_use: '1', limit: 1 }, nats: { in_use: null, limit: 1 } } })).toBe(false);
    const { requests_per_minute: _, ...noRequests } = busy;
    expect(isUsageReport(noRequests)).toBe(false);
  });
});

describe('Usage page states', () => {
  beforeEach(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
  });

  it('when the report has not arrived yet, then the page says it is loading', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>(() => undefined)),
    );
    renderUsage();
    expect(screen.getByRole('heading', { level: 1, name: 'Usage' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('Loading your usage…');
    expect(screen.queryByTestId('series-chart')).toBeNull();
  });

  it("when the first load fails, then the server's message shows with Retry, and Retry loads the figures", async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(json({ status: 503, code: 'unavailable', message: 'Usage figures are not available right now.' }, 503))
      .mockResolvedValue(json(busy));
    vi.stubGlobal('fetch', fetchMock);
    renderUsage();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load your usage');
    expect(alert.textContent).toContain('Usage figures are not available right now.');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByTestId('usage-total-websocket-messages');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(usageCalls(fetchMock)).toBe(2);
    expect(fetchMock.mock.calls[0]![1]).toMatchObject({ headers: { authorization: 'Bearer test-access-token' } });
  });

  it('when the answer is not a usage report, then the page says so instead of showing figures', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ days: 'none' })),
    );
    renderUsage();
    expect((await screen.findByTestId('usage-error-message')).textContent).toBe(MALFORMED_USAGE_MESSAGE);
  });

  it('when nothing was delivered in 30 days, then the page says so, links to the credentials, and shows zeros, not made-up figures', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(report(undefined, { connections: { websocket: { in_use: 0, limit: 1 }, nats: { in_use: 0, limit: 1 } } }))),
    );
    renderUsage();
    const empty = await screen.findByTestId('usage-empty');
    expect(empty.textContent).toContain('Nothing delivered in the last 30 days yet');
    expect(empty.textContent).toContain('shows here within 1 minute.');
    expect(within(empty).getByRole('link', { name: 'Dashboard' }).getAttribute('href')).toBe('/dashboard');
    expect(screen.getByTestId('usage-total-websocket-messages').textContent).toBe('0 messages');
    expect(screen.getByTestId('usage-total-nats-bytes').textContent).toBe('0 B');
    expect(screen.getByTestId('usage-ws-connections').textContent).toContain('0 of 1 WebSocket connections');
  });

  it('when the report has figures, then totals, meters, the lag note, both charts and the 30-day table show them', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(busy)),
    );
    renderUsage();
    await screen.findByTestId('usage-total-websocket-messages');
    expect(screen.queryByTestId('usage-empty')).toBeNull();
    // Totals: Σ 1000·(i+1) for i < 30 = 465,000 messages; Σ 250,000·(i+1) = 116,250,000 bytes.
    expect(screen.getByTestId('usage-total-websocket-messages').textContent).toBe('465,000 messages');
    expect(screen.getByTestId('usage-total-websocket-bytes').textContent).toBe('116.3 MB');
    // NATS from day 20: Σ 10·i (i = 20…29) = 2,450 messages; Σ 3,000,000·i = 735,000,000 bytes.
    expect(screen.getByTestId('usage-total-nats-messages').textContent).toBe('2,450 messages');
    expect(screen.getByTestId('usage-total-nats-bytes').textContent).toBe('735.0 MB');
    // Meters, including one the server could not measure.
    expect(screen.getByTestId('usage-ws-connections').textContent).toContain('1 of 1 WebSocket connections');
    expect(screen.getByTestId('usage-ws-connections').textContent).toContain('At your plan’s limit');
    expect(screen.getByTestId('usage-nats-connections').textContent).toContain('Native NATS connections: not measurable right now (limit 1)');
    expect(within(screen.getByTestId('usage-nats-connections')).queryByRole('meter')).toBeNull();
    const requests = within(screen.getByTestId('usage-requests')).getByRole('meter', { name: '37 of 100 WebSocket control requests in the last minute' });
    expect(requests.getAttribute('value')).toBe('37');
    expect(requests.getAttribute('max')).toBe('100');
    expect(screen.getByTestId('usage-note').textContent).toContain('lag delivery by up to 1 minute');
    expect(screen.getByTestId('usage-generated-at').textContent).toBe('Figures as of 12:34:56 UTC');

    // Two charts, each drawn by uPlot on a canvas with both transports as series.
    const charts = screen.getAllByTestId('series-chart');
    expect(charts.map((c) => c.getAttribute('aria-label'))).toEqual([
      expect.stringMatching(/^Messages delivered per UTC day over WebSocket and native NATS, 1 Nov 2026 to 30 Nov 2026\./),
      expect.stringMatching(/^Bytes delivered per UTC day/),
    ]);
    for (const chart of charts) {
      expect(chart.querySelector('.uplot canvas')).not.toBeNull();
      const legend = [...chart.querySelectorAll('.u-legend .u-series .u-label')].map((l) => l.textContent);
      expect(legend).toEqual(['Day', 'WebSocket', 'Native NATS']);
    }
    // Nothing hovered: each legend names the latest day and its figures.
    expect([...charts[0]!.querySelectorAll('.u-legend .u-value')].map((l) => l.textContent)).toEqual(['30 Nov 2026 (UTC)', '30,000 messages', '290 messages']);
    expect([...charts[1]!.querySelectorAll('.u-legend .u-value')].map((l) => l.textContent)).toEqual(['30 Nov 2026 (UTC)', '7.5 MB', '87.0 MB']);

    // The table alternative: 30 days, newest first, and the totals.
    const table = screen.getByTestId('usage-table');
    expect(table.closest('details')?.querySelector('summary')?.textContent).toBe('Show as table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(1 + USAGE_DAYS + 1);
    expect(
      within(rows[1]!)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['30,000', '7.5 MB', '290', '87.0 MB']);
    expect(within(rows[1]!).getByRole('rowheader').textContent).toBe('30 Nov 2026');
    expect(within(rows[USAGE_DAYS]!).getByRole('rowheader').textContent).toBe('1 Nov 2026');
    expect(
      within(rows[USAGE_DAYS + 1]!)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['465,000', '116.3 MB', '2,450', '735.0 MB']);
  });
});

describe('Usage page refresh', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: false });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
  });

  /** Lets the pending fetch promises and React updates settle under fake timers. */
  async function settle() {
    await act(async () => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
    });
  }

  it('when the tab stays visible, then the report reloads every 30 s; while hidden it does not; shown again it reloads at once', async () => {
    const fetchMock = vi.fn(async () => json(busy));
    vi.stubGlobal('fetch', fetchMock);
    renderUsage();
    await settle();
    expect(usageCalls(fetchMock)).toBe(1);

    await act(async () => vi.advanceTimersByTimeAsync(USAGE_REFRESH_MS - 1));
    expect(usageCalls(fetchMock), 'not before 30 s').toBe(1);
    await act(async () => vi.advanceTimersByTimeAsync(1));
    await settle();
    expect(usageCalls(fetchMock), 'at 30 s').toBe(2);

    act(() => setVisibility('hidden'));
    await act(async () => vi.advanceTimersByTimeAsync(5 * USAGE_REFRESH_MS));
    await settle();
    expect(usageCalls(fetchMock), 'no reload while hidden').toBe(2);

    act(() => setVisibility('visible'));
    await settle();
    expect(usageCalls(fetchMock), 'at once when shown').toBe(3);
    await act(async () => vi.advanceTimersByTimeAsync(USAGE_REFRESH_MS));
    await settle();
    expect(usageCalls(fetchMock), 'and every 30 s again').toBe(4);
  });

  it('when Refresh is pressed, then the report reloads; when a reload fails, the last figures stay with the reason and Retry', async () => {
    let n = 0;
    const fetchMock = vi.fn(async () => {
      n += 1;
      if (n === 1) return json(busy);
      if (n === 2) return json({ status: 503, code: 'unavailable', message: 'The usage store is not reachable.' }, 503);
      return json(report((i) => (i === 29 ? { ws: [7, 7000] } : {})));
    });
    vi.stubGlobal('fetch', fetchMock);
    renderUsage();
    await settle();
    expect(screen.getByTestId('usage-total-websocket-messages').textContent).toBe('465,000 messages');

    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await settle();
    const failed = screen.getByTestId('usage-refresh-error');
    expect(failed.textContent).toContain('The usage store is not reachable.');
    expect(screen.getByTestId('usage-total-websocket-messages').textContent, 'the last figures stay').toBe('465,000 messages');

    fireEvent.click(within(failed).getByRole('button', { name: 'Retry' }));
    await settle();
    expect(screen.queryByTestId('usage-refresh-error')).toBeNull();
    expect(screen.getByTestId('usage-total-websocket-messages').textContent).toBe('7 messages');
    expect(usageCalls(fetchMock)).toBe(3);
  });

  it('when the page unmounts, then no reload follows', async () => {
    const fetchMock = vi.fn(async () => json(busy));
    vi.stubGlobal('fetch', fetchMock);
    const { unmount } = renderUsage();
    await settle();
    unmount();
    await vi.advanceTimersByTimeAsync(3 * USAGE_REFRESH_MS);
    expect(usageCalls(fetchMock)).toBe(1);
  });
});

describe('SeriesChart (the generic chart the Usage page draws with)', () => {
  it('when used as a sparkline, then it has no legend; new values redraw the same chart instead of building another', () => {
    const props = { label: 'Trades per second', x: [0, 1, 2], formatX: String, formatY: String, legend: false, axes: false, height: 40 };
    const { rerender } = render(
      <ThemeProvider>
        <SeriesChart {...props} series={[{ label: 'trades', values: [1, 2, 3], colorVar: '--chart-series-1' }]} />
      </ThemeProvider>,
    );
    const chart = screen.getByRole('img', { name: 'Trades per second' });
    const plot = chart.querySelector('.uplot');
    expect(plot).not.toBeNull();
    expect(chart.querySelector('.u-legend')).toBeNull();
    rerender(
      <ThemeProvider>
        <SeriesChart {...props} series={[{ label: 'trades', values: [3, 2, 1], colorVar: '--chart-series-1' }]} />
      </ThemeProvider>,
    );
    expect(chart.querySelector('.uplot'), 'the same uPlot instance').toBe(plot);
    rerender(
      <ThemeProvider>
        <SeriesChart {...props} series={[{ label: 'trades', values: [3, 2, 1], colorVar: '--chart-series-2' }]} />
      </ThemeProvider>,
    );
    expect(chart.querySelectorAll('.uplot')).toHaveLength(1);
    expect(chart.querySelector('.uplot'), 'another colour builds it anew').not.toBe(plot);
  });
});
