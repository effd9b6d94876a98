/**
 * ingest: turns a transaction source into trades on JetStream TRADES. The only source so far
 * is the replay of recorded real mainnet transactions; live sources plug in the same way.
 */
import { jetstream } from '@nats-io/jetstream';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ensureTradesStream, tradesManager, type Logger, type NatsConnection } from '@tradewind/lib';
import type { IngestConfig } from './config.js';
import { loadRecording } from './replay/recording.js';
import { replay } from './replay/replay-source.js';
import { publishTrade, publisherMetrics } from './publisher.js';

export interface IngestDeps {
  logger: Logger;
  registry: Registry;
  nc: NatsConnection;
}

type AppConfig = Pick<IngestConfig, 'REPLAY_DIR' | 'REPLAY_TRANSACTIONS_PER_SECOND' | 'REPLAY_LOOP' | 'TRADES_MAX_AGE_MS' | 'TRADES_DUPLICATE_WINDOW_MS' | 'TRADES_MAX_BYTES' | 'PUBLISH_MAX_BACKOFF_MS'>;

/** Builds ingest; `start()` ensures the stream, loads the recording and begins publishing in the background. */
export function createApp(config: AppConfig, deps: IngestDeps) {
  const { logger, nc } = deps;
  const metrics = publisherMetrics(deps.registry);
  const recordingErrors = new Counter({ name: 'tradewind_ingest_recording_errors_total', help: 'Recorded files that could not be decoded', registers: [deps.registry] });
  const loops = new Gauge({ name: 'tradewind_ingest_replay_loop', help: 'Current replay pass (0 = first)', registers: [deps.registry] });
  const abort = new AbortController();
  let running: Promise<void> | undefined;

  return {
    async start() {
      await ensureTradesStream(await tradesManager(nc), {
        maxAgeMs: config.TRADES_MAX_AGE_MS, duplicateWindowMs: config.TRADES_DUPLICATE_WINDOW_MS, maxBytes: config.TRADES_MAX_BYTES,
      });
      const { transactions, problems } = await loadRecording(config.REPLAY_DIR);
      for (const p of problems) {
        recordingErrors.inc();
        logger.warn({ path: p.path, reason: p.reason }, 'recorded file skipped');
      }
      const tradeCount = transactions.reduce((n, t) => n + t.trades.length, 0);
      logger.info({ dir: config.REPLAY_DIR, transactions: transactions.length, trades: tradeCount, per_second: config.REPLAY_TRANSACTIONS_PER_SECOND }, 'replaying recorded mainnet transactions');
      if (transactions.length === 0) logger.error({ dir: config.REPLAY_DIR }, 'the recording holds no decodable trades; nothing will be published');
      const js = jetstream(nc);
      running = (async () => {
        for await (const batch of replay(transactions, { transactionsPerSecond: config.REPLAY_TRANSACTIONS_PER_SECOND, loop: config.REPLAY_LOOP, signal: abort.signal })) {
          for (const trade of batch) {
            loops.set(trade.message.replay_loop);
            const result = await publishTrade(js, trade, { logger, metrics, maxBackoffMs: config.PUBLISH_MAX_BACKOFF_MS, signal: abort.signal });
            if (result === 'aborted') return;
          }
        }
        logger.info('replay finished');
      })().catch((err: unknown) => logger.error({ err }, 'replay stopped on an error'));
    },
    /** Stops after the in-flight publish; waits for the loop to end. */
    async stop() {
      abort.abort();
      await running;
    },
    /** Resolves when a non-looping replay has published everything (tests). */
    done: () => running ?? Promise.resolve(),
  };
}
