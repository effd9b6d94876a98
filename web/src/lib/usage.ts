/**
 * The dashboard's Usage page (issue 34): `GET /api/usage` (credential-issuer, docs/nats.md "Usage";
 * the body is `UsageReport` of `@tradewind/contracts/usage`) and the wording of its figures.
 * Pure functions but {@link fetchUsage}: same input, same string, no dependence on the browser's
 * locale or time zone (the report's days are UTC days, and so are the labels).
 */
import type { DeliveredCount, InUse, UsageDay, UsageReport } from '@tradewind/contracts/usage';
import { apiFetch } from '../api';

export type { DeliveredCount, InUse, UsageDay, UsageReport };

/** The page reloads the report this often while the tab is visible (ms); a hidden tab does not reload. */
export const USAGE_REFRESH_MS = 30_000;

/** The two transports the report measures, in the order the page shows them. */
export const USAGE_TRANSPORTS = ['websocket', 'nats'] as const;
export type UsageTransport = (typeof USAGE_TRANSPORTS)[number];

/** How the page names each transport. */
export const TRANSPORT_LABEL: Readonly<Record<UsageTransport, string>> = { websocket: 'WebSocket', nats: 'Native NATS' };

/** Message of an answer that does not have the documented shape. */
export const MALFORMED_USAGE_MESSAGE = 'The usage service sent an answer this page cannot read.';

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function isDelivered(v: unknown): v is DeliveredCount {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Record<string, unknown>;
  return isCount(d.messages) && isCount(d.bytes);
}

function isInUse(v: unknown): v is InUse {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Record<string, unknown>;
  return (d.in_use === null || isCount(d.in_use)) && isCount(d.limit);
}

function isDay(v: unknown): v is UsageDay {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Record<string, unknown>;
  return typeof d.day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d.day) && isDelivered(d.websocket) && isDelivered(d.nats);
}

/** Whether `v` has the shape of {@link UsageReport} (every figure a finite number ≥ 0, days `YYYY-MM-DD`). */
export function isUsageReport(v: unknown): v is UsageReport {
  if (v === null || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  const totals = r.totals as Record<string, unknown> | null | undefined;
  const connections = r.connections as Record<string, unknown> | null | undefined;
  return (
    typeof r.plan === 'string' &&
    typeof r.generated_at === 'string' &&
    isCount(r.report_interval_ms) &&
    Array.isArray(r.days) &&
    r.days.every(isDay) &&
    totals !== null &&
    typeof totals === 'object' &&
    isDelivered(totals.websocket) &&
    isDelivered(totals.nats) &&
    connections !== null &&
    typeof connections === 'object' &&
    isInUse(connections.websocket) &&
    isInUse(connections.nats) &&
    isInUse(r.requests_per_minute)
  );
}

/**
 * `GET /api/usage` with the session's access token.
 * @throws ApiError with the server's status and message (web/src/api.ts); Error with
 * {@link MALFORMED_USAGE_MESSAGE} when the body is not a {@link UsageReport}.
 */
export async function fetchUsage(token: string, signal?: AbortSignal): Promise<UsageReport> {
  const body = await apiFetch<unknown>('/api/usage', { token, ...(signal ? { signal } : {}) });
  if (!isUsageReport(body)) throw new Error(MALFORMED_USAGE_MESSAGE);
  return body;
}

const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A count with thousands separators: 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  return INTEGER.format(n);
}

/** Decimal byte units (1 KB = 1,000 bytes), as network traffic is counted. */
const BYTE_UNITS = ['KB', 'MB', 'GB', 'TB', 'PB'] as const;

/**
 * Bytes in decimal units, one decimal from KB up: 0 → "0 B", 999 → "999 B", 1500 → "1.5 KB",
 * 2_345_678 → "2.3 MB", 5e9 → "5.0 GB". The unit is chosen by the rounded value, so 999,960 bytes
 * read "1.0 MB", not "1,000.0 KB"; beyond PB the figure grows with thousands separators.
 */
export function formatBytes(bytes: number): string {
  if (Math.abs(bytes) < 1000) return `${formatCount(bytes)} B`;
  let value = bytes / 1000;
  let unit = 0;
  while (unit < BYTE_UNITS.length - 1 && Math.abs(Number(value.toFixed(1))) >= 1000) {
    value /= 1000;
    unit += 1;
  }
  return `${ONE_DECIMAL.format(value)} ${BYTE_UNITS[unit]}`;
}

/** Bytes for a chart's axis: as {@link formatBytes} without a trailing ".0" ("80 MB", "2.5 GB", "0 B"). */
export function formatBytesShort(bytes: number): string {
  return formatBytes(bytes).replace(/\.0 /, ' ');
}

/**
 * A count shortened for a chart's axis: 950 → "950", 1500 → "1.5K", 2_000_000 → "2M" (one decimal
 * at most, dropped when it is 0; the unit chosen by the rounded value).
 */
export function formatCountShort(n: number): string {
  const units: Array<[number, string]> = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ];
  for (const [size, suffix] of units) {
    if (Math.abs(n) >= size * 0.99995) return `${Number((n / size).toFixed(1))}${suffix}`;
  }
  return formatCount(n);
}

function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * A duration in plain words, rounded up to whole seconds: 500 → "1 second", 30_000 → "30 seconds",
 * 60_000 → "1 minute", 90_000 → "1 minute 30 seconds", 3_600_000 → "1 hour".
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts = [h ? plural(h, 'hour') : '', m ? plural(m, 'minute') : '', s ? plural(s, 'second') : ''].filter(Boolean);
  return parts.length ? parts.join(' ') : '0 seconds';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** A report day (`YYYY-MM-DD`, UTC) as the chart's axis shows it: "2026-11-30" → "30 Nov". */
export function dayLabel(day: string): string {
  const [, m, d] = day.split('-');
  return `${Number(d)} ${MONTHS[Number(m) - 1] ?? m}`;
}

/** A report day in full for the table and the chart's legend: "2026-11-30" → "30 Nov 2026". */
export function dayLabelLong(day: string): string {
  return `${dayLabel(day)} ${day.slice(0, 4)}`;
}

/** What a meter shows when the server could not count it (`in_use: null`). */
export const NOT_MEASURABLE = 'not measurable right now';

/**
 * A meter's sentence: "1 of 1 WebSocket connections", "37 of 1,000 requests in the last minute";
 * `in_use` null → "Native NATS connections: not measurable right now (limit 1)" (first letter capitalised).
 * @param what the plural noun phrase after the numbers ("WebSocket connections").
 */
export function inUseText(m: InUse, what: string): string {
  if (m.in_use === null) return `${what.charAt(0).toUpperCase()}${what.slice(1)}: ${NOT_MEASURABLE} (limit ${formatCount(m.limit)})`;
  return `${formatCount(m.in_use)} of ${formatCount(m.limit)} ${what}`;
}

/** How full a meter is, 0–1 (over the limit counts as full; null when not measurable or the limit is 0). */
export function inUseRatio(m: InUse): number | null {
  if (m.in_use === null || m.limit <= 0) return null;
  return Math.min(1, m.in_use / m.limit);
}

/** Whether any day of the report delivered anything on either transport. */
export function hasTraffic(report: UsageReport): boolean {
  return USAGE_TRANSPORTS.some((t) => report.totals[t].messages > 0 || report.totals[t].bytes > 0);
}

/**
 * The note under the figures: how late they can be and the day they are counted in, e.g.
 * "Measured by the servers that delivered the data, per UTC day. Figures can lag delivery by up to 1 minute."
 */
export function lagNote(report: Pick<UsageReport, 'report_interval_ms'>): string {
  return `Measured by the servers that delivered the data, per UTC day (00:00–24:00 UTC). Figures can lag delivery by up to ${formatDuration(report.report_interval_ms)}.`;
}
