import { useCallback, useEffect, useRef, useState } from 'react';
import { apiFetch, ApiError } from '../../api';
import { formatDate, formatName, shortenMint, tokenFigures, usdSourceNote, type TokenRow } from '../../lib/format';

/** Endpoint of the live ticker (docs/token-price.md). */
export const TOKENS_URL = '/api/birdeye/tokens';
/** How often the panel reloads the ticker (ms). */
export const TOKENS_REFRESH_MS = 15000;
/** Shown when the API gave no message of its own. */
export const TOKENS_FALLBACK_ERROR = 'Failed to fetch token data';

/**
 * The panel's fixed texts, word for word from the specification (section 2, "Home (/)", and the
 * live-panel line of section 8).
 */
export const LIVE_PANEL_TEXT = Object.freeze({
  connecting: 'Connecting...',
  errorTitle: 'Connection Error',
  errorMessage: 'Failed to fetch live data',
  errorHint: 'Please refresh the page to retry',
  performanceGood: 'Performance: Good',
  /** Not in the specification: the last request took longer than {@link GOOD_RESPONSE_MS}. */
  performanceSlow: 'Performance: Slow',
  /** Not in the specification: the last refresh failed and older rows are shown. */
  performanceDegraded: 'Performance: Degraded',
} as const);

/**
 * Longest response time (ms, measured in the browser around `GET /api/birdeye/tokens`) still
 * reported as "Performance: Good". One second is the server's own cache lifetime
 * (docs/token-price.md): an answer slower than that is no longer fresher than the cache.
 */
export const GOOD_RESPONSE_MS = 1000;

interface TokensAnswer {
  success?: boolean;
  data?: TokenRow[];
  message?: string;
}

export type TokensState =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | {
      status: 'data';
      rows: TokenRow[];
      refreshError: string | null;
      /** Milliseconds the last successful request took, measured in the browser (request start to parsed body). */
      responseMs: number;
    };

/**
 * The loaded panel's performance line: "Performance: Good" when the last refresh succeeded within
 * {@link GOOD_RESPONSE_MS}; "Performance: Slow" when it took longer; "Performance: Degraded" when
 * the last refresh failed (older rows are on show).
 */
export function performanceLabel(state: { refreshError: string | null; responseMs: number }, goodMs = GOOD_RESPONSE_MS): string {
  if (state.refreshError) return LIVE_PANEL_TEXT.performanceDegraded;
  return state.responseMs <= goodMs ? LIVE_PANEL_TEXT.performanceGood : LIVE_PANEL_TEXT.performanceSlow;
}

/** Shown in the name cell of a token with no name on record, beside its shortened mint. */
export const MINT_ADDRESS_LABEL = 'Mint address';

/**
 * A row's symbol, or null when the API knows none (the token was never seen created and has no
 * metadata; a symbol that is just the mint counts as none): the panel then shows the shortened mint,
 * marked as an address.
 */
export function tokenSymbol(row: Pick<TokenRow, 'symbol' | 'mint'>): string | null {
  const symbol = row.symbol?.trim();
  return symbol && symbol !== row.mint && symbol !== shortenMint(row.mint) ? symbol : null;
}

/** A row's name cut to 25 characters ({@link formatName}), or null when the API knows none (or gives the mint as name). */
export function tokenName(row: Pick<TokenRow, 'name' | 'mint'>): string | null {
  const name = row.name?.trim();
  return name && name !== row.mint ? formatName(name) : null;
}

/**
 * The panel's one note about replayed rows, or null when none is replayed: all rows replayed →
 * "Replayed mainnet data" with the recording's date range; some → the same, naming the marked rows.
 */
export function replayNote(rows: readonly TokenRow[]): string | null {
  const replayed = rows.filter((r) => r.replayed);
  if (replayed.length === 0) return null;
  const dates = replayed.map((r) => r.recordedAt).filter((t): t is number => typeof t === 'number' && Number.isFinite(t));
  const span =
    dates.length === 0
      ? ''
      : ` recorded ${formatDate(Math.min(...dates))}${Math.min(...dates) === Math.max(...dates) ? '' : ` to ${formatDate(Math.max(...dates))}`}`;
  const which = replayed.length === rows.length ? 'These figures come from' : 'Rows marked “Replayed” come from';
  return `Replayed mainnet data. ${which} real trades${span}, replayed by this deployment: not current market data. Their 24 h volume and change are measured in the recording’s own time.`;
}

/**
 * Loads `GET /api/birdeye/tokens` on mount and every `refreshMs`; stops (timer cleared, request
 * aborted) on unmount. A failed first load is the `error` state with the API's message; a failed
 * refresh keeps the last rows and reports `refreshError`. `retry()` loads again at once. `now`
 * (ms, default `performance.now`) times each request for `responseMs`.
 */
export function useTokens(refreshMs = TOKENS_REFRESH_MS, now: () => number = () => performance.now()): { state: TokensState; retry: () => void } {
  const [state, setState] = useState<TokensState>({ status: 'loading' });
  const controller = useRef<AbortController | null>(null);
  const live = useRef(true);
  // Read through a ref so a new clock function on each render does not restart the polling.
  const clock = useRef(now);
  clock.current = now;

  const load = useCallback(async () => {
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    try {
      const started = clock.current();
      const body = await apiFetch<TokensAnswer>(TOKENS_URL, { signal: ac.signal });
      const responseMs = Math.max(0, clock.current() - started);
      if (!live.current || ac.signal.aborted) return;
      if (!body || body.success !== true || !Array.isArray(body.data)) {
        throw new ApiError(200, 'bad_answer', typeof body?.message === 'string' ? body.message : TOKENS_FALLBACK_ERROR);
      }
      setState({ status: 'data', rows: body.data, refreshError: null, responseMs });
    } catch (err) {
      if (!live.current || ac.signal.aborted) return;
      const message = err instanceof Error && err.message ? err.message : TOKENS_FALLBACK_ERROR;
      setState((prev) => (prev.status === 'data' ? { ...prev, refreshError: message } : { status: 'error', message }));
    }
  }, []);

  useEffect(() => {
    live.current = true;
    void load();
    const id = setInterval(() => void load(), refreshMs);
    return () => {
      live.current = false;
      clearInterval(id);
      controller.current?.abort();
    };
  }, [load, refreshMs]);

  const retry = useCallback(() => {
    setState((prev) => (prev.status === 'error' ? { status: 'loading' } : prev));
    void load();
  }, [load]);

  return { state, retry };
}

/** Props of {@link TokenPanel}. */
export interface TokenPanelProps {
  /** Reload period in ms (default {@link TOKENS_REFRESH_MS}). */
  refreshMs?: number;
  /** Clock in ms used to time each request (default `performance.now`; tests pass a fake). */
  now?: () => number;
}

/**
 * The home page's live data panel (specification section 2, "Home (/)"), in three states:
 * loading ("Connecting..."), error ("Connection Error", "Failed to fetch live data", "Please
 * refresh the page to retry", the cause, and a Retry button that loads again without a reload)
 * and loaded ("Performance: Good" with the measured response time of the last request; see
 * {@link performanceLabel}). Each row: symbol, name cut to 25 characters, price with 6 decimals,
 * market cap in M or K, 24 h volume in M, signed 24 h change or N/A (web/src/lib/format.ts). A
 * token with no name on record shows its shortened mint, marked as an address. Replayed data is
 * labelled once, in one note above the table (rows are marked only when live and replayed rows mix);
 * the unit (SOL, or USD with its SOL/USD source) is stated once too; cards below 640 px.
 */
export function TokenPanel({ refreshMs = TOKENS_REFRESH_MS, now }: TokenPanelProps) {
  const { state, retry } = useTokens(refreshMs, now);

  if (state.status === 'loading') {
    return (
      <div className="home-tokens-status" role="status" aria-live="polite" data-testid="live-connecting">
        <span className="spinner" aria-hidden="true" /> {LIVE_PANEL_TEXT.connecting}
      </div>
    );
  }
  if (state.status === 'error') {
    return (
      <div className="alert alert-error home-tokens-error" role="alert">
        <div>
          <p>
            <strong>{LIVE_PANEL_TEXT.errorTitle}</strong>
          </p>
          <p>{LIVE_PANEL_TEXT.errorMessage}</p>
          <p>{LIVE_PANEL_TEXT.errorHint}</p>
          <p className="muted" data-testid="live-error-cause">
            {state.message}
          </p>
        </div>
        <button type="button" className="btn btn-secondary btn-sm" onClick={retry}>
          Retry
        </button>
      </div>
    );
  }

  const rows = state.rows.map((row) => ({ row, f: tokenFigures(row) }));
  const replay = replayNote(state.rows);
  const mixed = rows.some((r) => r.f.replayed) && rows.some((r) => !r.f.replayed);
  const anySol = rows.some((r) => r.f.unit === 'SOL');
  const usd = usdSourceNote(state.rows, Date.now());

  return (
    <div className="home-tokens">
      <p className="home-tokens-performance" data-testid="live-performance-bar">
        <strong data-testid="live-performance">{performanceLabel(state)}</strong>{' '}
        <span className="muted" data-testid="live-response-time" title="Time the last request to the Tradewind API took, measured in your browser">
          · API response {Math.round(state.responseMs)} ms
        </span>
      </p>
      {state.refreshError ? (
        <div className="alert alert-warning home-tokens-refresh" role="alert">
          <span>Could not refresh: {state.refreshError}. Showing the last figures received.</span>{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={retry}>
            Retry
          </button>
        </div>
      ) : null}
      {rows.length === 0 ? (
        <p className="home-tokens-empty">No trades in the last 24 hours yet</p>
      ) : (
        <>
          {replay ? (
            <p className="alert alert-warning home-tokens-note" data-testid="replay-note">
              {replay}
            </p>
          ) : null}
          {anySol ? (
            <p className="muted home-tokens-note" data-testid="sol-note">
              Prices in SOL: no SOL/USD rate is known for these rows (none measured from SOL/USDC or SOL/USDT swaps on our stream), so no USD is shown.
            </p>
          ) : null}
          {usd ? (
            <p className="muted home-tokens-note" data-testid="usd-note">
              {usd}
            </p>
          ) : null}
          <div className="home-tokens-table-wrap">
            <table className="home-tokens-table">
              <caption>
                Most traded tokens of the last 24 hours, from Tradewind’s decoded trades, refreshed every {Math.round(refreshMs / 1000)} seconds
              </caption>
              <thead>
                <tr>
                  <th scope="col">Token</th>
                  <th scope="col">Price</th>
                  <th scope="col">Market cap</th>
                  <th scope="col">24 h volume</th>
                  <th scope="col">24 h change</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ row, f }) => {
                  const symbol = tokenSymbol(row);
                  const name = tokenName(row);
                  return (
                    <tr key={row.mint} data-testid="token-row">
                      <th scope="row" className="home-tokens-name">
                        {symbol !== null ? (
                          <strong data-testid="token-symbol">{symbol}</strong>
                        ) : (
                          <code data-testid="token-symbol" title={`Mint address ${row.mint}`}>
                            {shortenMint(row.mint)}
                          </code>
                        )}
                        <span className="muted" title={row.name ?? row.mint} data-testid="token-name">
                          {name ?? MINT_ADDRESS_LABEL}
                        </span>
                        {mixed && f.replayed ? <span className="badge home-tokens-replay">Replayed</span> : null}
                      </th>
                      <td data-label="Price">{f.price}</td>
                      <td data-label="Market cap">{f.marketCap}</td>
                      <td data-label="24 h volume">{f.volume}</td>
                      <td data-label="24 h change" className={f.direction === 'up' ? 'positive' : f.direction === 'down' ? 'negative' : undefined}>
                        {f.change}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
