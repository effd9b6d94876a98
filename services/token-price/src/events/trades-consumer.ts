/**
 * Consumes TRADES into the Redis store with one ordered pull consumer, in stream order.
 *
 * - **One writer.** Only the holder of the Redis lease (`leader` key) consumes, so trades are applied
 *   in order. The other replicas serve reads and take over when the lease lapses (`leaseMs` after the
 *   holder dies).
 * - **Position.** The store records the last applied stream sequence in the same Lua script as each
 *   change, so Redis, not the broker, is the consumer's position. Each start creates an ordered
 *   consumer (nats.js: ephemeral, one replica, no acknowledgements) beginning right after it, so a
 *   Redis that lost recent writes gets them again. An empty store, or a store built from another
 *   incarnation of the stream, is wiped and rebuilt from the stream's first message.
 * - **Why not a durable.** A durable consumer is a Raft group of its own: after a TRADES node is
 *   SIGKILLed it elects its own leader after the stream's, and positioning it (info, delete, create)
 *   sent three API requests into those elections. `npm run chaos` measured token-price 2–22 s behind
 *   the broker, and on nats-server 2.15 not at all within 30 s in one kill of two; an ordered consumer
 *   needs the stream leader only, like ws-fanout's feeds (docs/token-price.md "NATS failover").
 * - **Failures.** A message that is not a trade message is counted, logged once and skipped (the
 *   position moves past it). A Redis failure stops the loop; it restarts from the recorded position after a delay,
 *   so nothing is skipped and nothing is applied twice.
 */
import { randomBytes } from 'node:crypto';
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { Counter, Gauge } from 'prom-client';
import { SLOTS_SUBJECT, TRADES_STREAM } from '@tradewind/contracts';
import { watchStreamLeader, type Logger, type NatsConnection, type StreamLeaderWatch } from '@tradewind/lib';
import { InvalidTradeMessage, interpretTrade } from '../domain/trade.js';
import type { TokenStore } from '../store/redis-store.js';

/** Counters and gauges the consumer updates. */
export interface ConsumerMetrics {
  /** outcome: applied | duplicate | ignored | invalid. */
  readonly messages: Counter<'outcome'>;
  /** reason of ignored / invalid messages (a fixed set, see domain/trade.ts). */
  readonly skipped: Counter<'reason'>;
  /** Messages of TRADES the consumer has yet to deliver. */
  readonly pending: Gauge;
  readonly restarts: Counter;
}

/** Options of {@link createTradesConsumer}. */
export interface TradesConsumerOptions {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly store: TokenStore;
  readonly logger: Logger;
  readonly metrics: ConsumerMetrics;
  /**
   * Name prefix of the ordered consumers on TRADES (TOKEN_PRICE_CONSUMER, default `token-price`), so operators
   * can tell them apart (`nats consumer ls TRADES`); a random part per start follows it.
   */
  readonly consumerPrefix: string;
  /** Lease holder id of this process. */
  readonly holder: string;
  /** Lease time, ms; renewed every third of it. */
  readonly leaseMs: number;
  /** Messages asked for per pull. */
  readonly batch: number;
  /** Delay before the loop restarts after a failure, ms. */
  readonly retryDelayMs: number;
  /**
   * Idle heartbeat of the consumer's pull requests, ms (config TOKEN_PRICE_IDLE_HEARTBEAT_MS, at least 500):
   * two missed restart the consumer from the stored position.
   */
  readonly idleHeartbeatMs: number;
  /**
   * An ordered consumer the server has not heard from for this long is deleted by the server, ms (a replaced
   * consumer on a dead connection; nats.js honours it for the first server consumer only, docs/reliability.md).
   */
  readonly inactiveThresholdMs?: number;
  /**
   * How often the consumer is checked for silence, ms (config TOKEN_PRICE_STALL_CHECK_MS; 0 = never): one that applied
   * nothing since the previous check while TRADES holds newer messages is restarted from the stored position.
   */
  readonly stallCheckMs: number;
  /** The connection `js`/`jsm` use: its reconnects and TRADES' leader advisories restart the consumer at once (absent: heartbeats and the silence check only). */
  readonly nc?: NatsConnection | undefined;
  /** The clock (Unix ms); injectable for tests. */
  readonly now: () => number;
  /** SOL/USD from configuration, for trades quoted in a USD stablecoin before the stream gave a rate. */
  readonly configuredSolUsd: number | undefined;
  /** How long a SOL/USD observation stays in force, ms (replayed copies: in the recording's chain time). */
  readonly solUsdMaxAgeMs: number;
  /** Smallest SOL reserve of a WSOL/USD pool whose swaps set SOL/USD (SOL). */
  readonly minRatePoolSol: number;
  /** Called with each mint that has no name yet and was never looked up. */
  readonly onNeedsMetadata?: (mint: string) => void;
}

/** A running consumer. */
export interface TradesConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True while this process holds the lease and its loop runs. */
  readonly leading: boolean;
  /** Resolves when every message published so far has been applied (tests, readiness). */
  caughtUp(timeoutMs: number): Promise<void>;
}

const IGNORED_REASONS = new Set([
  'slot_status',
  'no_sol_side',
  'stablecoin_pool',
  'unpriced',
  'rate_pool_too_small',
  'quote_asset',
  'unsupported_quote',
  'no_sol_usd_rate',
]);

/** Creates the TRADES consumer. Nothing runs until `start()`. */
/** A start attempt gave way to a newer one (a restart signal) or to one rebuilding the store: not a failure. */
class SupersededError extends Error {
  constructor() {
    super('superseded by a newer start of the consumer');
    this.name = 'SupersededError';
  }
}

export function createTradesConsumer(options: TradesConsumerOptions): TradesConsumer {
  const { store, logger, metrics } = options;
  const log = logger.child({ component: 'trades-consumer' });
  let stopped = true;
  let leading = false;
  let messages: ConsumerMessages | undefined;
  let loop: Promise<void> | undefined;
  let leaseTimer: NodeJS.Timeout | undefined;
  let rollTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let leaderWatch: StreamLeaderWatch | undefined;
  /** The trade being applied now, if any. */
  let handling: Promise<void> | null = null;
  let stallTimer: NodeJS.Timeout | undefined;
  /** The stored position at the previous silence check. */
  let positionAtCheck: number | undefined;

  /**
   * The backstop: a consumer that applied nothing since the previous check while TRADES holds newer messages
   * is restarted from the stored position (a consumer that heartbeats but delivers nothing, seen after leader
   * kills). A check that cannot reach JetStream or Redis is skipped.
   */
  async function checkStall(): Promise<void> {
    if (stopped || !leading) return;
    try {
      const position = (await store.position())?.seq ?? 0;
      const before = positionAtCheck;
      positionAtCheck = position;
      if (before === undefined || position !== before) return;
      const last = (await options.jsm.streams.info(TRADES_STREAM)).state.last_seq;
      if (last > position && positionAtCheck === position) {
        positionAtCheck = undefined;
        restartOn('silent');
      }
    } catch {
      // JetStream or Redis unavailable: the next check tries again.
    }
  }
  let solUsd: number | null = null;
  /** The replayed recording's latest SOL/USD observation (chain time), for USD-quoted replayed trades. */
  let recordedSolUsd: { solUsd: number; atMs: number } | null = null;
  const replayedSolUsd = (recordedTimeMs: number | null): number | null => {
    const r = recordedSolUsd;
    if (r && recordedTimeMs !== null && recordedTimeMs >= r.atMs && recordedTimeMs - r.atMs <= options.solUsdMaxAgeMs) return r.solUsd;
    return options.configuredSolUsd ?? null;
  };

  /**
   * Each restart signal (and stop) begins an epoch: a start attempt of an older epoch that gets further closes
   * its consumer without changing anything. Within an epoch attempts are hedged: one that has not started
   * within `retryDelayMs` (a JetStream request sent into an election waits for its timeout) is joined by
   * another, and the first to start wins.
   */
  let epoch = 0;
  let hedgeTimer: NodeJS.Timeout | undefined;
  /** True while an attempt rebuilds the store: no attempt starts consuming meanwhile, and no second one rebuilds. */
  let resetting = false;

  /**
   * The first stream sequence to apply: right after the stored position, or TRADES' first message for a store
   * to (re)build. @throws Error when superseded (see {@link epoch}) or when JetStream or Redis fail.
   */
  async function startSequence(mine: number): Promise<number> {
    const info = await options.jsm.streams.info(TRADES_STREAM);
    if (resetting) throw new SupersededError();
    const position = await store.position();
    if (position && position.streamCreated === info.created) return position.seq + 1;
    // Checked at the last moment before the rebuild: nothing applies while `messages` is unset and `resetting` set.
    if (mine !== epoch || messages || resetting) throw new SupersededError();
    log.info(
      { stream_created: info.created, first_seq: info.state.first_seq, last_seq: info.state.last_seq },
      position ? 'TRADES was recreated: rebuilding the store' : 'store is empty: rebuilding it from TRADES',
    );
    resetting = true;
    try {
      await store.reset(info.created);
    } finally {
      resetting = false;
    }
    return Math.max(1, info.state.first_seq);
  }

  async function handle(msg: JsMsg): Promise<void> {
    let update;
    // Slot status messages (TRADES subject `slots`, @tradewind/contracts slots.ts) say nothing of prices: passed over.
    if (msg.subject === SLOTS_SUBJECT) {
      await store.apply(msg.seq, { kind: 'ignored', reason: 'slot_status' }, options.now());
      metrics.messages.inc({ outcome: 'ignored' });
      metrics.skipped.inc({ reason: 'slot_status' });
      return;
    }
    try {
      update = interpretTrade(msg.data, {
        solUsd,
        replayedSolUsd,
        streamTimeMs: Math.floor(Number(msg.info.timestampNanos) / 1e6),
        minRatePoolSol: options.minRatePoolSol,
      });
    } catch (err) {
      if (!(err instanceof InvalidTradeMessage)) throw err;
      metrics.messages.inc({ outcome: 'invalid' });
      metrics.skipped.inc({ reason: err.reason });
      log.warn({ stream_seq: msg.seq, subject: msg.subject, reason: err.reason }, `skipped a bad TRADES message: ${err.message}`);
      await store.apply(msg.seq, { kind: 'ignored', reason: err.reason }, options.now());
      return;
    }
    const result = await store.apply(msg.seq, update, options.now());
    if (update.kind === 'sol_usd' && result !== 'skipped') {
      if (!update.replayed) solUsd = update.solUsd;
      else if (update.recordedTimeMs !== null && (recordedSolUsd === null || update.recordedTimeMs >= recordedSolUsd.atMs))
        recordedSolUsd = { solUsd: update.solUsd, atMs: update.recordedTimeMs };
    }
    if (result === 'skipped') metrics.messages.inc({ outcome: 'duplicate' });
    else if (update.kind === 'ignored') {
      metrics.messages.inc({ outcome: 'ignored' });
      metrics.skipped.inc({ reason: IGNORED_REASONS.has(update.reason) ? update.reason : 'not_priced_type' });
    } else metrics.messages.inc({ outcome: 'applied' });
    if (result === 'needs_metadata' && 'mint' in update) options.onNeedsMetadata?.(update.mint);
    metrics.pending.set(msg.info.pending);
  }

  /**
   * Starts over with a new consumer from the stored position on the broker's word that pulls in flight are lost
   * (TRADES elected a leader, the connection reconnected, two idle heartbeats were missed) or on silence.
   * Without it a pull lost with a dead node is noticed only when it expires.
   */
  function restartOn(reason: string): void {
    if (stopped || !leading) return;
    const iter = messages;
    messages = undefined;
    epoch++;
    if (retryTimer) clearTimeout(retryTimer);
    metrics.restarts.inc();
    log.warn({ reason }, 'restarting the trades consumer from the stored position');
    // Not awaited: the iterator of a consumer on a dead node may never end. Only the trade being applied now is
    // waited for (the old loop applies nothing after it), so the new start reads the position after it.
    void iter?.close().catch(() => undefined);
    void Promise.race([handling ?? Promise.resolve(), new Promise((r) => setTimeout(r, 1_000).unref())]).then(() => scheduleRun(0));
  }

  async function run(mine: number): Promise<void> {
    const startSeq = await startSequence(mine);
    const stored = await store.solUsd();
    // A name of its own per start (nats.js appends a serial from 1): a replaced consumer may still exist on the server.
    const namePrefix = `${options.consumerPrefix}-${randomBytes(6).toString('hex')}`;
    const consumer = await options.js.consumers.get(TRADES_STREAM, {
      name_prefix: namePrefix,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: startSeq,
      ...(options.inactiveThresholdMs ? { inactive_threshold: options.inactiveThresholdMs } : {}),
    });
    const iter = await consumer.consume({
      max_messages: options.batch,
      idle_heartbeat: options.idleHeartbeatMs,
      // nats.js requires expires ≥ 1 s and > idle_heartbeat; a pull is renewed before it expires anyway.
      expires: Math.max(1_000, options.idleHeartbeatMs * 4),
    });
    if (stopped || !leading || mine !== epoch || messages || resetting) {
      // Superseded, or another attempt started first (or is rebuilding the store).
      await iter.close().catch(() => undefined);
      return;
    }
    messages = iter;
    if (hedgeTimer) clearTimeout(hedgeTimer);
    solUsd = stored?.solUsd ?? options.configuredSolUsd ?? null;
    log.info({ consumer_prefix: namePrefix, start_seq: startSeq }, 'trades consumer positioned');
    void (async () => {
      for await (const status of iter.status()) {
        if (status.type === 'heartbeats_missed' && messages === iter) {
          restartOn('heartbeats_missed');
          break;
        }
      }
    })().catch(() => undefined);
    loop = (async () => {
      try {
        for await (const msg of iter) {
          // Superseded by a restart: leave the rest to the new start (it begins after the stored position).
          if (messages !== iter) break;
          handling = handle(msg);
          try {
            await handling;
          } finally {
            handling = null;
          }
        }
        // The iterator also ends when the consumer is deleted under it (e.g. by an operator): start over.
        if (!stopped && leading && messages === iter) {
          messages = undefined;
          log.warn('the TRADES consumer ended; repositioning');
          scheduleRun();
        }
      } catch (err) {
        if (stopped || !leading || messages !== iter) return;
        metrics.restarts.inc();
        log.error({ err }, `applying trades failed; restarting from the stored position in ${options.retryDelayMs} ms`);
        await iter.close().catch(() => undefined);
        messages = undefined;
        scheduleRun();
      }
    })();
  }

  function scheduleRun(delayMs = options.retryDelayMs): void {
    if (stopped || !leading) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = setTimeout(attempt, delayMs);
  }

  /** One start attempt in the current epoch, with a hedge after `retryDelayMs` (see {@link epoch}). */
  function attempt(): void {
    if (stopped || !leading || messages) return;
    const mine = epoch;
    if (hedgeTimer) clearTimeout(hedgeTimer);
    hedgeTimer = setTimeout(() => {
      if (mine === epoch && !messages) attempt();
    }, options.retryDelayMs);
    run(mine).catch((err: unknown) => {
      if (mine !== epoch || messages || stopped || !leading) return;
      if (err instanceof SupersededError) return;
      metrics.restarts.inc();
      log.error({ err }, 'starting the trades consumer failed; retrying');
      scheduleRun();
    });
  }

  async function halt(): Promise<void> {
    epoch++;
    if (retryTimer) clearTimeout(retryTimer);
    if (hedgeTimer) clearTimeout(hedgeTimer);
    const iter = messages;
    messages = undefined;
    if (iter) await iter.close().catch(() => undefined);
    await loop;
  }

  async function tick(): Promise<void> {
    let holds: boolean;
    try {
      holds = await store.lease(options.holder, options.leaseMs);
    } catch (err) {
      log.warn({ err }, 'renewing the consumer lease failed');
      holds = false;
    }
    if (holds && !leading) {
      leading = true;
      log.info({ holder: options.holder }, 'took the consumer lease');
      scheduleRun(0);
    } else if (!holds && leading) {
      leading = false;
      log.warn({ holder: options.holder }, 'lost the consumer lease; stopped consuming');
      await halt();
    }
  }

  return {
    get leading() {
      return leading;
    },
    async start() {
      stopped = false;
      // The ordered consumer has one replica and no election of its own: TRADES' elections and reconnects are the signals.
      leaderWatch = options.nc && watchStreamLeader(options.nc, TRADES_STREAM, (event) => restartOn(event.signal), { logger: log });
      await tick();
      leaseTimer = setInterval(() => void tick(), Math.max(50, Math.floor(options.leaseMs / 3)));
      // Without readers the ranking would keep buckets that left the window: roll them out regularly.
      rollTimer = setInterval(() => void store.roll(options.now()).catch((err: unknown) => log.warn({ err }, 'rolling the window failed')), 60_000);
      if (options.stallCheckMs > 0) stallTimer = setInterval(() => void checkStall(), options.stallCheckMs);
    },
    async stop() {
      stopped = true;
      leaderWatch?.stop();
      if (leaseTimer) clearInterval(leaseTimer);
      if (rollTimer) clearInterval(rollTimer);
      if (stallTimer) clearInterval(stallTimer);
      const wasLeading = leading;
      leading = false;
      await halt();
      if (wasLeading) await store.releaseLease(options.holder).catch(() => undefined);
    },
    async caughtUp(timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const info = await options.jsm.streams.info(TRADES_STREAM);
        const position = await store.position();
        if (position && position.seq >= info.state.last_seq) return;
        if (Date.now() > deadline) throw new Error(`not caught up after ${timeoutMs} ms: applied ${position?.seq ?? 0} of ${info.state.last_seq}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}
