import { useCallback, useEffect, useRef, useState } from 'react';
import { formatDate, shortenMint } from '../../lib/format';
import { SUBJECT_SOURCES } from '../../lib/pricing';

/** The live trade tape: Server-Sent Events from token-price through the origin (docs/token-price.md "Trade tape"). */
export const TAPE_URL = '/api/trades/tape';
/** Trades shown, newest first. */
export const HERO_TAPE_ROWS = 8;
/**
 * Waits before reconnecting after the stream failed or was refused (429 at capacity, the service restarting,
 * the network gone), ms: one more step per failure in a row, the last one repeated. The first trade received
 * starts the sequence again.
 */
export const TAPE_RETRY_DELAYS_MS: readonly number[] = [2_000, 5_000, 15_000, 30_000, 60_000];

/** One trade of the tape: the JSON of one event (token-price http/api.ts TapeEventSchema). */
export interface TapeTrade {
  seq: number;
  subject: string;
  transaction_type: string;
  side: 'buy' | 'sell' | null;
  mint: string;
  symbol: string | null;
  name: string | null;
  /** SOL. */
  sol_amount: number;
  signature: string;
  /** Unix ms, or null. */
  block_time_ms: number | null;
  replayed: boolean;
  /** Replayed trades: chain time of the recorded trade, Unix ms, or null. */
  recorded_at: number | null;
}

/**
 * `connecting`: the stream is being opened (also what the prerendered page shows); `live`: open;
 * `paused`: the tab is hidden, the stream closed; `unavailable`: it failed or was refused, a retry is scheduled.
 */
export type TapeStatus = 'connecting' | 'live' | 'paused' | 'unavailable';

/** The tape's fixed texts. */
export const TAPE_TEXT = Object.freeze({
  title: 'Live trades',
  connecting: 'Connecting to the live trade stream…',
  waiting: 'Connected. Waiting for the next trade…',
  live: 'Live',
  paused: 'Paused',
  unavailable: 'Unavailable',
  unavailableMessage: 'The live trade stream is unavailable right now.',
  caption: 'A sample of the trades Tradewind decodes, newest first. Your WebSocket and NATS streams carry every trade.',
} as const);

/** The trade in an event's data, or null when it is not one (malformed JSON, missing fields). */
export function parseTapeEvent(data: string): TapeTrade | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const t = v as Record<string, unknown>;
  if (typeof t.seq !== 'number' || typeof t.mint !== 'string' || typeof t.transaction_type !== 'string' || typeof t.sol_amount !== 'number') return null;
  if (!Number.isFinite(t.sol_amount) || typeof t.signature !== 'string') return null;
  const text = (x: unknown) => (typeof x === 'string' ? x : null);
  const time = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return {
    seq: t.seq,
    subject: typeof t.subject === 'string' ? t.subject : '',
    transaction_type: t.transaction_type,
    side: t.side === 'buy' || t.side === 'sell' ? t.side : null,
    mint: t.mint,
    symbol: text(t.symbol),
    name: text(t.name),
    sol_amount: t.sol_amount,
    signature: t.signature,
    block_time_ms: time(t.block_time_ms),
    replayed: t.replayed === true,
    recorded_at: time(t.recorded_at),
  };
}

/** `buy`, `sell` or null: the side the trade states, else what its kind says (BUY, SELL). */
export function tradeDirection(t: Pick<TapeTrade, 'side' | 'transaction_type'>): 'buy' | 'sell' | null {
  if (t.side) return t.side;
  return t.transaction_type === 'BUY' ? 'buy' : t.transaction_type === 'SELL' ? 'sell' : null;
}

/** A SOL amount for the tape: `1,234 SOL`, `12.35 SOL`, `0.0123 SOL` (three significant digits below 1). */
export function formatSolAmount(sol: number): string {
  const digits = sol >= 1000 ? { maximumFractionDigits: 0 } : sol >= 1 ? { maximumFractionDigits: 2 } : { maximumSignificantDigits: 3 };
  return `${new Intl.NumberFormat('en-US', digits).format(sol)} SOL`;
}

/** The token as the tape names it: its symbol when known (not just the mint), else null (the row shows the shortened mint). */
export function tapeSymbol(t: Pick<TapeTrade, 'symbol' | 'mint'>): string | null {
  const s = t.symbol?.trim();
  return s && s !== t.mint && s !== shortenMint(t.mint) ? s : null;
}

/** Recording dates seen so far (Unix ms), so the replay note only widens. */
export interface RecordedSpan {
  from: number;
  to: number;
}

/**
 * The tape's one note about replayed trades (the wording of the token panel's `replayNote`), or null when no
 * trade on show is replayed: all replayed → "Replayed mainnet data. These trades were recorded … ", some →
 * the same for the trades marked "Replayed". `span`: the recording dates seen, if any.
 */
export function tapeReplayNote(trades: readonly Pick<TapeTrade, 'replayed'>[], span: RecordedSpan | null): string | null {
  const replayed = trades.filter((t) => t.replayed).length;
  if (replayed === 0) return null;
  const dates = span === null ? '' : ` recorded ${formatDate(span.from)}${formatDate(span.from) === formatDate(span.to) ? '' : ` to ${formatDate(span.to)}`}`;
  const which = replayed === trades.length ? 'These are real trades' : 'Trades marked “Replayed” are real trades';
  return `Replayed mainnet data. ${which}${dates}, replayed by this deployment: not current market data.`;
}

/** Options of {@link useTradeTape}. */
export interface TradeTapeOptions {
  /** Creates the stream (default `new EventSource(url)`); tests pass a fake. */
  createEventSource?: (url: string) => EventSource;
  /** Default {@link TAPE_RETRY_DELAYS_MS}. */
  retryDelaysMs?: readonly number[];
  /** Default {@link HERO_TAPE_ROWS}. */
  maxRows?: number;
}

/** The tape's state (see {@link useTradeTape}). */
export interface TradeTape {
  status: TapeStatus;
  /** Newest first, at most `maxRows`. */
  trades: TapeTrade[];
  /** Whether any event arrived on the current stream. */
  received: boolean;
  /** Recording dates of the replayed trades seen, or null. */
  span: RecordedSpan | null;
  /** ms until the scheduled retry (status `unavailable`). */
  retryInMs: number | null;
  /** Opens the stream again now. */
  retry: () => void;
}

/**
 * The live trade tape as state. Opens an EventSource on {@link TAPE_URL} after mount (never during server
 * rendering) while the tab is visible; closes it when the tab is hidden (`visibilitychange`) and opens it again
 * when visible. A failure (refused, closed, network) closes it and retries after the next of `retryDelaysMs`.
 */
export function useTradeTape(options: TradeTapeOptions = {}): TradeTape {
  const [status, setStatus] = useState<TapeStatus>('connecting');
  const [trades, setTrades] = useState<TapeTrade[]>([]);
  const [received, setReceived] = useState(false);
  const [span, setSpan] = useState<RecordedSpan | null>(null);
  const [retryInMs, setRetryInMs] = useState<number | null>(null);
  const reopen = useRef<() => void>(() => undefined);
  // Read through refs: new option objects on each render must not reopen the stream.
  const opts = useRef(options);
  opts.current = options;

  useEffect(() => {
    const create = (url: string) => (opts.current.createEventSource ?? ((u: string) => new EventSource(u)))(url);
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let disposed = false;

    const close = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (source) {
        source.onopen = null;
        source.onmessage = null;
        source.onerror = null;
        source.close();
        source = null;
      }
    };
    const fail = () => {
      close();
      const delays = opts.current.retryDelaysMs ?? TAPE_RETRY_DELAYS_MS;
      const delay = delays[Math.min(failures, delays.length - 1)] ?? 60_000;
      failures++;
      setStatus('unavailable');
      setRetryInMs(delay);
      timer = setTimeout(open, delay);
    };
    function open(): void {
      if (disposed) return;
      close();
      setRetryInMs(null);
      setReceived(false);
      setStatus('connecting');
      try {
        source = create(TAPE_URL);
      } catch {
        // No EventSource in this browser (or it refused the URL): the same as a failed stream.
        fail();
        return;
      }
      source.onopen = () => setStatus('live');
      source.onmessage = (e: MessageEvent) => {
        const trade = parseTapeEvent(String(e.data));
        if (!trade) return;
        failures = 0;
        setStatus('live');
        setReceived(true);
        setTrades((prev) => (prev.some((t) => t.seq === trade.seq) ? prev : [trade, ...prev].slice(0, opts.current.maxRows ?? HERO_TAPE_ROWS)));
        const at = trade.replayed ? trade.recorded_at : null;
        if (at !== null) setSpan((s) => (s === null ? { from: at, to: at } : { from: Math.min(s.from, at), to: Math.max(s.to, at) }));
      };
      // EventSource reports a refused answer (429), a closed stream and a lost connection alike: back off.
      source.onerror = () => fail();
    }
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') {
        close();
        setRetryInMs(null);
        setStatus('paused');
      } else if (!source) {
        failures = 0;
        open();
      }
    };
    reopen.current = () => {
      failures = 0;
      open();
    };
    document.addEventListener('visibilitychange', onVisibility);
    if (document.visibilityState === 'hidden') setStatus('paused');
    else open();
    return () => {
      disposed = true;
      document.removeEventListener('visibilitychange', onVisibility);
      close();
    };
  }, []);

  const retry = useCallback(() => reopen.current(), []);
  return { status, trades, received, span, retryInMs, retry };
}

/** Props of {@link HeroTape}. */
export type HeroTapeProps = TradeTapeOptions;

/**
 * The home page hero's live trade tape: the latest trades Tradewind decoded, newest on top, each with its
 * kind (BUY green, SELL red, others neutral), its token (symbol, else the shortened mint) and the SOL it
 * moved. A "Live" indicator; "Connecting…" until the stream opens (the prerendered state); an
 * "unavailable right now" message with a Retry button when it failed, retried with backoff; paused while
 * the tab is hidden. Replayed trades (the local stack) carry one note saying so.
 */
export function HeroTape(props: HeroTapeProps) {
  const { status, trades, received, span, retryInMs, retry } = useTradeTape(props);
  const note = tapeReplayNote(trades, span);
  const mixed = trades.some((t) => t.replayed) && trades.some((t) => !t.replayed);
  const label = status === 'live' ? TAPE_TEXT.live : status === 'paused' ? TAPE_TEXT.paused : status === 'unavailable' ? TAPE_TEXT.unavailable : null;

  return (
    <section className="hero-tape" aria-labelledby="hero-tape-title" data-testid="hero-tape" data-status={status}>
      <div className="hero-tape-head">
        <h2 id="hero-tape-title" className="hero-tape-title">
          {TAPE_TEXT.title}
        </h2>
        <span className={`hero-tape-state hero-tape-state-${status}`} role="status" data-testid="hero-tape-state">
          {label === null ? (
            <>
              <span className="spinner hero-tape-spinner" aria-hidden="true" /> {TAPE_TEXT.connecting}
            </>
          ) : (
            <>
              <span className="hero-tape-dot" aria-hidden="true" /> {label}
            </>
          )}
        </span>
      </div>
      {status === 'unavailable' ? (
        <div className="alert alert-warning hero-tape-alert" role="alert" data-testid="hero-tape-unavailable">
          <span>
            {TAPE_TEXT.unavailableMessage}
            {retryInMs !== null ? ` Trying again in ${Math.round(retryInMs / 1000)} s.` : ''}
          </span>
          <button type="button" className="btn btn-secondary btn-sm" onClick={retry}>
            Retry
          </button>
        </div>
      ) : null}
      {note ? (
        <p className="hero-tape-note" data-testid="hero-tape-replay-note">
          {note}
        </p>
      ) : null}
      <ol className="hero-tape-list" aria-label="Latest trades, newest first">
        {trades.map((t) => {
          const direction = tradeDirection(t);
          const symbol = tapeSymbol(t);
          return (
            <li key={t.seq} className="hero-tape-row" data-testid="hero-tape-row" data-seq={t.seq}>
              <span className={`hero-tape-kind hero-tape-kind-${direction ?? 'other'}`}>{t.transaction_type}</span>
              <span className="hero-tape-token" title={t.name ?? `Mint address ${t.mint}`}>
                {symbol !== null ? <strong>{symbol}</strong> : <code>{shortenMint(t.mint)}</code>}
                <span className="hero-tape-source muted">{SUBJECT_SOURCES[t.subject] ?? t.subject}</span>
                {mixed && t.replayed ? <span className="badge home-tokens-replay">Replayed</span> : null}
              </span>
              <span className="hero-tape-amount">{formatSolAmount(t.sol_amount)}</span>
            </li>
          );
        })}
        {trades.length === 0 && status === 'live' && !received ? <li className="hero-tape-empty muted">{TAPE_TEXT.waiting}</li> : null}
      </ol>
      <p className="hero-tape-caption muted">{TAPE_TEXT.caption}</p>
    </section>
  );
}
