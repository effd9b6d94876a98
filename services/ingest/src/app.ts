/**
 * ingest: turns a transaction source into trades on JetStream TRADES.
 * Sources: the replay of recorded real mainnet transactions (default, no network), or a
 * live Solana source (Yellowstone gRPC / RPC WebSocket, see src/live/) built by main.ts.
 */
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ensureTradesStream, tradesManager, type Logger, type NatsConnection } from '@tradewind/lib';
import { DEFAULT_PUBLISH_ACK_TIMEOUT_MS, DEFAULT_PUBLISH_DRAIN_TIMEOUT_MS, DEFAULT_PUBLISH_MAX_IN_FLIGHT, type IngestConfig } from './config.js';
import { decodeNormalized, messageId, subjectOf, TokenNameCache, type DecodeOptions, type TradeMessage } from './decode/index.js';
import { createUnknownReporter } from './decode/unknown-report.js';
import { createDeriver } from './decode/derived.js';
import type { Checkpoint, CheckpointStore } from './live/checkpoint.js';
import type { TransactionSource } from './live/source.js';
import { loadRecording } from './replay/recording.js';
import { replay } from './replay/replay-source.js';
import { OrderedPublisher, publisherMetrics } from './publisher.js';

export interface IngestDeps {
  logger: Logger;
  registry: Registry;
  nc: NatsConnection;
  /** The live source; required unless INGEST_SOURCE is `replay`. */
  source?: TransactionSource;
  /** Where the live source's resume point is kept across restarts (optional). */
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
      | 'TOKEN_NAME_CACHE_MAX_ENTRIES'
      | 'SOL_USD_FALLBACK'
      | 'SOL_USD_MIN_SWAP_SOL'
      | 'SOL_USD_WINDOW'
      | 'SOL_USD_MAX_AGE_MS'
      | 'PUBLISH_MAX_IN_FLIGHT'
      | 'PUBLISH_ACK_TIMEOUT_MS'
      | 'PUBLISH_DRAIN_TIMEOUT_MS'
    >
  >;

/**
 * Builds ingest. `start()` ensures the TRADES stream and begins publishing in the
 * background (replay: loads the recording first; live: iterates `deps.source`).
 * @throws Error from start() when a live source is configured but `deps.source` is missing.
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
  const decodeOptions: DecodeOptions = {
    letsbonkPlatformConfigs: new Set(config.LETSBONK_PLATFORM_CONFIGS),
    // One cache for the process: a CREATE names the token's later trades (live), or the recording's (replay).
    tokenNames: new TokenNameCache(config.TOKEN_NAME_CACHE_MAX_ENTRIES),
    // Newer instructions, events or event fields (program upgrades): counted, logged once per kind, never fatal.
    onUnknown: createUnknownReporter(deps.registry, logger),
  };
  // SOL/USD for price_usd / market_cap_usd: our own WSOL/USDC and WSOL/USDT swaps, else the configured fallback.
  // Derived fields (docs/decoding.md "Derived fields") on one transaction's messages, right after decoding.
  const derive = createDeriver({
    fallbackUsdPerSol: config.SOL_USD_FALLBACK,
    minSwapLamports: config.SOL_USD_MIN_SWAP_SOL === undefined ? undefined : BigInt(Math.round(config.SOL_USD_MIN_SWAP_SOL * 1e9)),
    windowSize: config.SOL_USD_WINDOW,
    maxStreamAgeMs: config.SOL_USD_MAX_AGE_MS,
  });
  // Two stops: reading the source ends first; publishing ends once the window drained (or PUBLISH_DRAIN_TIMEOUT_MS).
  const sourceAbort = new AbortController();
  const publishAbort = new AbortController();
  let running: Promise<void> | undefined;
  let failed = false;

  function publisherFor(js: JetStreamClient): OrderedPublisher {
    return new OrderedPublisher({
      js,
      nc,
      logger,
      metrics,
      maxInFlight: config.PUBLISH_MAX_IN_FLIGHT ?? DEFAULT_PUBLISH_MAX_IN_FLIGHT,
      ackTimeoutMs: config.PUBLISH_ACK_TIMEOUT_MS ?? DEFAULT_PUBLISH_ACK_TIMEOUT_MS,
      maxBackoffMs: config.PUBLISH_MAX_BACKOFF_MS,
      signal: publishAbort.signal,
    });
  }

  async function runReplay(js: JetStreamClient): Promise<void> {
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
    const publisher = publisherFor(js);
    for await (const batch of replay(transactions, {
      transactionsPerSecond: config.REPLAY_TRANSACTIONS_PER_SECOND,
      loop: config.REPLAY_LOOP,
      signal: sourceAbort.signal,
    })) {
      if (batch.length > 0) loops.set(batch[0]!.message.replay_loop);
      if (!(await publisher.enqueue(batch))) return;
    }
    if (await publisher.drained()) logger.info(sourceAbort.signal.aborted ? 'replay stopped' : 'replay finished');
  }

  async function runLive(js: JetStreamClient, source: TransactionSource): Promise<void> {
    logger.info(
      { source: source.name, commitment: source.commitment, max_in_flight: config.PUBLISH_MAX_IN_FLIGHT ?? DEFAULT_PUBLISH_MAX_IN_FLIGHT },
      'streaming live transactions',
    );
    const publisher = publisherFor(js);
    // The checkpoint: the last transaction whose trades, and every trade before them, are acknowledged.
    let acknowledged: Checkpoint | null = null;
    let saved: Checkpoint | null = null;
    let saving: Promise<void> | null = null;
    const save = (): void => {
      if (saving || acknowledged === null || acknowledged === saved) return;
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
    try {
      for await (const tx of source.transactions(sourceAbort.signal)) {
        let messages: TradeMessage[];
        try {
          messages = decodeNormalized(tx, decodeOptions);
          derive(messages, Date.now());
        } catch (err) {
          decodeErrors.inc();
          logger.error({ err, signature: tx.signature, slot: tx.slot }, 'live transaction could not be decoded; skipped');
          continue;
        }
        const outgoing = messages.map((message) => ({ subject: subjectOf(message), msgId: messageId(message), message }));
        const slot = tx.slot;
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
      // A graceful stop records the last acknowledged transaction, so a restart repeats as little as possible.
      await saving;
      save();
      await saving;
    }
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
      let work: Promise<void>;
      if (config.INGEST_SOURCE === 'replay') {
        work = runReplay(js);
      } else {
        const source = deps.source;
        if (!source) throw new Error(`INGEST_SOURCE=${config.INGEST_SOURCE} needs a live source`);
        work = runLive(js, source);
      }
      running = work.catch((err: unknown) => {
        // Nothing would be published any more: exit non-zero through the normal shutdown so the
        // supervisor (Kubernetes, npm start) restarts us, resuming from the checkpoint.
        logger.fatal({ err }, 'ingest stopped on an error');
        failed = true;
        deps.onFatal?.(err);
      });
    },
    /**
     * Stops reading the source, waits up to PUBLISH_DRAIN_TIMEOUT_MS for the trades already taken to be
     * acknowledged (then stops publishing), and waits for the loop to end.
     */
    async stop() {
      sourceAbort.abort();
      const timer = setTimeout(() => publishAbort.abort(), config.PUBLISH_DRAIN_TIMEOUT_MS ?? DEFAULT_PUBLISH_DRAIN_TIMEOUT_MS);
      await running;
      clearTimeout(timer);
      publishAbort.abort();
    },
    /** True after the publishing loop died on an unexpected error. */
    failed: () => failed,
    /** Resolves when a non-looping replay has published everything, or the live source ended (tests). */
    done: () => running ?? Promise.resolve(),
  };
}
