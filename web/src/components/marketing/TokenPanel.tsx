import { useCallback, useEffect, useRef, useState } from 'react';
import { apiFetch, ApiError, type TokenRow } from '../../api';
import { tokenFigures } from '../../lib/format';

/** Endpoint of the live ticker (docs/token-price.md). */
export const TOKENS_URL = '/api/birdeye/tokens';
/** How often the panel reloads the ticker (ms). */
export const TOKENS_REFRESH_MS = 15000;
/** Shown when the API gave no message of its own. */
export const TOKENS_FALLBACK_ERROR = 'Failed to fetch token data';

interface TokensAnswer {
  success?: boolean;
  data?: TokenRow[];
  message?: string;
}

export type TokensState =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'data'; rows: TokenRow[]; refreshError: string | null };

/**
 * Loads `GET /api/birdeye/tokens` on mount and every `refreshMs`; stops (timer cleared, request
 * aborted) on unmount. A failed first load is the `error` state with the API's message; a failed
 * refresh keeps the last rows and reports `refreshError`. `retry()` loads again at once.
 */
export function useTokens(refreshMs = TOKENS_REFRESH_MS): { state: TokensState; retry: () => void } {
  const [state, setState] = useState<TokensState>({ status: 'loading' });
  const controller = useRef<AbortController | null>(null);
  const live = useRef(true);

  const load = useCallback(async () => {
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    try {
      const body = await apiFetch<TokensAnswer>(TOKENS_URL, { signal: ac.signal });
      if (!live.current || ac.signal.aborted) return;
      if (!body || body.success !== true || !Array.isArray(body.data)) {
        throw new ApiError(200, 'bad_answer', typeof body?.message === 'string' ? body.message : TOKENS_FALLBACK_ERROR);
      }
      setState({ status: 'data', rows: body.data, refreshError: null });
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

/**
 * The home page's live token panel: loading, error (the API's message and a Retry button) and
 * data (a table of the most traded tokens of the last 24 h; cards below 640 px). Replayed rows and
 * SOL-only figures are labelled as such.
 */
export function TokenPanel({ refreshMs = TOKENS_REFRESH_MS }: { refreshMs?: number }) {
  const { state, retry } = useTokens(refreshMs);

  if (state.status === 'loading') {
    return (
      <div className="home-tokens-status" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" /> Loading token data…
      </div>
    );
  }
  if (state.status === 'error') {
    return (
      <div className="alert alert-error home-tokens-error" role="alert">
        <p>{state.message}</p>
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
                      <span title={row.name ?? row.mint}>{f.label}</span>
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
