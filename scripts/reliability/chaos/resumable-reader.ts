/**
 * The chaos suites' native JetStream subscriber: it reads TRADES the way the documented resumable reader
 * does (examples/typescript/src/resume.ts, docs/nats.md "Stream sequence and resuming natively"), so the
 * suites measure what a customer following the docs gets.
 *
 * It reads through nats.js ordered consumers (a customer's replay API allows only one named consumer per
 * account; the chaos clusters have no such API, and the recovery signals are the same) created from the
 * last sequence it delivered + 1, and makes a new one at once, without waiting for the old one to end, when:
 * - the consumer's pulls miss two idle heartbeats ({@link READER_IDLE_HEARTBEAT_MS}; its node died or a pull
 *   was lost);
 * - its connection reconnects (pulls in flight were lost with the old socket);
 * - its consume() ends or cannot start (after {@link READER_RETRY_MS});
 * - backstop: nothing delivered for {@link READER_STALL_MS} while TRADES holds newer messages.
 * nats.js' own recovery of an ordered consumer whose server died never succeeds (docs/reliability.md "nats.js
 * after a node dies"), so none of these waits for it.
 *
 * Each (re-)creation is a generation: only the newest one delivers, and a stuck one is abandoned, not
 * waited for (its iterator may never end). A late message from an abandoned generation, or one at or below
 * the last sequence delivered (a hedged attempt that won late re-delivers), is dropped, as the documented
 * reader never handles a sequence at or below its last. Two stored copies of one trade still reach the
 * caller: they have two sequences.
 */
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { TRADES_STREAM } from '@tradewind/contracts';

/** JetStream API timeout, ms: a consumer creation sent into an election is retried after this, not after nats.js' 5 s (resume.ts API_TIMEOUT_MS). */
export const READER_API_TIMEOUT_MS = 1_000;
/** Another consumer attempt starts after this while none consumes, ms (resume.ts BACKOFF_START_MS). */
export const READER_RETRY_MS = 250;
/** Idle heartbeat of each pull, ms: two missed mean the consumer is gone (resume.ts IDLE_HEARTBEAT_MS). */
export const READER_IDLE_HEARTBEAT_MS = 500;
/** How long one pull waits on the server, ms (resume.ts PULL_EXPIRES_MS). */
export const READER_PULL_EXPIRES_MS = 2_000;
/** Backstop: nothing delivered for this long while TRADES holds newer messages re-creates the consumer, ms. */
export const READER_STALL_MS = 5_000;

/** Why the reader made a new consumer. */
export type ReaderRestartReason = 'heartbeats' | 'reconnect' | 'ended' | 'stalled';

/** Counts of {@link ReaderRestartReason}s since the last {@link ResumableReader.resetRestarts}. */
export type ReaderRestarts = Record<ReaderRestartReason, number>;

/** A running reader. */
export interface ResumableReader {
  /** Re-creations by reason since the start or the last {@link resetRestarts}. */
  readonly restarts: ReaderRestarts;
  /** Zeroes {@link restarts}. */
  resetRestarts(): void;
  /** Stops reading (the connection stays open). Waits at most 2 s for the generations to end. Never throws. */
  stop(): Promise<void>;
}

/** What {@link startResumableReader} needs. */
export interface ResumableReaderOptions {
  /** The last stream sequence delivered (0: none; the first consumer then starts at the stream's first message). */
  lastSeq(): number;
  /** Called with each message whose stream sequence is above {@link lastSeq}, in order. Must not throw. */
  deliver(m: JsMsg): void;
  /** Called on each re-creation, with its reason. */
  onRestart?(reason: ReaderRestartReason, detail: string): void;
  /** Debug lines (CHAOS_DEBUG). */
  debug?(line: string): void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Starts reading TRADES on `nc` after `options.lastSeq()`; see the module comment.
 * Never throws: failures to create a consumer are retried every {@link READER_RETRY_MS} until {@link ResumableReader.stop}.
 */
export async function startResumableReader(nc: NatsConnection, options: ResumableReaderOptions): Promise<ResumableReader> {
  const { lastSeq, deliver } = options;
  const debug = options.debug ?? (() => undefined);
  const js = jetstream(nc, { timeout: READER_API_TIMEOUT_MS });
  const jsm = await jetstreamManager(nc, { checkAPI: false, timeout: READER_API_TIMEOUT_MS });
  const restarts: ReaderRestarts = { heartbeats: 0, reconnect: 0, ended: 0, stalled: 0 };
  const restart = (reason: ReaderRestartReason, detail: string) => {
    restarts[reason]++;
    options.onRestart?.(reason, detail);
  };
  let stopped = false;
  /** The newest attempt to create a consumer. */
  let attempt = 0;
  /** The attempt whose messages are delivered (0: none yet, or it was abandoned). */
  let generation = 0;
  let current: ConsumerMessages | undefined;
  const runs = new Set<Promise<void>>();
  /** Stops delivering the current generation and closes it without waiting (it may never end). */
  const abandon = () => {
    const c = current;
    current = undefined;
    generation = 0;
    void c?.close().catch(() => undefined);
  };
  const run = async (id: number): Promise<void> => {
    // Hedged: a request sent into an election waits for its timeout; another attempt starts meanwhile and the
    // first one to consume wins (a later one closes itself).
    const hedge = setTimeout(() => {
      if (!stopped && generation === 0 && attempt === id) next();
    }, READER_RETRY_MS);
    const from = lastSeq() + 1;
    try {
      const consumer = await js.consumers.get(TRADES_STREAM, from > 1 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from } : {});
      const messages = await consumer.consume({ expires: READER_PULL_EXPIRES_MS, idle_heartbeat: READER_IDLE_HEARTBEAT_MS });
      clearTimeout(hedge);
      if (stopped || generation !== 0) {
        void messages.close().catch(() => undefined);
        return;
      }
      generation = id;
      current = messages;
      void (async () => {
        for await (const status of messages.status()) {
          if (status.type === 'heartbeats_missed' && generation === id && !stopped) {
            restart('heartbeats', `#${id} heartbeats missed`);
            debug(`#${id} heartbeats missed: re-creating`);
            abandon();
            next();
            break;
          }
        }
      })().catch(() => undefined);
      for await (const m of messages) {
        if (generation !== id) break;
        if (m.seq <= lastSeq()) continue;
        deliver(m);
      }
    } catch (err) {
      clearTimeout(hedge);
      debug(`#${id} from ${from} failed: ${String(err)}`);
    }
    if (stopped) return;
    if (generation === id) {
      // Its consume() ended (or could not go on): start over from the last seq + 1.
      current = undefined;
      generation = 0;
    } else if (generation !== 0 || attempt !== id) {
      // Another attempt consumes, or a newer one is on it.
      return;
    }
    restart('ended', `#${id} consume() ended`);
    await sleep(READER_RETRY_MS);
    if (!stopped && generation === 0 && attempt === id) next();
  };
  const next = () => {
    attempt++;
    const r = run(attempt);
    runs.add(r);
    void r.finally(() => runs.delete(r));
  };
  next();
  void (async () => {
    for await (const status of nc.status()) {
      if (stopped) break;
      if (status.type === 'reconnect' && generation !== 0) {
        restart('reconnect', `#${generation} reconnected`);
        debug(`#${generation} reconnected: re-creating`);
        abandon();
        next();
      }
    }
  })().catch(() => undefined);
  // Stuck = TRADES has held a message the reader lacks for READER_STALL_MS with no delivery meanwhile (an
  // election, when nothing new is stored, does not count). A generation still being created counts too.
  let aheadSince: number | null = null;
  let seenAt = lastSeq();
  let probing = false;
  const watchdog = setInterval(() => {
    if (lastSeq() !== seenAt) {
      seenAt = lastSeq();
      aheadSince = null;
    }
    if (probing) return;
    probing = true;
    void jsm.streams
      .info(TRADES_STREAM)
      .then(
        (info) => {
          if (stopped || info.state.last_seq <= lastSeq()) {
            aheadSince = null;
            return;
          }
          aheadSince ??= Date.now();
          if (Date.now() - aheadSince < READER_STALL_MS) return;
          restart('stalled', `silent for ${Date.now() - aheadSince} ms at seq ${lastSeq()} while TRADES is at ${info.state.last_seq}`);
          aheadSince = null;
          abandon();
          next();
        },
        () => undefined,
      )
      .finally(() => {
        probing = false;
      });
  }, 1_000);
  return {
    restarts,
    resetRestarts() {
      for (const k of Object.keys(restarts) as ReaderRestartReason[]) restarts[k] = 0;
    },
    async stop() {
      stopped = true;
      clearInterval(watchdog);
      void current?.close().catch(() => undefined);
      // Bounded: an abandoned generation may never end (see above).
      await Promise.race([Promise.all([...runs]), sleep(2_000)]);
    },
  };
}
