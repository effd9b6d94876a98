/**
 * Optional Birdeye upstream for `GET /api/birdeye/tokens`: Birdeye's "Token - List (V1)" endpoint,
 * mapped into the service's row shape. Used only when `BIRDEYE_API_KEY` is configured; on any
 * failure this module throws a {@link BirdeyeError} and the caller falls back to the figures the
 * service computes from its own trade stream.
 *
 * Protocol, as documented by Birdeye:
 * - `GET {base}/defi/tokenlist?sort_by=v24hUSD&sort_type=desc&offset=0&limit=N`, where `limit` is
 *   "1 to 50, defaults to 50" and `sort_by` is one of `mc | v24hUSD | v24hChangePercent | liquidity`.
 *   Source: Birdeye's reference page "Token - List (V1)" (https://docs.birdeye.so/reference/get-defi-tokenlist),
 *   read through a copy compiled from the official reference:
 *   https://github.com/kaseonedge/birdeye-api-docs/blob/bf43ff15f217d0afc20935d0c50ae1582dda20d3/docs/defi/get-defi-tokenlist.md
 * - Headers `X-API-KEY: <key>`, `x-chain: solana`, `accept: application/json`.
 *   Sources: https://docs.birdeye.so/docs/price-1, https://docs.birdeye.so/docs/multi_price-1
 *   ("Request Headers: accept: application/json, x-chain: …, X-API-KEY: YOUR_API_KEY").
 * - 200 body: `{ success: true, data: { updateUnixTime, updateTime, tokens: [{ address, decimals,
 *   price, lastTradeUnixTime, liquidity, logoURI, mc, name, symbol, v24hChangePercent, v24hUSD }],
 *   total } }`; `lastTradeUnixTime`/`updateUnixTime` are Unix seconds, money fields are USD
 *   (same sources as the endpoint).
 * - Errors: non-2xx statuses (400, 401 missing/invalid key, 403, 429, 500) with a body
 *   `{ success: false, message: "…" }`, e.g. 401 → `"Unauthorized. Authentication required."`.
 *   Source: https://docs.birdeye.so/docs/error-handling
 *
 * `v24hChangePercent` is NOT a price change: Birdeye's `v…` fields are volume figures (`v24hUSD`,
 * `vHistory24h`, `vBuy24hChangePercent`), and the "Token - Overview" example shows
 * `v24hChangePercent: -1.2624…` = (`v24h` − `vHistory24h`) / `vHistory24h`, next to a separate
 * `priceChange24hPercent: 0.578…` (https://github.com/kaseonedge/birdeye-api-docs/blob/1d8a82b29ea5b1240b95e0fbfe83815269c231c8/docs/defi/get-defi-token_overview.md).
 * The V1 token list therefore carries no 24 h price change, and `change` is always `null` here
 * (see {@link PRICE_CHANGE_FROM_V24H_CHANGE_PERCENT}).
 *
 * The API key is sent only in the `X-API-KEY` header; it is never logged and is scrubbed from
 * every error message this module produces.
 */
import { z } from 'zod';

/** Birdeye's public API origin (https://docs.birdeye.so — "Base URL: https://public-api.birdeye.so"). */
export const BIRDEYE_API_URL = 'https://public-api.birdeye.so';

/** Path of Birdeye's "Token - List (V1)" endpoint (see the module docstring for sources). */
const TOKENLIST_PATH = '/defi/tokenlist';

/** Largest `limit` Birdeye accepts on `/defi/tokenlist` ("limit: integer, 1 to 50"). */
export const BIRDEYE_TOKENLIST_MAX_LIMIT = 50;

/**
 * Whether `change` is filled from Birdeye's `v24hChangePercent`. Off, because that field is the
 * 24 h *volume* change (see the module docstring), while the service's `change` is a price change.
 */
export const PRICE_CHANGE_FROM_V24H_CHANGE_PERCENT = false;

/** Longest upstream `message` quoted in an error message (characters). */
const MAX_QUOTED_MESSAGE = 200;

/**
 * One token from Birdeye, in the service's row shape.
 *
 * - `mint`: the token's mint address (Birdeye `address`).
 * - `symbol` / `name`: Birdeye `symbol` / `name`; `null` when Birdeye has it null, missing or blank
 *   (a client shows `mint` as an address then, never as a name).
 * - `price`: USD price per whole token (Birdeye `price`); always finite and ≥ 0.
 * - `marketCap`: USD market cap (Birdeye `mc`), or `null` when Birdeye has none.
 * - `volume`: 24 h trading volume in USD (Birdeye `v24hUSD`); always finite and ≥ 0.
 * - `change`: 24 h price change in percent (e.g. `-1.48` = −1.48 %), or `null` when Birdeye has
 *   none — which is always the case for `/defi/tokenlist`: its only change field,
 *   `v24hChangePercent`, is the 24 h volume change (see the module docstring and
 *   {@link PRICE_CHANGE_FROM_V24H_CHANGE_PERCENT}).
 * - `timestamp`: last trade time in Unix **milliseconds** (Birdeye `lastTradeUnixTime` is seconds,
 *   multiplied by 1000), or `null` when Birdeye has none.
 */
export interface UpstreamToken {
  readonly mint: string;
  readonly symbol: string | null;
  readonly name: string | null;
  readonly price: number;
  readonly marketCap: number | null;
  readonly volume: number;
  readonly change: number | null;
  readonly timestamp: number | null;
}

/** Why a Birdeye request failed; see {@link BirdeyeError}. */
export type BirdeyeErrorReason = 'timeout' | 'http' | 'unreachable' | 'malformed' | 'unsuccessful';

/**
 * A failed Birdeye request. The caller is expected to catch it and fall back to its own figures.
 *
 * `reason`:
 * - `'timeout'`: no complete answer (headers and body) within `timeoutMs`.
 * - `'http'`: Birdeye answered with a non-2xx status (`status` is set; e.g. 401 for a wrong or
 *   missing key, 429 when rate limited, 5xx on Birdeye's side).
 * - `'unreachable'`: the request could not be sent or the connection broke (DNS, refused, reset).
 * - `'malformed'`: a 2xx answer that is not JSON or does not match the documented shape.
 * - `'unsuccessful'`: a 2xx answer with `success: false` (Birdeye's own failure flag).
 *
 * `cause` holds the underlying error (fetch/abort error, JSON or zod error) when there is one.
 * The message never contains the API key.
 */
export class BirdeyeError extends Error {
  /** Category of the failure; stable, meant for metrics and fallback decisions. */
  readonly reason: BirdeyeErrorReason;
  /** HTTP status, set for `'http'` (and for `'malformed'`/`'unsuccessful'`, which come with a 2xx). */
  readonly status?: number;

  constructor(reason: BirdeyeErrorReason, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BirdeyeError';
    this.reason = reason;
    if (options.status !== undefined) this.status = options.status;
  }
}

/** A client for Birdeye's token list. */
export interface BirdeyeClient {
  /**
   * The top Solana tokens by 24 h USD volume, highest first (Birdeye's order), at most `limit`.
   *
   * Requests `min(limit, 50)` tokens (Birdeye's cap on `/defi/tokenlist`). Tokens whose `price` or
   * `v24hUSD` is null, missing, non-finite or negative are dropped, so fewer than `limit` may come
   * back. `limit` must be an integer ≥ 1 (otherwise a `RangeError` is thrown before any request).
   *
   * @throws {BirdeyeError} on timeout, non-2xx status, network failure, malformed body or
   *   `success: false`.
   */
  listTokens(limit: number): Promise<UpstreamToken[]>;
}

/** Options for {@link createBirdeyeClient}. */
export interface BirdeyeClientOptions {
  /** Birdeye API key, sent as the `X-API-KEY` header. Never logged, never put in error messages. */
  apiKey: string;
  /** API origin (optionally with a path prefix); defaults to {@link BIRDEYE_API_URL}. */
  baseUrl?: string;
  /** Overall budget per request in milliseconds (headers and body), enforced with `AbortSignal.timeout`. */
  timeoutMs: number;
  /** `fetch` implementation; defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

// --- Response schemas (https://docs.birdeye.so/reference/get-defi-tokenlist) -------------------
// Objects are not `.strict()`: Birdeye adds fields over time (e.g. `isScaledUiToken`, `multiplier`
// in the current example), which must not break us. Every field we read is type-checked; fields
// Birdeye may leave empty are nullable.

const nullableNumber = z.number().nullable().optional();
const nullableString = z.string().nullable().optional();

const tokenSchema = z.object({
  address: z.string().min(1),
  decimals: nullableNumber,
  price: nullableNumber,
  lastTradeUnixTime: nullableNumber,
  liquidity: nullableNumber,
  logoURI: nullableString,
  mc: nullableNumber,
  name: nullableString,
  symbol: nullableString,
  v24hChangePercent: nullableNumber,
  v24hUSD: nullableNumber,
});

const successSchema = z.object({
  success: z.literal(true),
  data: z.object({
    updateUnixTime: nullableNumber,
    updateTime: nullableString,
    tokens: z.array(tokenSchema),
    total: nullableNumber,
  }),
});

/** Just enough of the envelope to tell success from failure. */
const envelopeSchema = z.object({
  success: z.boolean(),
  message: z.string().optional(),
});

type BirdeyeToken = z.infer<typeof tokenSchema>;

/**
 * Creates a {@link BirdeyeClient} for Birdeye's "Token - List (V1)" endpoint on Solana.
 *
 * Each `listTokens(limit)` call issues one
 * `GET {baseUrl}/defi/tokenlist?sort_by=v24hUSD&sort_type=desc&offset=0&limit=min(limit, 50)` with
 * headers `X-API-KEY`, `x-chain: solana` and `accept: application/json`, bounded by
 * `AbortSignal.timeout(timeoutMs)`. No retries, no caching: the caller decides both.
 */
export function createBirdeyeClient(options: BirdeyeClientOptions): BirdeyeClient {
  const { apiKey, timeoutMs } = options;
  const base = (options.baseUrl ?? BIRDEYE_API_URL).replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError('Birdeye timeoutMs must be a positive number');

  /** Removes the API key from text that may echo request details. */
  const scrub = (text: string): string => (apiKey.length > 0 ? text.split(apiKey).join('[redacted]') : text);

  return {
    async listTokens(limit: number): Promise<UpstreamToken[]> {
      if (!Number.isInteger(limit) || limit < 1) throw new RangeError('Birdeye listTokens limit must be an integer >= 1');
      const requested = Math.min(limit, BIRDEYE_TOKENLIST_MAX_LIMIT);
      const query = new URLSearchParams({ sort_by: 'v24hUSD', sort_type: 'desc', offset: '0', limit: String(requested) });
      const url = `${base}${TOKENLIST_PATH}?${query.toString()}`;

      let status = 0;
      let bodyText: string;
      try {
        const response = await doFetch(url, {
          method: 'GET',
          headers: { 'X-API-KEY': apiKey, 'x-chain': 'solana', accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        // Read the body under the same deadline (the signal also aborts the body stream).
        bodyText = await response.text();
      } catch (error) {
        if (isTimeout(error)) {
          throw new BirdeyeError('timeout', `Birdeye token list did not answer within ${timeoutMs} ms`, { cause: error });
        }
        const where = status === 0 ? 'request failed' : `connection broke while reading the HTTP ${status} body`;
        throw new BirdeyeError('unreachable', scrub(`Birdeye token list ${where}: ${describe(error)}`), { cause: error });
      }

      if (status < 200 || status > 299) {
        const upstream = upstreamMessage(bodyText);
        throw new BirdeyeError('http', scrub(`Birdeye token list answered HTTP ${status}${upstream === undefined ? '' : `: ${upstream}`}`), { status });
      }

      let json: unknown;
      try {
        json = JSON.parse(bodyText);
      } catch {
        // No `cause`: V8's SyntaxError quotes the start of the body, which could echo request details.
        throw new BirdeyeError('malformed', `Birdeye token list answered HTTP ${status} with a body that is not JSON`, { status });
      }

      const envelope = envelopeSchema.safeParse(json);
      if (!envelope.success) {
        throw new BirdeyeError('malformed', `Birdeye token list answer has no boolean "success" field`, { status, cause: envelope.error });
      }
      if (!envelope.data.success) {
        const upstream = envelope.data.message === undefined ? undefined : quote(envelope.data.message);
        throw new BirdeyeError('unsuccessful', scrub(`Birdeye token list answered success: false${upstream === undefined ? '' : `: ${upstream}`}`), { status });
      }

      const parsed = successSchema.safeParse(json);
      if (!parsed.success) {
        throw new BirdeyeError('malformed', `Birdeye token list answer does not match the documented shape: ${summarize(parsed.error)}`, {
          status,
          cause: parsed.error,
        });
      }

      const rows: UpstreamToken[] = [];
      for (const token of parsed.data.data.tokens) {
        const row = toRow(token);
        if (row !== null) rows.push(row);
        if (rows.length === requested) break;
      }
      return rows;
    },
  };
}

/** Maps one Birdeye token to the row shape, or `null` when it has no usable price or volume. */
function toRow(token: BirdeyeToken): UpstreamToken | null {
  const price = nonNegative(token.price);
  const volume = nonNegative(token.v24hUSD);
  if (price === null || volume === null) return null;
  const lastTradeSeconds = finite(token.lastTradeUnixTime);
  return {
    mint: token.address,
    symbol: nonBlank(token.symbol),
    name: nonBlank(token.name),
    price,
    marketCap: nonNegative(token.mc),
    volume,
    change: PRICE_CHANGE_FROM_V24H_CHANGE_PERCENT ? finite(token.v24hChangePercent) : null,
    timestamp: lastTradeSeconds === null || lastTradeSeconds <= 0 ? null : Math.round(lastTradeSeconds * 1000),
  };
}

function finite(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function nonNegative(value: number | null | undefined): number | null {
  const n = finite(value);
  return n !== null && n >= 0 ? n : null;
}

function nonBlank(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : null;
}

/** True for the `TimeoutError` that `AbortSignal.timeout` raises (from fetch or from the body read). */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** A short description of a fetch failure, including undici's `cause` code (e.g. ECONNREFUSED). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${error.message} (${code ?? cause.message})`;
  }
  return error.message;
}

/** Birdeye's `message` from an error body (`{success:false, message}`), else a short text excerpt. */
function upstreamMessage(bodyText: string): string | undefined {
  try {
    const parsed = envelopeSchema.safeParse(JSON.parse(bodyText));
    if (parsed.success && parsed.data.message !== undefined) return quote(parsed.data.message);
  } catch {
    // not JSON: fall through to the raw excerpt
  }
  const text = bodyText.trim();
  return text.length > 0 ? quote(text) : undefined;
}

function quote(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_QUOTED_MESSAGE ? `${oneLine.slice(0, MAX_QUOTED_MESSAGE)}…` : oneLine;
}

/** The first few zod issues as `path: message`, for the error message. */
function summarize(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
