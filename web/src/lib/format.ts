/**
 * Formatting of the home page's live token panel (`GET /api/birdeye/tokens`, docs/token-price.md).
 * Pure functions: same input, same string, no locale dependence (figures use `.` and no grouping).
 * Every formatter answers "N/A" for null, undefined, NaN or ±Infinity, so a missing figure is
 * never shown as zero.
 */

/**
 * One row of `GET /api/birdeye/tokens` (docs/token-price.md): the product's live token row
 * (`symbol, name, price, marketCap, volume, change, timestamp`) plus token-price's honesty fields.
 * `price`, `marketCap`, `volume` are USD (null without a SOL/USD rate); the `*Sol` fields are the
 * same figures in SOL; `symbol`/`name` are null when the token was never seen created (show the mint
 * as an address then). Fields added after the first release are optional.
 */
export interface TokenRow {
  mint: string;
  symbol: string | null;
  name: string | null;
  price: number | null;
  marketCap: number | null;
  volume: number | null;
  change: number | null;
  /** Last trade on the stream, Unix ms (replayed rows: when the latest copy was replayed). */
  timestamp: number | null;
  priceSol: number | null;
  marketCapSol: number | null;
  volumeSol: number | null;
  usdSource: 'stream' | 'config' | 'birdeye' | null;
  /** USD per SOL used for the USD figures. */
  solUsd?: number | null;
  /** When that rate was observed (Unix ms; replayed rows: the recording's chain time). */
  solUsdObservedAt?: number | null;
  replayed: boolean;
  /** Replayed rows: chain time of the token's latest recorded trade (Unix ms), null when unknown. */
  recordedAt?: number | null;
}

/** Longest token name shown before it is cut (characters, counted as Unicode code points). */
export const MAX_NAME_LENGTH = 25;

/** Shown for a figure the API did not give (no SOL/USD rate, unknown supply, no price 24 h ago). */
export const NOT_AVAILABLE = 'N/A';

/** Decimals of a price (USD or SOL per whole token). */
export const PRICE_DECIMALS = 6;

function isFiniteNumber(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * A name cut to {@link MAX_NAME_LENGTH} characters: longer names become their first 25
 * characters followed by "…" (26 characters in all); shorter or equal ones are returned as they
 * are. Leading/trailing whitespace is trimmed first.
 */
export function formatName(name: string): string {
  const chars = Array.from(name.trim());
  return chars.length > MAX_NAME_LENGTH ? `${chars.slice(0, MAX_NAME_LENGTH).join('')}…` : chars.join('');
}

/**
 * A mint address shortened to its first and last four characters, e.g.
 * `ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY` → `ED5n…PJBY` (the same form token-price uses
 * for an unknown symbol). Addresses of 9 characters or fewer are returned unchanged.
 */
export function shortenMint(mint: string): string {
  return mint.length <= 9 ? mint : `${mint.slice(0, 4)}…${mint.slice(-4)}`;
}

/**
 * The label of a token row: its name, else its symbol, else its shortened mint, cut by
 * {@link formatName}. A name or symbol that is just the mint address (what older token-price
 * versions and Birdeye-era rows reported for an unknown token) is shown shortened, like the mint.
 */
export function tokenLabel(row: Pick<TokenRow, 'name' | 'symbol' | 'mint'>): string {
  for (const candidate of [row.name, row.symbol]) {
    const text = candidate?.trim();
    if (!text) continue;
    return text === row.mint ? shortenMint(row.mint) : formatName(text);
  }
  return shortenMint(row.mint);
}

/** The smallest positive amount 6 decimals can show: 0.000001. */
const PRICE_STEP = 10 ** -PRICE_DECIMALS;

/**
 * `value` with exactly {@link PRICE_DECIMALS} decimals, `prefix` before and `suffix` after it; a
 * positive value that would round to 0.000000 reads "<0.000001" instead, so a traded token never
 * reads as free and no extra decimals are shown.
 */
function sixDecimals(value: number, prefix: string, suffix: string): string {
  const fixed = value.toFixed(PRICE_DECIMALS);
  if (value > 0 && Number(fixed) === 0) return `<${prefix}${PRICE_STEP.toFixed(PRICE_DECIMALS)}${suffix}`;
  return `${prefix}${fixed}${suffix}`;
}

/** A USD price with 6 decimals: 0.0001234 → "$0.000123", 1.5 → "$1.500000", 4e-7 → "<$0.000001"; null → "N/A". */
export function formatPrice(usd: number | null | undefined): string {
  return isFiniteNumber(usd) ? sixDecimals(usd, '$', '') : NOT_AVAILABLE;
}

/** A SOL price with 6 decimals and a " SOL" suffix: 0.0001234 → "0.000123 SOL", 3.4e-8 → "<0.000001 SOL"; null → "N/A". */
export function formatPriceSol(sol: number | null | undefined): string {
  return isFiniteNumber(sol) ? sixDecimals(sol, '', ' SOL') : NOT_AVAILABLE;
}

/**
 * A large amount in millions (2 decimals), thousands (1 decimal) or units (2 decimals), choosing
 * the unit by the rounded value so 999 950 reads "1.00M", not "1000.0K", and 999.995 reads
 * "1.0K", not "1000.00".
 */
function compact(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 999_950) return `${(value / 1e6).toFixed(2)}M`;
  if (abs >= 999.995) return `${(value / 1e3).toFixed(1)}K`;
  return value.toFixed(2);
}

/** A USD market cap: ≥ 1 000 000 → "$1.23M", ≥ 1 000 → "$45.6K", else "$999.00"; null → "N/A". */
export function formatMarketCap(usd: number | null | undefined): string {
  return isFiniteNumber(usd) ? `$${compact(usd)}` : NOT_AVAILABLE;
}

/** A SOL market cap, compacted like {@link formatMarketCap}: 33.976 → "33.98 SOL", 45 600 → "45.6K SOL". */
export function formatMarketCapSol(sol: number | null | undefined): string {
  return isFiniteNumber(sol) ? `${compact(sol)} SOL` : NOT_AVAILABLE;
}

/** A USD 24 h volume, always in millions with 2 decimals: 120 000 → "$0.12M", 235.64 → "$0.00M"; null → "N/A". */
export function formatVolume(usd: number | null | undefined): string {
  return isFiniteNumber(usd) ? `$${(usd / 1e6).toFixed(2)}M` : NOT_AVAILABLE;
}

/**
 * A SOL 24 h volume, compacted like {@link formatMarketCapSol} (SOL amounts are about 1/100 of
 * the USD ones, so "always M" would read 0.00M for nearly every token): 1.570949 → "1.57 SOL".
 */
export function formatVolumeSol(sol: number | null | undefined): string {
  return isFiniteNumber(sol) ? `${compact(sol)} SOL` : NOT_AVAILABLE;
}

/**
 * A 24 h price change in percent, signed, 2 decimals: 1.234 → "+1.23%", -4.5 → "-4.50%",
 * 0 (or anything that rounds to 0.00) → "0.00%"; null (no price 24 h ago) → "N/A".
 */
export function formatChange(percent: number | null | undefined): string {
  if (!isFiniteNumber(percent)) return NOT_AVAILABLE;
  const fixed = Math.abs(percent).toFixed(2);
  if (Number(fixed) === 0) return '0.00%';
  return `${percent > 0 ? '+' : '-'}${fixed}%`;
}

/** Direction of a change for colouring: 'up', 'down', or 'none' (null, or rounds to 0.00). */
export function changeDirection(percent: number | null | undefined): 'up' | 'down' | 'none' {
  const text = formatChange(percent);
  return text.startsWith('+') ? 'up' : text.startsWith('-') ? 'down' : 'none';
}

/** The figures of one token row as shown in the panel. */
export interface TokenFigures {
  label: string;
  /** 'USD' when the API knew a SOL/USD rate for the row (its `price` is set), else 'SOL'. */
  unit: 'USD' | 'SOL';
  price: string;
  marketCap: string;
  volume: string;
  change: string;
  direction: 'up' | 'down' | 'none';
  replayed: boolean;
}

/**
 * Formats a row. USD figures are used when `price` is not null (a SOL/USD rate was known);
 * otherwise the SOL figures (`priceSol`, `marketCapSol`, `volumeSol`) with a " SOL" suffix.
 * A field missing in the chosen unit is "N/A" (e.g. market cap with an unknown supply).
 */
export function tokenFigures(row: TokenRow): TokenFigures {
  const usd = isFiniteNumber(row.price);
  return {
    label: tokenLabel(row),
    unit: usd ? 'USD' : 'SOL',
    price: usd ? formatPrice(row.price) : formatPriceSol(row.priceSol),
    marketCap: usd ? formatMarketCap(row.marketCap) : formatMarketCapSol(row.marketCapSol),
    volume: usd ? formatVolume(row.volume) : formatVolumeSol(row.volumeSol),
    change: formatChange(row.change),
    direction: changeDirection(row.change),
    replayed: row.replayed === true,
  };
}

/**
 * An age in words for notes: under a minute "N s", under an hour "N min", under two days "N h",
 * else "N days" (whole units, rounded down; negative ages read "0 s").
 */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} days`;
}

/** A Unix ms time as its UTC date, "YYYY-MM-DD". */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The one line that says where the panel's USD figures come from, or null when no row has USD.
 * Rows with different sources are summarised by the first USD row's source and rate (stream rows
 * name their observation's age, or its recorded date for replayed rows).
 * @param nowMs wall clock, Unix ms (for the age of a live stream observation).
 */
export function usdSourceNote(rows: readonly TokenRow[], nowMs: number): string | null {
  const row = rows.find((r) => isFiniteNumber(r.price));
  if (!row) return null;
  const rate = isFiniteNumber(row.solUsd) ? ` $${row.solUsd.toFixed(2)}` : '';
  switch (row.usdSource) {
    case 'birdeye':
      return 'USD figures from Birdeye’s token list.';
    case 'config':
      return `USD at the operator-configured SOL/USD rate${rate} (SOL_USD_PRICE), not one measured on the stream.`;
    case 'stream': {
      const at = row.solUsdObservedAt;
      if (!isFiniteNumber(at)) return `USD at SOL/USD${rate} from SOL/USDC or SOL/USDT swaps on our stream.`;
      return row.replayed
        ? `USD at SOL/USD${rate} from a SOL/USDC or SOL/USDT swap in the recording (${formatDate(at)}).`
        : `USD at SOL/USD${rate} from a SOL/USDC or SOL/USDT swap on our stream, ${formatAge(nowMs - at)} ago.`;
    }
    default:
      return null;
  }
}
