/**
 * The live trade tape's one reader of TRADES per process (docs/token-price.md "Trade tape"): an ordered
 * consumer (nats.js: ephemeral, one replica, no acknowledgements) on TRADES, delivering only messages
 * published after it starts. Every tape client is fed from it in-process (http/tape-hub.ts),
 * so a thousand browsers cost the broker one consumer.
 *
 * It needs no position: the tape shows what happens now, so a restart (two missed idle heartbeats, the
 * consumer deleted under it, a failed start) begins again at the stream's end after `retryDelayMs`.
 */
import { randomBytes } from 'node:crypto';
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import type { Logger } from '@tradewind/lib';

/** Options of {@link createTapeReader}. */
export interface TapeReaderOptions {
  readonly js: JetStreamClient;
  readonly logger: Logger;
  /** Name prefix of the consumer (TOKEN_PRICE_CONSUMER + `-tape`), so `nats consumer ls TRADES` tells whose it is. */
  readonly consumerPrefix: string;
  /** Wait before a failed or ended consumer is started again, ms (TOKEN_PRICE_RETRY_DELAY_MS). */
  readonly retryDelayMs: number;
  /** Idle heartbeat of the pulls, ms (TOKEN_PRICE_IDLE_HEARTBEAT_MS, ≥ 500): two missed restart the consumer. */
  readonly idleHeartbeatMs: number;
  /** The server deletes a consumer it has not heard from for this long, ms (TOKEN_PRICE_CONSUMER_INACTIVE_MS). */
  readonly inactiveThresholdMs: number;
  /** Called with every message, in stream order. Must not throw and must return quickly (no I/O). */
  readonly onMessage: (subject: string, seq: number, data: Uint8Array) => void;
}

/** A reader that can be started and stopped any number of times. */
export interface TapeReader {
  /** Starts reading (no-op while running); returns at once, the consumer is created in the background. */
  start(): void;
  /** Stops reading and closes the consumer. */
  stop(): Promise<void>;
  /** True between start() and stop(). */
  readonly running: boolean;
  /** True while a consumer delivers (for tests and logs). */
  readonly consuming: boolean;
}

/** Creates the reader; nothing runs until start(). */
export function createTapeReader(options: TapeReaderOptions): TapeReader {
  const log = options.logger.child({ component: 'tape-reader' });
  let running = false;
  /** Each start/stop/restart begins an epoch; an attempt of an older one closes what it opened. */
  let epoch = 0;
  let messages: ConsumerMessages | undefined;
  let consumer: Consumer | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  /** Closes the current consumer and deletes it on the server (else it stays until the inactive threshold). */
  async function release(): Promise<void> {
    const iter = messages;
    const old = consumer;
    messages = undefined;
    consumer = undefined;
    await iter?.close().catch(() => undefined);
    await old?.delete().catch(() => undefined);
  }

  function restart(reason: string, delayMs = options.retryDelayMs): void {
    if (!running) return;
    epoch++;
    void release();
    log.warn({ reason, delay_ms: delayMs }, 'restarting the tape reader');
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = setTimeout(() => void run(epoch), delayMs);
  }

  async function run(mine: number): Promise<void> {
    let iter: ConsumerMessages;
    let created: Consumer;
    try {
      created = await options.js.consumers.get(TRADES_STREAM, {
        name_prefix: `${options.consumerPrefix}-${randomBytes(4).toString('hex')}`,
        deliver_policy: DeliverPolicy.New,
        // Every subject: a filter list needs nats-server 2.10, and the hub passes over what is not a trade subject.
        inactive_threshold: options.inactiveThresholdMs,
      });
      iter = await created.consume({
        max_messages: 256,
        idle_heartbeat: options.idleHeartbeatMs,
        // nats.js requires expires ≥ 1 s and > idle_heartbeat.
        expires: Math.max(1_000, options.idleHeartbeatMs * 4),
      });
    } catch (err) {
      if (running && mine === epoch) {
        log.warn({ err }, 'starting the tape reader failed');
        restart('start_failed');
      }
      return;
    }
    if (!running || mine !== epoch) {
      await iter.close().catch(() => undefined);
      await created.delete().catch(() => undefined);
      return;
    }
    messages = iter;
    consumer = created;
    log.info('tape reader started');
    void (async () => {
      for await (const status of iter.status()) {
        if (status.type === 'heartbeats_missed' && messages === iter) {
          restart('heartbeats_missed', 0);
          break;
        }
      }
    })().catch(() => undefined);
    try {
      for await (const msg of iter) {
        if (messages !== iter) break;
        options.onMessage(msg.subject, msg.seq, msg.data);
      }
      if (messages === iter) restart('consumer_ended');
    } catch (err) {
      if (messages === iter) {
        log.warn({ err }, 'the tape reader failed');
        restart('failed');
      }
    }
  }

  return {
    get running() {
      return running;
    },
    get consuming() {
      return messages !== undefined;
    },
    start() {
      if (running) return;
      running = true;
      epoch++;
      void run(epoch);
    },
    async stop() {
      if (!running) return;
      running = false;
      epoch++;
      if (retryTimer) clearTimeout(retryTimer);
      await release();
      log.info('tape reader stopped');
    },
  };
}
