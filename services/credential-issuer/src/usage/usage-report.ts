/**
 * `GET /api/usage` (docs/nats.md "Usage"): the signed-in user's `UsageReport` (@tradewind/contracts usage.ts)
 * from `usage_daily`, Redis (WebSocket connections and control requests now, the keys ws-fanout writes:
 * `wsConnectionSlotsKey` / `wsRequestRateKey` of @tradewind/lib) and nats-server (native connections now).
 * Redis or NATS not answering within `liveTimeoutMs` makes that figure null; the stored days are always read.
 */
import { PLANS, type PlanId, type UsageReport } from '@tradewind/contracts';
import { requestRateWindow, sql, weightedRequests, wsConnectionSlotsKey, wsRequestRateKey, type Kysely, type Logger } from '@tradewind/lib';
import type { RedisClientType } from 'redis';
import type { CredentialIssuerDatabase } from '../db/schema.js';
import { fillUsageDays, usageDays, type StoredUsageDay } from '../domain/usage.js';
import type { NatsUsage } from './nats-usage.js';

/** The default `createClient()` type of node-redis. */
// biome-ignore lint/suspicious/noExplicitAny: node-redis's client type is generic over modules and scripts we do not use.
export type Redis = RedisClientType<any, any, any, any, any>;

export interface UsageReportDeps {
  db: Kysely<CredentialIssuerDatabase>;
  /** Redis shared with ws-fanout; absent or failing: the WebSocket in-use figures are null. */
  redis: Redis | undefined;
  natsUsage: Pick<NatsUsage, 'connections'>;
  logger: Logger;
  /** `report_interval_ms`: the larger of USAGE_REPORT_INTERVAL_MS (ws-fanout's, mirrored) and USAGE_NATS_POLL_INTERVAL_MS, ms. */
  reportIntervalMs: number;
  /** REQUEST_RATE_WINDOW_MS: ws-fanout's window of the control-request counter, ms. */
  requestRateWindowMs: number;
  /** USAGE_LIVE_TIMEOUT_MS: longest wait for one Redis read, ms. */
  liveTimeoutMs: number;
  now: () => number;
}

/** `promise`'s value, or undefined when it fails or takes longer than `ms` (logged). */
async function within<T>(promise: Promise<T>, ms: number, what: string, logger: Logger): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } catch (err) {
    logger.warn({ err }, `${what} could not be read`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The report of user `userId`. A user without a customer account yet (never fetched credentials) gets
 * zeros on `fallbackPlan` (the plan in their access token): nothing can have been delivered to them.
 */
export async function usageReport(deps: UsageReportDeps, userId: string, fallbackPlan: PlanId): Promise<UsageReport> {
  const now = deps.now();
  const customer = await deps.db.selectFrom('customers').select(['account_public_key', 'plan']).where('user_id', '=', userId).executeTakeFirst();
  const plan = (customer?.plan as PlanId | undefined) ?? fallbackPlan;
  const limits = PLANS[plan];
  const days = usageDays(now);
  const key = customer?.account_public_key;
  const rows: StoredUsageDay[] = key
    ? (
        await deps.db
          .selectFrom('usage_daily')
          .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'transport', 'messages', 'bytes'])
          .where('limit_key', '=', key)
          .where('day', '>=', days[0]!)
          .where('day', '<=', days.at(-1)!)
          .execute()
      ).map((r) => ({ day: r.day, transport: r.transport, messages: Number(r.messages), bytes: Number(r.bytes) }))
    : [];
  const filled = fillUsageDays(days, rows);

  let wsConnections: number | null = 0;
  let requests: number | null = 0;
  let natsConnections: number | null = 0;
  if (key) {
    const { window, previousWeight } = requestRateWindow(now, deps.requestRateWindowMs);
    const redis = deps.redis;
    const [leases, counters, native] = await Promise.all([
      redis ? within(redis.zCount(wsConnectionSlotsKey(key), `(${now}`, '+inf'), deps.liveTimeoutMs, 'WebSocket connection leases', deps.logger) : undefined,
      redis
        ? within(redis.mGet([wsRequestRateKey(key, window - 1), wsRequestRateKey(key, window)]), deps.liveTimeoutMs, 'WebSocket request counters', deps.logger)
        : undefined,
      deps.natsUsage.connections(key),
    ]);
    wsConnections = leases === undefined ? null : Number(leases);
    requests = counters === undefined ? null : Math.floor(weightedRequests(Number(counters[0] ?? 0), Number(counters[1] ?? 0), previousWeight));
    natsConnections = native;
  }
  return {
    plan,
    generated_at: new Date(now).toISOString(),
    report_interval_ms: deps.reportIntervalMs,
    days: filled.days,
    totals: filled.totals,
    connections: {
      websocket: { in_use: wsConnections, limit: limits.connections },
      nats: { in_use: natsConnections, limit: limits.connections },
    },
    requests_per_minute: { in_use: requests, limit: limits.requestsPerMinute },
  };
}
