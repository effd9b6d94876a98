import { useCallback, useEffect, useRef, useState } from 'react';
import { apiFetch, ApiError, type TokenRow } from '../../api';
import { formatName, NOT_AVAILABLE, shortenMint, tokenFigures } from '../../lib/format';

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

/** A row's symbol: the API's symbol, or the shortened mint when it has none or it is the mint itself. */
export function tokenSymbol(row: Pick<TokenRow, 'symbol' | 'mint'>): string {
  const symbol = row.symbol?.trim();
  return symbol && symbol !== row.mint ? symbol : shortenMint(row.mint);
}

/**
 * A row's name cut to 25 characters ({@link formatName}), or "N/A" when the API knows no name
 * (token-price then reports the mint address as the name).
 */
export function tokenName(row: Pick<TokenRow, 'name' | 'mint'>): string {
  const name = row.name?.trim();
  return name && name !== row.mint ? formatName(name) : NOT_AVAILABLE;
}

/**
 * Loads `GET /api/birdeye/tokens` on mount and every `refreshMs`; stops (timer cleared, request
 * aborted) on unmount. A failed first load is the `error` state with the API's message; a failed
 * refresh keeps the last rows and reports `refreshError`. `retry()` loads again at once. `now`
 * (ms, default `performance.now`) times each request for `responseMs`.
 */
export function useTokens(
  refreshMs = TOKENS_REFRESH_MS,
  now: () => number = () => performance.now(),
): { state: TokensState; retry: () => void } {
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
 * market cap in M or K, 24 h volume in M, signed 24 h change or N/A (web/src/lib/format.ts).
 * Replayed rows and SOL-only figures are labelled as such; cards below 640 px.
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
          <p className="muted" data-testid="live-error-cause">{state.message}</p>
        </div>
        <button type="button" className="btn btn-secondary btn-sm" onClick={retry}>
          Retry
        </button>
      </div>
    );
  }

  const rows = state.rows.map((row) => ({ row, f: tokenFigures(row) }));
  const anyReplayed = rows.some((r) => r.f.replayed);
  const anySol = rows.some((r) => r.f.unit === 'SOL');

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
          {anyReplayed ? (
            <p className="alert alert-warning home-tokens-note" data-testid="replay-note">
              Rows marked <strong>Replay</strong> come from the bundled replay of recorded mainnet trades, not from live
              trading: their figures are not current market data.
            </p>
          ) : null}
          {anySol ? (
            <p className="muted home-tokens-note" data-testid="sol-note">
              No SOL/USD rate is known for rows shown in SOL, so their price, market cap and volume are given in SOL.
            </p>
          ) : null}
          <div className="home-tokens-table-wrap">
            <table className="home-tokens-table">
              <caption>Most traded tokens of the last 24 hours, from Tradewind’s decoded trades, refreshed every {Math.round(refreshMs / 1000)} seconds</caption>
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
                {rows.map(({ row, f }) => (
                  <tr key={row.mint} data-testid="token-row">
                    <th scope="row" className="home-tokens-name">
                      <strong data-testid="token-symbol">{tokenSymbol(row)}</strong>
                      <span className="muted" title={row.name ?? row.mint} data-testid="token-name">{tokenName(row)}</span>
                      {f.replayed ? <span className="badge home-tokens-replay">Replay</span> : null}
                    </th>
                    <td data-label="Price">{f.price}</td>
                    <td data-label="Market cap">{f.marketCap}</td>
                    <td data-label="24 h volume">{f.volume}</td>
                    <td data-label="24 h change" className={f.direction === 'up' ? 'positive' : f.direction === 'down' ? 'negative' : undefined}>
                      {f.change}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
