/**
 * Consumes TRADES into the Redis store with one durable pull consumer, in stream order.
 *
 * - **One writer.** Replicas share the durable consumer name; only the holder of the Redis lease
 *   (`leader` key) consumes, so trades are applied in order. The others serve reads and take over
 *   when the lease lapses (`leaseMs` after the holder dies).
 * - **Position.** The store records the last applied stream sequence in the same Lua script as each
 *   change. At start the durable consumer is (re)created to begin right after it, so a Redis that lost
 *   recent writes gets them again. An empty store, or a store built from another incarnation of the
 *   stream, is wiped and rebuilt from the stream's first message.
 * - **Failures.** A message that is not a trade message is counted, logged once and acknowledged
 *   (skipped). A Redis failure stops the loop; it restarts from the recorded position after a delay,
 *   so nothing is skipped and nothing is applied twice.
 */
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Counter, Gauge } from 'prom-client';
import { TRADES_STREAM } from '@tradewind/contracts';
import { isJetStreamNotFound, watchStreamLeader, type Logger, type NatsConnection, type StreamLeaderWatch } from '@tradewind/lib';
import { InvalidTradeMessage, interpretTrade } from '../domain/trade.js';
import type { TokenStore } from '../store/redis-store.js';

/** Counters and gauges the consumer updates. */
export interface ConsumerMetrics {
  /** outcome: applied | duplicate | ignored | invalid. */
  readonly messages: Counter<'outcome'>;
  /** reason of ignored / invalid messages (a fixed set, see domain/trade.ts). */
  readonly skipped: Counter<'reason'>;
  /** Messages the durable consumer has yet to deliver. */
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
  /** Durable consumer name (TOKEN_PRICE_CONSUMER, default `token-price`). */
  readonly durableName: string;
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
   * How often the consumer is checked for silence, ms (config TOKEN_PRICE_STALL_CHECK_MS; 0 = never): one that applied
   * nothing since the previous check while TRADES holds newer messages is restarted from the stored position.
   */
  readonly stallCheckMs: number;
  /** The connection `js`/`jsm` use: its reconnects and TRADES' leader advisories restart the consumer at once (absent: heartbeats only). */
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

const IGNORED_REASONS = new Set(['no_sol_side', 'stablecoin_pool', 'unpriced', 'rate_pool_too_small', 'quote_asset', 'unsupported_quote', 'no_sol_usd_rate']);

/** Creates the TRADES consumer. Nothing runs until `start()`. */
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
   * is restarted from the stored position (seen after a leader kill on nats-server 2.9.10: a durable that
   * heartbeats but delivers nothing). A check that cannot reach JetStream or Redis is skipped.
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
   * Each start of the consumer is a generation: a signal starts a new one at once (an older one may hang on a
   * request sent into an election until its timeout), and an older one that gets further stops without
   * changing anything.
   */
  let runGen = 0;
  /**
   * Set by a restart on silence or missed heartbeats: the next start deletes and re-creates the durable even when
   * it sits exactly at the stored position. A durable can survive a leader kill in a state in which it heartbeats
   * but never delivers again (seen on nats-server 2.9.10); reusing it would restart into the same silence every
   * time. Not on a leader advisory: in a cluster a new durable elects a leader, and its advisory would restart
   * the consumer again, forever (npm run chaos: token-price applied nothing after the first kill).
   */
  let recreateDurable = false;

  async function prepare(gen: number): Promise<void> {
    const info = await options.jsm.streams.info(TRADES_STREAM);
    const position = await store.position();
    let startSeq: number;
    if (!position || position.streamCreated !== info.created) {
      log.info(
        { stream_created: info.created, first_seq: info.state.first_seq, last_seq: info.state.last_seq },
        position ? 'TRADES was recreated: rebuilding the store' : 'store is empty: rebuilding it from TRADES',
      );
      await store.reset(info.created);
      startSeq = Math.max(1, info.state.first_seq);
    } else {
      startSeq = position.seq + 1;
    }
    const stored = await store.solUsd();
    solUsd = stored?.solUsd ?? options.configuredSolUsd ?? null;
    let existing: Awaited<ReturnType<JetStreamManager['consumers']['info']>> | undefined;
    try {
      existing = await options.jsm.consumers.info(TRADES_STREAM, options.durableName);
    } catch (err) {
      if (!isJetStreamNotFound(err, 'consumer')) throw err;
    }
    if (existing && !recreateDurable && existing.ack_floor.stream_seq + 1 === startSeq && existing.num_ack_pending === 0) return;
    if (gen !== runGen) throw new Error('superseded by a newer start of the consumer');
    if (existing) await options.jsm.consumers.delete(TRADES_STREAM, options.durableName);
    if (gen !== runGen) throw new Error('superseded by a newer start of the consumer');
    await options.jsm.consumers.add(TRADES_STREAM, {
      durable_name: options.durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: startSeq,
      ack_wait: nanos(30_000),
      max_ack_pending: Math.max(options.batch * 4, 1024),
      max_deliver: -1,
    });
    if (gen === runGen) recreateDurable = false;
    log.info({ durable: options.durableName, start_seq: startSeq }, 'trades consumer positioned');
  }

  async function handle(msg: JsMsg): Promise<void> {
    let update;
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
      msg.ack();
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
    msg.ack();
  }

  /**
   * Starts over from the stored position (prepare() repositions the durable consumer when it is not exactly
   * there, and re-creates it after silence, `recreateDurable`) on the broker's word that pulls in flight are lost: TRADES or this durable elected a
   * leader, the connection reconnected, or two idle heartbeats were missed. Without it a pull lost with a
   * dead consumer leader is noticed only when it expires.
   */
  function restartOn(reason: string): void {
    if (stopped || !leading) return;
    const iter = messages;
    messages = undefined;
    if (reason === 'silent' || reason === 'heartbeats_missed') recreateDurable = true;
    if (retryTimer) clearTimeout(retryTimer);
    metrics.restarts.inc();
    log.warn({ reason }, 'restarting the trades consumer from the stored position');
    // Not awaited: the iterator of a consumer on a dead node may never end. Only the trade being applied now is
    // waited for (the old loop applies nothing after it), so the new start reads the position after it.
    void iter?.close().catch(() => undefined);
    void Promise.race([handling ?? Promise.resolve(), new Promise((r) => setTimeout(r, 1_000).unref())]).then(() => scheduleRun(0));
  }

  async function run(gen: number): Promise<void> {
    await prepare(gen);
    const consumer = await options.js.consumers.get(TRADES_STREAM, options.durableName);
    const iter = await consumer.consume({
      max_messages: options.batch,
      idle_heartbeat: options.idleHeartbeatMs,
      expires: Math.max(1_000, options.idleHeartbeatMs * 4),
    });
    if (stopped || !leading || gen !== runGen) {
      await iter.close().catch(() => undefined);
      return;
    }
    messages = iter;
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
    retryTimer = setTimeout(() => {
      const gen = ++runGen;
      run(gen).catch((err: unknown) => {
        if (gen !== runGen) return;
        metrics.restarts.inc();
        log.error({ err }, 'starting the trades consumer failed; retrying');
        scheduleRun();
      });
    }, delayMs);
  }

  async function halt(): Promise<void> {
    if (retryTimer) clearTimeout(retryTimer);
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
      leaderWatch =
        options.nc &&
        watchStreamLeader(
          options.nc,
          TRADES_STREAM,
          (event) => {
            if (event.signal === 'consumer_leader_elected' && event.consumer !== options.durableName) return;
            restartOn(event.signal);
          },
          { consumers: options.durableName, logger: log },
        );
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
