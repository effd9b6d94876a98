/**
 * Native NATS usage from nats-server's own statistics (docs/nats.md "Usage"), through the system-account
 * connection.
 *
 * Why per connection, not per account: nats-server's account statistics (`$SYS.REQ.ACCOUNT.PING.STATZ`,
 * `sent`) count a message on the account whose subscription list matched it — for a stream import that is
 * the exporting TRADEWIND account (shadow subscriptions; server/client.go processMsgResults adds to
 * `acc.stats.outMsgs` of the publisher's account), so a customer account's `sent` stays 0 however much it
 * receives (measured on nats-server 2.9.10, 2.10.27 and 2.15.1). What each connection was sent is
 * counted on the connection itself (client.go deliverMsg: `client.outMsgs++`, `client.outBytes += size`),
 * reported by CONNZ as `out_msgs` / `out_bytes`, for open connections and for the server's ring of recently
 * closed ones (`max_closed_clients`, default 10 000) with their final values.
 *
 * Each poll gathers `$SYS.REQ.SERVER.PING.CONNZ` (`{"state": 2, "auth": true}`: open and closed connections with their
 * accounts, pages of `pageSize` by
 * connection id, further pages from `$SYS.REQ.SERVER.<id>.CONNZ`) from every server that answers within
 * `gatherMs`, keeps the connections of customer accounts, and in one PostgreSQL transaction, under a
 * transaction-level advisory lock (one replica polls at a time; the others skip), compares each
 * (server id, connection id) with its last-seen counters (domain/usage.ts counterDelta), adds the deltas to
 * `usage_daily` on the UTC day of the server's sample time and stores the new counters. A sample not newer than
 * the stored one (a replica that read before another committed) adds nothing. Counters not seen for
 * `retentionMs` are deleted (closed and evicted from the server's ring, or the server is gone).
 *
 * `conns` for `GET /api/usage`: `$SYS.REQ.ACCOUNT.PING.STATZ` with `{"accounts": [A…], "include_unused": true}`
 * (server/events.go, AccountStatzOptions), summed over the servers that answer.
 */
import type { NatsConnection } from '@tradewind/lib';
import { sql, type Kysely, type Logger, type Transaction } from '@tradewind/lib';
import { Counter, type Registry } from 'prom-client';
import type { CredentialIssuerDatabase } from '../db/schema.js';
import { counterDelta, utcDay } from '../domain/usage.js';

/** ConnState ConnAll of nats-server's monitor (server/monitor.go): open and closed connections. */
const CONN_STATE_ALL = 2;

/** Subject every server answers with its CONNZ (server/events.go serverPingReqSubj "CONNZ"). */
const CONNZ_PING = '$SYS.REQ.SERVER.PING.CONNZ';

/** Subject one server answers with its CONNZ (server/events.go serverDirectReqSubj). */
const connzOf = (serverId: string) => `$SYS.REQ.SERVER.${serverId}.CONNZ`;

/** Subject every server answers with per-account statistics (server/events.go accPingReqSubj "STATZ"). */
const ACCOUNT_STATZ_PING = '$SYS.REQ.ACCOUNT.PING.STATZ';

/** Key of the advisory lock that serialises polls across replicas. */
const POLL_LOCK = 'credential-issuer:usage-nats-poll';

/** One connection as CONNZ reports it (server/monitor.go ConnInfo), the fields read here. */
interface ConnInfo {
  cid: number;
  account?: string;
  out_msgs: number;
  out_bytes: number;
}

/** One server's CONNZ reply (server/events.go ServerAPIResponse with monitor.go Connz). */
interface ConnzReply {
  server?: { id?: string };
  data?: { server_id?: string; now?: string; total?: number; offset?: number; limit?: number; connections?: ConnInfo[] };
  error?: { code?: number; description?: string };
}

/** Every connection one server reported, with the server's time of the sample. */
export interface ServerSample {
  serverId: string;
  sampledAtMs: number;
  connections: ConnInfo[];
}

export interface NatsUsageOptions {
  db: Kysely<CredentialIssuerDatabase>;
  /** System-account connection. */
  sysNc: NatsConnection;
  logger: Logger;
  registry: Registry;
  /** USAGE_NATS_POLL_INTERVAL_MS: time between two polls, ms. */
  intervalMs: number;
  /** USAGE_NATS_GATHER_MS: how long a poll (and the connections figure) waits for servers' replies, ms. */
  gatherMs: number;
  /** USAGE_NATS_CONNZ_PAGE_SIZE: connections per CONNZ page. */
  pageSize: number;
  /** USAGE_NATS_COUNTER_RETENTION_MS: last-seen counters not seen for this long are deleted, ms. */
  retentionMs: number;
}

/** The outcome of one poll. */
export type PollResult =
  | { outcome: 'ok'; servers: number; connections: number; messages: number; bytes: number }
  | { outcome: 'skipped' }
  | { outcome: 'no_servers' };

/** The native-usage poller and the native connections figure. */
export function createNatsUsage(options: NatsUsageOptions) {
  const { db, sysNc, logger } = options;
  const registers = [options.registry];
  const polls = new Counter({
    name: 'tradewind_credential_issuer_usage_nats_polls_total',
    help: 'Polls of the native connections counters (CONNZ) by outcome: ok, skipped (another replica held the lock), no_servers (no reply), failed',
    labelNames: ['outcome'],
    registers,
  });
  const messages = new Counter({
    name: 'tradewind_credential_issuer_usage_nats_messages_total',
    help: 'Messages nats-server sent to customer connections, as added to usage_daily by this process (all customers together)',
    registers,
  });
  const bytes = new Counter({
    name: 'tradewind_credential_issuer_usage_nats_bytes_total',
    help: 'Bytes (headers and payload, as nats-server counts out_bytes) sent to customer connections, as added to usage_daily by this process',
    registers,
  });
  for (const outcome of ['ok', 'skipped', 'no_servers', 'failed']) polls.inc({ outcome }, 0);

  const gather = async (subject: string, body: unknown, strategy: 'timer' | 'count'): Promise<ConnzReply[]> => {
    const replies: ConnzReply[] = [];
    const it = await sysNc.requestMany(subject, JSON.stringify(body), {
      strategy,
      maxWait: options.gatherMs,
      ...(strategy === 'count' ? { maxMessages: 1 } : {}),
    });
    for await (const msg of it) replies.push(msg.json<ConnzReply>());
    return replies;
  };

  /** CONNZ of every server that answers: all pages. */
  const sample = async (): Promise<ServerSample[]> => {
    // `auth`: without it CONNZ leaves out each connection's account (server/monitor.go ConnzOptions.Username).
    const page = (offset: number) => ({ state: CONN_STATE_ALL, auth: true, limit: options.pageSize, offset });
    const samples: ServerSample[] = [];
    for (const first of await gather(CONNZ_PING, page(0), 'timer')) {
      const serverId = first.data?.server_id ?? first.server?.id;
      if (!serverId || !first.data) {
        logger.warn({ server: serverId, error: first.error }, 'a nats-server answered CONNZ with an error');
        continue;
      }
      const connections = [...(first.data.connections ?? [])];
      let data = first.data;
      while ((data.offset ?? 0) + (data.connections?.length ?? 0) < (data.total ?? 0) && (data.connections?.length ?? 0) > 0) {
        const [next] = await gather(connzOf(serverId), page((data.offset ?? 0) + (data.connections?.length ?? 0)), 'count');
        if (!next?.data) break;
        data = next.data;
        connections.push(...(data.connections ?? []));
      }
      samples.push({ serverId, sampledAtMs: Date.parse(first.data.now ?? '') || Date.now(), connections });
    }
    return samples;
  };

  /** Adds one set of samples to usage_daily; see the file comment. */
  const store = async (samples: readonly ServerSample[]): Promise<PollResult> => {
    const accounts = [...new Set(samples.flatMap((s) => s.connections.map((c) => c.account).filter((a): a is string => !!a)))];
    const customers =
      accounts.length === 0
        ? new Set<string>()
        : new Set(
            (await db.selectFrom('customers').select('account_public_key').where('account_public_key', 'in', accounts).execute()).map(
              (r) => r.account_public_key,
            ),
          );
    return db.transaction().execute(async (trx) => {
      const locked = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext(${POLL_LOCK})) AS locked`.execute(trx);
      if (!locked.rows[0]?.locked) return { outcome: 'skipped' } as const;
      const totals = new Map<string, { limit_key: string; day: string; messages: number; bytes: number }>();
      let connections = 0;
      for (const s of samples) {
        const mine = s.connections.filter((c) => c.account !== undefined && customers.has(c.account));
        if (mine.length === 0) continue;
        const stored = new Map(
          (
            await trx
              .selectFrom('nats_connection_counters')
              .select(['cid', 'out_msgs', 'out_bytes', 'sampled_at'])
              .where('server_id', '=', s.serverId)
              .where(
                'cid',
                'in',
                mine.map((c) => String(c.cid)),
              )
              .execute()
          ).map((r) => [Number(r.cid), r]),
        );
        const sampledAt = new Date(s.sampledAtMs);
        const day = utcDay(s.sampledAtMs);
        const rows = [];
        for (const c of mine) {
          const last = stored.get(c.cid);
          // Not newer than what is stored: another replica already counted a later sample.
          if (last && last.sampled_at.getTime() >= s.sampledAtMs) continue;
          connections++;
          const dm = counterDelta(c.out_msgs, last ? Number(last.out_msgs) : undefined);
          const db_ = counterDelta(c.out_bytes, last ? Number(last.out_bytes) : undefined);
          rows.push({ server_id: s.serverId, cid: c.cid, account_public_key: c.account!, out_msgs: c.out_msgs, out_bytes: c.out_bytes, sampled_at: sampledAt });
          if (dm === 0 && db_ === 0) continue;
          const key = `${c.account}\n${day}`;
          const t = totals.get(key) ?? { limit_key: c.account!, day, messages: 0, bytes: 0 };
          t.messages += dm;
          t.bytes += db_;
          totals.set(key, t);
        }
        if (rows.length > 0) {
          await trx
            .insertInto('nats_connection_counters')
            .values(rows)
            .onConflict((oc) =>
              oc.columns(['server_id', 'cid']).doUpdateSet({
                account_public_key: (eb) => eb.ref('excluded.account_public_key'),
                out_msgs: (eb) => eb.ref('excluded.out_msgs'),
                out_bytes: (eb) => eb.ref('excluded.out_bytes'),
                sampled_at: (eb) => eb.ref('excluded.sampled_at'),
              }),
            )
            .execute();
        }
      }
      let sumMessages = 0;
      let sumBytes = 0;
      for (const t of totals.values()) {
        sumMessages += t.messages;
        sumBytes += t.bytes;
      }
      await addUsage(trx, 'nats', [...totals.values()]);
      await trx
        .deleteFrom('nats_connection_counters')
        .where('sampled_at', '<', new Date(Date.now() - options.retentionMs))
        .execute();
      return { outcome: 'ok', servers: samples.length, connections, messages: sumMessages, bytes: sumBytes } as const;
    });
  };

  /** One poll. Never throws: a failure is logged and counted, and the next poll catches up (the counters are cumulative). */
  const poll = async (): Promise<PollResult | { outcome: 'failed' }> => {
    try {
      const samples = await sample();
      if (samples.length === 0) {
        polls.inc({ outcome: 'no_servers' });
        return { outcome: 'no_servers' };
      }
      const result = await store(samples);
      polls.inc({ outcome: result.outcome });
      if (result.outcome === 'ok') {
        messages.inc(result.messages);
        bytes.inc(result.bytes);
      }
      return result;
    } catch (err) {
      polls.inc({ outcome: 'failed' });
      logger.warn({ err }, 'polling native usage (CONNZ) failed; the next poll catches up');
      return { outcome: 'failed' };
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  return {
    poll,
    /** Adds given samples (tests of the counting; a poll gathers them itself). */
    store,
    /**
     * Native connections of `account` open now, summed over the servers that answered STATZ; null when none answered
     * within `gatherMs` (not measurable now).
     */
    async connections(account: string): Promise<number | null> {
      try {
        const it = await sysNc.requestMany(ACCOUNT_STATZ_PING, JSON.stringify({ accounts: [account], include_unused: true }), {
          strategy: 'stall',
          stall: 100,
          maxWait: options.gatherMs,
        });
        let answered = false;
        let conns = 0;
        for await (const msg of it) {
          const reply = msg.json<{ data?: { account_statz?: Array<{ acc: string; conns: number }> } }>();
          if (!reply.data) continue;
          answered = true;
          for (const stat of reply.data.account_statz ?? []) if (stat.acc === account) conns += stat.conns;
        }
        return answered ? conns : null;
      } catch (err) {
        logger.warn({ err }, 'native connections (STATZ) could not be read');
        return null;
      }
    },
    start(): void {
      timer = setInterval(() => {
        running ??= poll().finally(() => {
          running = undefined;
        });
      }, options.intervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

/** The native usage of one app. */
export type NatsUsage = ReturnType<typeof createNatsUsage>;

/**
 * Adds messages and bytes to `usage_daily` (one statement; rows of one key and day are summed first, as one
 * INSERT … ON CONFLICT may not touch a row twice).
 */
export async function addUsage(
  trx: Transaction<CredentialIssuerDatabase>,
  transport: 'websocket' | 'nats',
  rows: ReadonlyArray<{ limit_key: string; day: string; messages: number | bigint; bytes: number | bigint }>,
): Promise<void> {
  const merged = new Map<string, { limit_key: string; day: string; messages: bigint; bytes: bigint }>();
  for (const r of rows) {
    const key = `${r.limit_key}\n${r.day}`;
    const m = merged.get(key) ?? { limit_key: r.limit_key, day: r.day, messages: 0n, bytes: 0n };
    m.messages += BigInt(r.messages);
    m.bytes += BigInt(r.bytes);
    merged.set(key, m);
  }
  if (merged.size === 0) return;
  await trx
    .insertInto('usage_daily')
    .values([...merged.values()].map((m) => ({ limit_key: m.limit_key, day: m.day, transport, messages: m.messages.toString(), bytes: m.bytes.toString() })))
    .onConflict((oc) =>
      oc.columns(['limit_key', 'day', 'transport']).doUpdateSet({
        messages: sql`usage_daily.messages + excluded.messages`,
        bytes: sql`usage_daily.bytes + excluded.bytes`,
      }),
    )
    .execute();
}
