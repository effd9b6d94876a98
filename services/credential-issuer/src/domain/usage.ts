/**
 * Usage metering, the pure part (docs/nats.md "Usage"): how a cumulative nats-server counter becomes a
 * delta, the UTC days of `GET /api/usage`, and the report assembled from stored rows. No I/O.
 */
import { USAGE_DAYS, type DeliveredCount, type UsageDay } from '@tradewind/contracts';

/** Transports usage is stored for (`usage_daily.transport`). */
export type UsageTransport = 'websocket' | 'nats';

/** One stored day of one transport (`usage_daily`): bigint columns read as strings or numbers. */
export interface StoredUsageDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  readonly transport: UsageTransport;
  readonly messages: number;
  readonly bytes: number;
}

/**
 * What a cumulative per-connection counter of nats-server (`out_msgs` / `out_bytes` of a connection in
 * CONNZ, counted since the connection started on that server) adds since it was last seen.
 * - never seen: the whole value (the connection is new to us);
 * - not lower than last seen: the difference;
 * - lower than last seen: the counter started again (a server restart that kept its server id, so the
 *   connection id was reused); the new value is all new.
 * @param current the value now (≥ 0).
 * @param last the value last stored for the same (server id, connection id), or undefined.
 */
export function counterDelta(current: number, last: number | undefined): number {
  if (last === undefined || current < last) return current;
  return current - last;
}

/** `YYYY-MM-DD` (UTC) of `ms` since the epoch. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The {@link USAGE_DAYS} UTC days ending with the day of `nowMs`, oldest first. */
export function usageDays(nowMs: number): string[] {
  const today = Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), new Date(nowMs).getUTCDate());
  const days: string[] = [];
  for (let i = USAGE_DAYS - 1; i >= 0; i--) days.push(utcDay(today - i * 86_400_000));
  return days;
}

/**
 * The report's `days` (every one of `days`, zeros where nothing is stored) and their `totals`.
 * @param rows stored rows; rows outside `days` are ignored.
 */
export function fillUsageDays(
  days: readonly string[],
  rows: readonly StoredUsageDay[],
): { days: UsageDay[]; totals: { websocket: DeliveredCount; nats: DeliveredCount } } {
  const byDay = new Map(days.map((day) => [day, { websocket: { messages: 0, bytes: 0 }, nats: { messages: 0, bytes: 0 } }]));
  for (const row of rows) {
    const entry = byDay.get(row.day);
    if (!entry) continue;
    entry[row.transport].messages += Number(row.messages);
    entry[row.transport].bytes += Number(row.bytes);
  }
  const totals = { websocket: { messages: 0, bytes: 0 }, nats: { messages: 0, bytes: 0 } };
  const out: UsageDay[] = [];
  for (const [day, entry] of byDay) {
    for (const t of ['websocket', 'nats'] as const) {
      totals[t].messages += entry[t].messages;
      totals[t].bytes += entry[t].bytes;
    }
    out.push({ day, websocket: entry.websocket, nats: entry.nats });
  }
  return { days: out, totals };
}
