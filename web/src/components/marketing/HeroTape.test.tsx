import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatSolAmount, HERO_TAPE_ROWS, HeroTape, parseTapeEvent, TAPE_TEXT, TAPE_URL, tapeReplayNote, type TapeTrade } from './HeroTape';

/** A stand-in for the browser's EventSource that the test drives (jsdom has none). */
class FakeSource {
  static all: FakeSource[] = [];
  onopen: ((e: Event) => void) | null = null;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: Event) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSource.all.push(this);
  }
  close(): void {
    this.closed = true;
  }
  open(): void {
    act(() => this.onopen?.(new Event('open')));
  }
  emit(trade: Partial<TapeTrade>): void {
    act(() => this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ ...TRADE, ...trade }) })));
  }
  fail(): void {
    act(() => this.onerror?.(new Event('error')));
  }
}

const TRADE: TapeTrade = {
  seq: 1,
  subject: 'basic.pumpfun',
  transaction_type: 'BUY',
  side: 'buy',
  mint: '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump',
  symbol: 'MOODOG',
  name: 'MOO DOG',
  sol_amount: 0.5,
  signature: '4x'.repeat(40),
  block_time_ms: 1_725_989_127_000,
  replayed: false,
  recorded_at: null,
};

const create = (url: string) => new FakeSource(url) as unknown as EventSource;
const latest = () => FakeSource.all.at(-1)!;
const open = () => FakeSource.all.filter((s) => !s.closed);

let visibility: DocumentVisibilityState = 'visible';
function setVisibility(state: DocumentVisibilityState): void {
  visibility = state;
  act(() => {
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

beforeEach(() => {
  FakeSource.all = [];
  visibility = 'visible';
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
});

afterEach(() => {
  vi.useRealTimers();
});

const rows = () => screen.queryAllByTestId('hero-tape-row');
const state = () => screen.getByTestId('hero-tape-state').textContent?.trim();

describe('HeroTape', () => {
  it('when rendered on the server, then it shows the connecting state and opens no stream', () => {
    const html = renderToString(<HeroTape createEventSource={create} />);
    expect(html).toContain(TAPE_TEXT.connecting);
    expect(html).toContain('data-status="connecting"');
    expect(FakeSource.all).toEqual([]);
  });

  it('when trades arrive, then each is a row, newest on top, with its kind, token and SOL amount, and at most HERO_TAPE_ROWS stay', () => {
    render(<HeroTape createEventSource={create} />);
    expect(FakeSource.all.map((s) => s.url)).toEqual([TAPE_URL]);
    expect(state()).toBe(TAPE_TEXT.connecting);
    latest().open();
    expect(state()).toBe(TAPE_TEXT.live);
    expect(screen.getByText(TAPE_TEXT.waiting)).toBeTruthy();

    latest().emit({ seq: 1 });
    latest().emit({ seq: 2, transaction_type: 'SELL', side: 'sell', symbol: null, name: null, sol_amount: 1234.5678 });
    latest().emit({ seq: 3, subject: 'premium.raydium', transaction_type: 'SWAP', side: 'buy', symbol: 'WIF', sol_amount: 0.012345 });
    const [first, second, third] = rows();
    expect(first!.textContent).toBe('SWAPWIFRaydium CPMM0.0123 SOL');
    expect(within(first!).getByText('SWAP').className).toContain('hero-tape-kind-buy');
    expect(second!.textContent).toBe('SELL5dNY…pumpPump.fun1,235 SOL');
    expect(within(second!).getByText('SELL').className).toContain('hero-tape-kind-sell');
    expect(within(second!).getByText('5dNY…pump').tagName).toBe('CODE');
    expect(third!.textContent).toBe('BUYMOODOGPump.fun0.5 SOL');
    expect(screen.queryByText(TAPE_TEXT.waiting)).toBeNull();

    for (let seq = 4; seq <= 20; seq++) latest().emit({ seq });
    expect(rows().length).toBe(HERO_TAPE_ROWS);
    expect(rows()[0]!.getAttribute('data-seq')).toBe('20');
    // The same event twice (a reconnect's backfill) is one row; a malformed event is none.
    latest().emit({ seq: 20 });
    act(() => latest().onmessage?.(new MessageEvent('message', { data: '{"seq":"x"}' })));
    expect(rows()[1]!.getAttribute('data-seq')).toBe('19');
  });

  it('when the tab is hidden, then the stream is closed and the tape says Paused; when visible again, then a new stream opens', () => {
    render(<HeroTape createEventSource={create} />);
    latest().open();
    latest().emit({ seq: 1 });
    setVisibility('hidden');
    expect(FakeSource.all.length).toBe(1);
    expect(FakeSource.all[0]!.closed).toBe(true);
    expect(state()).toBe(TAPE_TEXT.paused);
    expect(rows().length).toBe(1);
    setVisibility('visible');
    expect(FakeSource.all.length).toBe(2);
    expect(open()).toEqual([FakeSource.all[1]]);
    expect(state()).toBe(TAPE_TEXT.connecting);
    latest().open();
    latest().emit({ seq: 2 });
    expect(rows().map((r) => r.getAttribute('data-seq'))).toEqual(['2', '1']);
  });

  it('when the page loads in a hidden tab, then no stream opens until it is shown', () => {
    visibility = 'hidden';
    render(<HeroTape createEventSource={create} />);
    expect(FakeSource.all).toEqual([]);
    expect(state()).toBe(TAPE_TEXT.paused);
    setVisibility('visible');
    expect(FakeSource.all.length).toBe(1);
  });

  it('when the stream fails (refused or closed), then it says unavailable, retries after each delay in turn, and Retry reconnects at once', () => {
    vi.useFakeTimers();
    render(<HeroTape createEventSource={create} retryDelaysMs={[1_000, 4_000]} />);
    latest().fail();
    expect(latest().closed).toBe(true);
    expect(state()).toBe(TAPE_TEXT.unavailable);
    expect(screen.getByTestId('hero-tape-unavailable').textContent).toContain(`${TAPE_TEXT.unavailableMessage} Trying again in 1 s.`);
    act(() => vi.advanceTimersByTime(999));
    expect(FakeSource.all.length).toBe(1);
    act(() => vi.advanceTimersByTime(1));
    expect(FakeSource.all.length).toBe(2);
    latest().fail();
    expect(screen.getByTestId('hero-tape-unavailable').textContent).toContain('Trying again in 4 s.');
    act(() => vi.advanceTimersByTime(3_999));
    expect(FakeSource.all.length).toBe(2);
    act(() => vi.advanceTimersByTime(1));
    expect(FakeSource.all.length).toBe(3);
    // The last delay repeats.
    latest().fail();
    act(() => vi.advanceTimersByTime(4_000));
    expect(FakeSource.all.length).toBe(4);
    latest().fail();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(FakeSource.all.length).toBe(5);
    expect(open()).toEqual([latest()]);
    expect(state()).toBe(TAPE_TEXT.connecting);
    // A trade resets the backoff: the next failure waits the first delay again.
    latest().open();
    latest().emit({ seq: 9 });
    latest().fail();
    expect(screen.getByTestId('hero-tape-unavailable').textContent).toContain('Trying again in 1 s.');
    // Hidden while waiting: no retry fires.
    setVisibility('hidden');
    act(() => vi.advanceTimersByTime(10_000));
    expect(FakeSource.all.length).toBe(5);
  });

  it('when the browser has no EventSource, then the tape says unavailable instead of failing', () => {
    vi.useFakeTimers();
    render(
      <HeroTape
        createEventSource={() => {
          throw new ReferenceError('EventSource is not defined');
        }}
      />,
    );
    expect(state()).toBe(TAPE_TEXT.unavailable);
  });

  it('when the trades are replayed from a recording, then one note says so with the recording dates; mixed with live ones, the replayed rows are marked', () => {
    render(<HeroTape createEventSource={create} />);
    latest().open();
    latest().emit({ seq: 1, replayed: true, recorded_at: Date.UTC(2024, 6, 20, 12) });
    latest().emit({ seq: 2, replayed: true, recorded_at: Date.UTC(2026, 9, 7, 12) });
    expect(screen.getByTestId('hero-tape-replay-note').textContent).toBe(
      'Replayed mainnet data. These are real trades recorded 2024-07-20 to 2026-10-07, replayed by this deployment: not current market data.',
    );
    expect(screen.queryByText('Replayed')).toBeNull();
    latest().emit({ seq: 3 });
    expect(screen.getByTestId('hero-tape-replay-note').textContent).toContain('Trades marked “Replayed” are real trades recorded 2024-07-20 to 2026-10-07');
    expect(screen.getAllByText('Replayed').length).toBe(2);
  });

  it('when no trade on show is replayed, then there is no replay note', () => {
    render(<HeroTape createEventSource={create} />);
    latest().open();
    latest().emit({ seq: 1 });
    expect(screen.queryByTestId('hero-tape-replay-note')).toBeNull();
    expect(tapeReplayNote([], null)).toBeNull();
    expect(tapeReplayNote([{ replayed: true }], null)).toBe(
      'Replayed mainnet data. These are real trades, replayed by this deployment: not current market data.',
    );
  });
});

describe('tape formatting', () => {
  it('when amounts are formatted, then large ones are whole, middle ones have two decimals and small ones three significant digits', () => {
    expect(formatSolAmount(12_345.6)).toBe('12,346 SOL');
    expect(formatSolAmount(12.3456)).toBe('12.35 SOL');
    expect(formatSolAmount(1)).toBe('1 SOL');
    expect(formatSolAmount(0.000123456)).toBe('0.000123 SOL');
  });

  it('when an event is parsed, then missing or wrong fields make it no trade', () => {
    expect(parseTapeEvent(JSON.stringify(TRADE))).toEqual(TRADE);
    expect(parseTapeEvent('not json')).toBeNull();
    expect(parseTapeEvent(JSON.stringify({ ...TRADE, sol_amount: 'x' }))).toBeNull();
    expect(parseTapeEvent(JSON.stringify({ ...TRADE, mint: undefined }))).toBeNull();
    expect(parseTapeEvent(JSON.stringify({ ...TRADE, side: 'up', symbol: 7 }))).toEqual({ ...TRADE, side: null, symbol: null });
  });
});
