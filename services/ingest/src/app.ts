/**
 * ingest: turns a transaction source into trades on JetStream TRADES.
 * Sources: the replay of recorded real mainnet transactions (default, no network), or a
 * live Solana source (Yellowstone gRPC / RPC WebSocket, see src/live/) built by main.ts.
 * Of several ingests of one source only the holder of the leader lease (src/leader-lease.ts) reads
 * the source and publishes; the others stand by and take over.
 */
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { Counter, Gauge, type Registry } from 'prom-client';
import { TRADES_STREAM } from '@tradewind/contracts';
import { ensureTradesStream, tradesManager, type Logger, type NatsConnection } from '@tradewind/lib';
import {
  DEFAULT_PUBLISH_ACK_TIMEOUT_MS,
  DEFAULT_PUBLISH_DRAIN_TIMEOUT_MS,
  DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS,
  DEFAULT_PUBLISH_CONTENTION_HOLD_MS,
  DEFAULT_PUBLISH_MAX_IN_FLIGHT,
  type IngestConfig,
} from './config.js';
import { messageId, subjectOf, type TradeMessage } from './decode/index.js';
import { createUnknownReporter } from './decode/unknown-report.js';
import { createTradePipeline } from './pipeline.js';
import type { Checkpoint, CheckpointStore } from './live/checkpoint.js';
import type { TransactionSource } from './live/source.js';
import { leaderMetrics, openLeaderLease, type LeaderLease } from './leader-lease.js';
import { RECORDING_COMMITMENT, loadRecording } from './replay/recording.js';
import { replay } from './replay/replay-source.js';
import { OrderedPublisher, publisherMetrics } from './publisher.js';
import { SlotTracker } from './live/slot-tracker.js';

export interface IngestDeps {
  logger: Logger;
  registry: Registry;
  nc: NatsConnection;
  /**
   * The live source, for a process that publishes once (no lease, or tests). A leader lease term needs a source
   * that starts at the checkpoint read when the term begins: see {@link IngestDeps.sourceFor}.
   */
  source?: TransactionSource;
  /**
   * Builds the live source of one leader term from the checkpoint read at its start (null: none), so a standby
   * that takes over resumes where its predecessor stopped (main.ts passes it). When absent, `source` is used.
   */
  sourceFor?: (checkpoint: Checkpoint | null) => TransactionSource;
  /** Where the live source's resume point is kept across restarts and leader changes (optional). */
  checkpoints?: CheckpointStore;
  /** Called once if the publishing loop dies on an unexpected error (main.ts: exit 1). */
  onFatal?: (err: unknown) => void;
}

type AppConfig = Pick<
  IngestConfig,
  | 'INGEST_SOURCE'
  | 'REPLAY_DIR'
  | 'REPLAY_TRANSACTIONS_PER_SECOND'
  | 'REPLAY_LOOP'
  | 'TRADES_MAX_AGE_MS'
  | 'TRADES_DUPLICATE_WINDOW_MS'
  | 'TRADES_MAX_BYTES'
  | 'PUBLISH_MAX_BACKOFF_MS'
  | 'LETSBONK_PLATFORM_CONFIGS'
  | 'LIVE_CHECKPOINT_INTERVAL_MS'
> &
  Partial<
    Pick<
      IngestConfig,
      | 'NATS_STREAM_REPLICAS'
      | 'REPLAY_SLOT_STATUS'
      | 'TOKEN_NAME_CACHE_MAX_ENTRIES'
      | 'LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES'
      | 'SOL_USD_FALLBACK'
      | 'SOL_USD_MIN_SWAP_SOL'
      | 'SOL_USD_WINDOW'
      | 'SOL_USD_MAX_AGE_MS'
      | 'PUBLISH_MAX_IN_FLIGHT'
      | 'PUBLISH_ACK_TIMEOUT_MS'
      | 'PUBLISH_STAGED_ID_STEPDOWN_MS'
      | 'PUBLISH_CONTENTION_HOLD_MS'
      | 'PUBLISH_DRAIN_TIMEOUT_MS'
      | 'INGEST_LEASE_MS'
      | 'INGEST_LEASE_RENEW_MS'
      | 'INGEST_SLOT_TRACK_MAX'
    >
  >;

/** Pause between attempts to read the checkpoint when a term starts, ms. */
const CHECKPOINT_RETRY_MS = 250;

/** One leader term: reading the source stops first, publishing once the window drained (or at once when fenced). */
interface Term {
  readonly sourceAbort: AbortController;
  readonly publishAbort: AbortController;
  /** Set when the lease was lost: this process must not write anything more (no final checkpoint). */
  fenced: boolean;
}

/**
 * Builds ingest. `start()` ensures the TRADES stream and begins publishing in the
 * background (replay: loads the recording first; live: iterates the live source).
 * With INGEST_LEASE_MS set (loadIngestConfig always sets it) publishing happens only while this
 * process holds the leader lease of INGEST_SOURCE (src/leader-lease.ts): `start()` resolves as leader
 * or as standby; each time the lease is won a new term begins (live: from the checkpoint in
 * `deps.checkpoints`), and when it is lost the term's source and publisher stop at once.
 * Without INGEST_LEASE_MS (tests running one app) it publishes at once.
 * @throws Error from start() when a live source is configured but neither `deps.source` nor `deps.sourceFor`
 *   is given; the nats.js error when the lease bucket cannot be opened.
 */
export function createApp(config: AppConfig, deps: IngestDeps) {
  const { logger, nc } = deps;
  const metrics = publisherMetrics(deps.registry);
  const recordingErrors = new Counter({
    name: 'tradewind_ingest_recording_errors_total',
    help: 'Recorded files that could not be decoded',
    registers: [deps.registry],
  });
  const loops = new Gauge({ name: 'tradewind_ingest_replay_loop', help: 'Current replay pass (0 = first)', registers: [deps.registry] });
  const decodeErrors = new Counter({
    name: 'tradewind_ingest_decode_errors_total',
    help: 'Live transactions that could not be decoded (skipped, logged)',
    registers: [deps.registry],
  });
  // Decode, then the derived fields (docs/decoding.md "Derived fields"), with one set of caches and one SOL/USD
  // reference for the process (src/pipeline.ts; `npm run decode` runs the same). A CREATE names the token's later
  // trades and gives a LaunchLab pool's later trades their market cap (live), or the recording's (replay).
  const pipeline = createTradePipeline(config, {
    // Newer instructions, events or event fields (program upgrades): counted, logged once per kind, never fatal.
    onUnknown: createUnknownReporter(deps.registry, logger),
  });
  const { decodeOptions, derive } = pipeline;
  // The work of the current leader term, and of every term before it (a term starts when the previous one ended).
  let running: Promise<void> | undefined;
  let current: Term | undefined;
  let lease: LeaderLease | undefined;
  let stopping = false;
  let failed = false;

  function publisherFor(js: JetStreamClient, signal: AbortSignal): OrderedPublisher {
    return new OrderedPublisher({
      js,
      nc,
      logger,
      metrics,
      maxInFlight: config.PUBLISH_MAX_IN_FLIGHT ?? DEFAULT_PUBLISH_MAX_IN_FLIGHT,
      ackTimeoutMs: config.PUBLISH_ACK_TIMEOUT_MS ?? DEFAULT_PUBLISH_ACK_TIMEOUT_MS,
      maxBackoffMs: config.PUBLISH_MAX_BACKOFF_MS,
      signal,
      leaderSignals: { nc, stream: TRADES_STREAM },
      stagedIdStepdownMs: config.PUBLISH_STAGED_ID_STEPDOWN_MS ?? DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS,
      contentionHoldMs: config.PUBLISH_CONTENTION_HOLD_MS ?? DEFAULT_PUBLISH_CONTENTION_HOLD_MS,
    });
  }

  async function runReplay(js: JetStreamClient, term: Term): Promise<void> {
    const { transactions, problems } = await loadRecording(config.REPLAY_DIR, decodeOptions);
    // Once per recorded transaction, in replay order, at its block time (every replay pass publishes the same values).
    for (const t of transactions) derive(t.trades, t.trades[0]?.block_time_ms ?? Date.now());
    for (const p of problems) {
      recordingErrors.inc();
      logger.warn({ path: p.path, reason: p.reason }, 'recorded file skipped');
    }
    const tradeCount = transactions.reduce((n, t) => n + t.trades.length, 0);
    logger.info(
      { dir: config.REPLAY_DIR, transactions: transactions.length, trades: tradeCount, per_second: config.REPLAY_TRANSACTIONS_PER_SECOND },
      'replaying recorded mainnet transactions',
    );
    if (transactions.length === 0) logger.error({ dir: config.REPLAY_DIR }, 'the recording holds no decodable trades; nothing will be published');
    const publisher = publisherFor(js, term.publishAbort.signal);
    for await (const batch of replay(transactions, {
      transactionsPerSecond: config.REPLAY_TRANSACTIONS_PER_SECOND,
      loop: config.REPLAY_LOOP,
      signal: term.sourceAbort.signal,
      ...(config.REPLAY_SLOT_STATUS ? { slotStatus: RECORDING_COMMITMENT } : {}),
    })) {
      if (batch.length > 0) loops.set(batch[0]!.message.replay_loop);
      if (!(await publisher.enqueue(batch))) return;
    }
    if (await publisher.drained()) logger.info(term.sourceAbort.signal.aborted ? 'replay stopped' : 'replay finished');
  }

  /** The live source of a term: built from the checkpoint read now when possible (see {@link IngestDeps.sourceFor}). */
  async function liveSource(signal: AbortSignal): Promise<TransactionSource> {
    const build = deps.sourceFor;
    if (!build) {
      if (!deps.source) throw new Error(`INGEST_SOURCE=${config.INGEST_SOURCE} needs a live source`);
      return deps.source;
    }
    // A term that wins the lease while JetStream elects a leader (a NATS node just died) cannot read the
    // checkpoint yet: it tries again every CHECKPOINT_RETRY_MS until it can or the term ends, rather than
    // stopping ingest (found by `npm run chaos`: "ingest stopped on an error", a TimeoutError here).
    let checkpoint: Checkpoint | null = null;
    for (let attempt = 1; ; attempt++) {
      try {
        checkpoint = (await deps.checkpoints?.load()) ?? null;
        break;
      } catch (err) {
        if (signal.aborted) throw err;
        logger.warn({ err, attempt }, 'reading the checkpoint failed; trying again');
        await new Promise((r) => setTimeout(r, CHECKPOINT_RETRY_MS));
      }
    }
    logger.info({ source: config.INGEST_SOURCE, checkpoint }, 'live source resume point');
    return build(checkpoint);
  }

  async function runLive(js: JetStreamClient, source: TransactionSource, term: Term): Promise<void> {
    logger.info(
      { source: source.name, commitment: source.commitment, max_in_flight: config.PUBLISH_MAX_IN_FLIGHT ?? DEFAULT_PUBLISH_MAX_IN_FLIGHT },
      'streaming live transactions',
    );
    const publisher = publisherFor(js, term.publishAbort.signal);
    // The checkpoint: the last transaction whose trades, and every trade before them, are acknowledged.
    let acknowledged: Checkpoint | null = null;
    let saved: Checkpoint | null = null;
    let saving: Promise<void> | null = null;
    const save = (): void => {
      // A fenced term writes nothing more: the new leader owns the checkpoint now.
      if (saving || term.fenced || acknowledged === null || acknowledged === saved) return;
      const c = acknowledged;
      saving = (deps.checkpoints?.save(c) ?? Promise.resolve())
        .then(
          () => {
            saved = c;
          },
          (err: unknown) => logger.warn({ err }, 'checkpoint not saved'),
        )
        .finally(() => {
          saving = null;
        });
    };
    // A burst followed by quiet must not leave the checkpoint at the burst's start: every interval, the last
    // acknowledged transaction is saved when it is newer than the saved one (a restart after a long quiet would
    // otherwise re-publish the whole burst, caught only by the duplicate window).
    const saver = setInterval(save, config.LIVE_CHECKPOINT_INTERVAL_MS);
    // Slot messages (src/live/slot-tracker.ts): each status after the trades of its slot, in the same window.
    const slots = new SlotTracker({
      source: source.name,
      commitment: source.commitment,
      ...(config.INGEST_SLOT_TRACK_MAX ? { maxSlots: config.INGEST_SLOT_TRACK_MAX } : {}),
    });
    const items = source.updates ? source.updates(term.sourceAbort.signal) : source.transactions(term.sourceAbort.signal);
    try {
      for await (const tx of items) {
        if ('kind' in tx) {
          const outgoingSlots = slots.onStatus(tx);
          if (outgoingSlots.length > 0 && !(await publisher.enqueue(outgoingSlots))) return;
          continue;
        }
        let messages: TradeMessage[];
        try {
          messages = pipeline.process(tx, Date.now());
        } catch (err) {
          decodeErrors.inc();
          logger.error({ err, signature: tx.signature, slot: tx.slot }, 'live transaction could not be decoded; skipped');
          continue;
        }
        const outgoing = messages.map((message) => ({ subject: subjectOf(message), msgId: messageId(message), message }));
        const slot = tx.slot;
        if (slot !== null)
          slots.countTrades(
            slot,
            outgoing.map((o) => o.subject),
          );
        const onDone =
          slot === null
            ? undefined
            : () => {
                const now = Date.now();
                acknowledged = { slot, signature: tx.signature, savedAtMs: now };
                if (now - (saved?.savedAtMs ?? 0) >= config.LIVE_CHECKPOINT_INTERVAL_MS) save();
              };
        // Waits while the window is full: the source is not read meanwhile (back-pressure).
        if (!(await publisher.enqueue(outgoing, onDone))) return; // stopping: not taken, the next run redoes it
      }
      await publisher.drained();
    } finally {
      clearInterval(saver);
      // A graceful stop records the last acknowledged transaction, so a restart repeats as little as possible.
      await saving;
      save();
      await saving;
    }
  }

  /** Starts a term once the previous one has ended (its publisher stopped, its checkpoint written). */
  function beginTerm(js: JetStreamClient): void {
    if (stopping) return;
    const term: Term = { sourceAbort: new AbortController(), publishAbort: new AbortController(), fenced: false };
    const previous = running;
    current = term;
    running = (async () => {
      await previous;
      if (term.sourceAbort.signal.aborted) return;
      await (config.INGEST_SOURCE === 'replay' ? runReplay(js, term) : runLive(js, await liveSource(term.sourceAbort.signal), term));
    })().catch((err: unknown) => {
      // Nothing would be published any more: exit non-zero through the normal shutdown so the
      // supervisor (Kubernetes, npm start) restarts us, resuming from the checkpoint.
      logger.fatal({ err }, 'ingest stopped on an error');
      failed = true;
      deps.onFatal?.(err);
    });
  }

  /** The lease is lost: another process may publish from now on, so this one stops at once (no drain). */
  function fence(): void {
    const term = current;
    if (!term) return;
    term.fenced = true;
    term.sourceAbort.abort();
    term.publishAbort.abort();
  }

  /** Publishes at once (no lease configured), or contends for the lease and publishes while holding it. */
  async function begin(js: JetStreamClient): Promise<void> {
    if (config.INGEST_SOURCE !== 'replay' && !deps.source && !deps.sourceFor) {
      throw new Error(`INGEST_SOURCE=${config.INGEST_SOURCE} needs a live source`);
    }
    if (config.INGEST_LEASE_MS === undefined) {
      beginTerm(js);
      return;
    }
    lease = await openLeaderLease({
      nc,
      key: config.INGEST_SOURCE,
      leaseMs: config.INGEST_LEASE_MS,
      renewMs: config.INGEST_LEASE_RENEW_MS,
      replicas: config.NATS_STREAM_REPLICAS,
      logger,
      metrics: leaderMetrics(deps.registry),
      onElected: () => beginTerm(js),
      onDeposed: (reason) => {
        if (reason !== 'released') fence();
      },
    });
    await lease.start();
  }

  return {
    async start() {
      await ensureTradesStream(await tradesManager(nc), {
        maxAgeMs: config.TRADES_MAX_AGE_MS,
        duplicateWindowMs: config.TRADES_DUPLICATE_WINDOW_MS,
        maxBytes: config.TRADES_MAX_BYTES,
        replicas: config.NATS_STREAM_REPLICAS,
      });
      const js = jetstream(nc);

      await begin(js);
    },
    /**
     * Stops reading the source, waits up to PUBLISH_DRAIN_TIMEOUT_MS for the trades already taken to be
     * acknowledged (then stops publishing), waits for the loop to end (the live checkpoint written), then
     * releases the leader lease, so a standby takes over at once from that checkpoint.
     */
    async stop() {
      stopping = true;
      const term = current;
      term?.sourceAbort.abort();
      const timer = setTimeout(() => term?.publishAbort.abort(), config.PUBLISH_DRAIN_TIMEOUT_MS ?? DEFAULT_PUBLISH_DRAIN_TIMEOUT_MS);
      await running;
      clearTimeout(timer);
      term?.publishAbort.abort();
      await lease?.release();
    },
    /** True after the publishing loop died on an unexpected error. */
    failed: () => failed,
    /** True while this process publishes: it holds the leader lease, or runs without one. */
    leader: () => (lease ? lease.isLeader : running !== undefined),
    /** Resolves when a non-looping replay has published everything, or the live source ended (tests); at once on a standby. */
    done: () => running ?? Promise.resolve(),
  };
}
