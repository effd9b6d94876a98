/**
 * The Yellowstone gRPC ("Dragon's Mouth", geyser.proto) live source: one
 * Subscribe stream through `@triton-one/yellowstone-grpc`'s native client, with
 * our own reconnect, resume and back-pressure (see {@link createYellowstoneSource}).
 */
import * as yellowstone from '@triton-one/yellowstone-grpc';
import {
  CommitmentLevel,
  SlotStatus,
  SubscribeRequest,
  type ChannelOptions,
  type ClientDuplexStream,
  type SubscribeUpdate,
  type SubscribeUpdateTransaction,
} from '@triton-one/yellowstone-grpc';
import { type Counter, type Gauge, Registry } from 'prom-client';
import { counterOnce, gaugeOnce, type Logger } from '@tradewind/lib';
import type { NormalizedTransaction } from '../decode/transaction.js';
import {
  backoffDelayMs,
  DEFAULT_BACKOFF,
  LagTracker,
  ResumeState,
  sleep,
  TRADE_PROGRAM_IDS,
  type BackoffOptions,
  type Commitment,
  type SourceMetrics,
  type TransactionSource,
} from './source.js';
import { normalizeYellowstoneTransaction } from './yellowstone-normalize.js';
import type { SlotUpdate } from './slot-tracker.js';

/**
 * Default bound of the in-memory queue between the gRPC stream and the consumer,
 * in transactions: 0.1 s at the 20,000 tx/s ingest is sized for, enough to
 * smooth bursts (the server keeps its own per-client buffer behind it). A
 * decoded update holds ≈30 KiB (measured on the recording: 10,000 updates ≈
 * 215 MiB of heap + 83 MiB of buffers; logs and keys dominate), so a full queue
 * is ≈60 MiB.
 */
export const DEFAULT_QUEUE_MAX_TRANSACTIONS = 2_000;

/**
 * Default for {@link YellowstoneSourceOptions.idleTimeoutMs}: three periods of the
 * server's 10 s keep-alive ping (yellowstone-grpc-geyser `grpc.rs`), while slot
 * updates also arrive every ~400 ms.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/**
 * Default commitment of the Subscribe stream: `processed`, the lowest latency (a
 * transaction streams as soon as the node executes it); the price is that a trade of a
 * block the cluster later skips is published anyway, with `commitment: "processed"` saying so.
 */
export const DEFAULT_YELLOWSTONE_COMMITMENT: Commitment = 'processed';

/** The slots filter of the slot-lag metric (the subscription's own commitment only). */
const TIP_FILTER = 'tip';
/** The slots filter of the slot messages (every status). */
const SLOT_STATUS_FILTER = 'slot_status';

/** Solana's target slot duration (solana-clock `DEFAULT_MS_PER_SLOT`), for the seconds-behind estimate. */
const MS_PER_SLOT = 400;
/** Block times kept for recent slots (≈ 3.4 min of chain). */
const BLOCK_TIMES_KEPT = 512;
/** At most one "queue full" warning per this period, ms; the counter counts every occurrence. */
const QUEUE_FULL_LOG_EVERY_MS = 10_000;

/**
 * The package's `Client` class. Its typings are CommonJS (so TypeScript sees the
 * class at `.default.default`) while Node loads its ESM build (class at
 * `.default`): take whichever shape arrived.
 */
type ClientClass = typeof yellowstone.default.default;
const YellowstoneClient: ClientClass = (yellowstone.default as { default?: ClientClass }).default ?? (yellowstone.default as unknown as ClientClass);

const COMMITMENT_LEVEL: Record<Commitment, CommitmentLevel> = {
  processed: CommitmentLevel.PROCESSED,
  confirmed: CommitmentLevel.CONFIRMED,
  finalized: CommitmentLevel.FINALIZED,
};

/** Options of {@link createYellowstoneSource}. */
export interface YellowstoneSourceOptions {
  /**
   * gRPC endpoint with scheme and port: `https://host:443` (TLS with the system
   * roots) or `http://host:10000` (plaintext). Only its origin is ever logged,
   * since some providers put a key in the path.
   */
  endpoint: string;
  /** `x-token` header value (secret; never logged). Omit when the endpoint authenticates by IP or URL. */
  xToken?: string;
  /**
   * Commitment of the subscription (SubscribeRequest `commitment`; config
   * YELLOWSTONE_COMMITMENT). Default {@link DEFAULT_YELLOWSTONE_COMMITMENT}. Every
   * transaction the source yields carries it as `commitment`.
   */
  commitment?: Commitment;
  /**
   * First slot to stream (inclusive; replayed by the server when it still holds
   * it), or null to start at the chain tip.
   */
  fromSlot: number | null;
  /** Reconnect backoff. Default {@link DEFAULT_BACKOFF} (1 s doubling to 30 s). */
  backoff?: BackoffOptions;
  /** Shared live-source metrics (label `source="yellowstone"`). */
  metrics: SourceMetrics;
  /**
   * Registry for the source's own metrics (`tradewind_ingest_source_queue_*`,
   * `_resume_gaps_total`, `_malformed_total`); a private registry when omitted.
   */
  registry?: Registry;
  logger: Logger;
  /** Queue bound, transactions. Default {@link DEFAULT_QUEUE_MAX_TRANSACTIONS}. */
  queueMaxTransactions?: number;
  /**
   * Also stream failed transactions. Default false: the filter asks the server
   * for successful ones only (`failed: false`); the decoder drops failed ones
   * anyway, and on pump.fun a large share of transactions fail (bots racing the
   * same curve), so this saves bandwidth and CPU. The normaliser still marks a
   * failed one as such when this is on.
   */
  includeFailed?: boolean;
  /** Programs whose transactions are streamed (any account key matches). Default {@link TRADE_PROGRAM_IDS}. */
  programIds?: readonly string[];
  /**
   * Reconnect when no update (not even a server ping or slot) arrived for this
   * long while the stream was not paused by back-pressure, ms: catches a
   * silently dead TCP connection. Default {@link DEFAULT_IDLE_TIMEOUT_MS}.
   */
  idleTimeoutMs?: number;
  /** Native channel options; defaults: 10 s connect timeout, 64 MiB max message. */
  channelOptions?: ChannelOptions;
  /** Clock (ms since epoch) for the lag metrics; tests inject one. Default Date.now. */
  now?: () => number;
}

/** The source's own metrics (besides {@link SourceMetrics}); label `source`. */
export interface YellowstoneMetrics {
  /** Transactions received and waiting for the consumer. */
  queueDepth: Gauge<'source'>;
  /** Times the queue reached its bound and the stream was paused (back-pressure). */
  queueFull: Counter<'source'>;
  /** Reconnects that could not resume from the last processed slot (server no longer holds it, or no replay): a gap. */
  resumeGaps: Counter<'source'>;
  /** Transaction updates that could not be normalised (logged and skipped). */
  malformed: Counter<'source'>;
}

/** Registers (or reuses) {@link YellowstoneMetrics} on `registry`. */
export function yellowstoneMetrics(registry: Registry): YellowstoneMetrics {
  const gauge = (name: string, help: string) => gaugeOnce(registry, name, help, ['source']);
  const counter = (name: string, help: string) => counterOnce(registry, name, help, ['source']);
  return {
    queueDepth: gauge('tradewind_ingest_source_queue_depth', 'Transactions received from the live source and waiting for the decoder'),
    queueFull: counter('tradewind_ingest_source_queue_full_total', 'Times the live source queue reached its bound and the stream was paused'),
    resumeGaps: counter('tradewind_ingest_source_resume_gaps_total', 'Reconnects that could not resume from the last processed slot (transactions missed)'),
    malformed: counter('tradewind_ingest_source_malformed_total', 'Transaction updates from the live source that could not be normalised'),
  };
}

/**
 * The SubscribeRequest the source sends: one transactions filter `tradewind`
 * (accountInclude = `programIds`, vote false, failed false unless
 * `includeFailed`), a slots filter `tip` (filterByCommitment, for the slot-lag
 * metric), a slots filter `slot_status` (every status, interslot ones included:
 * the real server sends SLOT_DEAD only with `interslotUpdates`; processed,
 * confirmed, finalized and dead become slot messages), a blocksMeta filter
 * `block_time` (block times for the slot), the
 * commitment, and `fromSlot` when resuming (u64 as a decimal string).
 */
export function buildSubscribeRequest(options: {
  commitment: Commitment;
  programIds: readonly string[];
  includeFailed: boolean;
  fromSlot: number | null;
}): SubscribeRequest {
  return SubscribeRequest.fromPartial({
    transactions: {
      tradewind: {
        vote: false,
        failed: options.includeFailed ? undefined : false,
        accountInclude: [...options.programIds],
        accountExclude: [],
        accountRequired: [],
      },
    },
    slots: { [TIP_FILTER]: { filterByCommitment: true }, [SLOT_STATUS_FILTER]: { filterByCommitment: false, interslotUpdates: true } },
    blocksMeta: { block_time: {} },
    commitment: COMMITMENT_LEVEL[options.commitment],
    fromSlot: options.fromSlot === null ? undefined : String(options.fromSlot),
  });
}

/** Parses the real server's replay refusal: `broadcast from N is not available, last available: M`. */
function unavailableFrom(message: string): number | null | undefined {
  const m = /broadcast from \d+ is not available, last available: (\d+)/.exec(message);
  if (m) return Number(m[1]);
  if (/from_slot is not supported/.test(message)) return null;
  return undefined;
}

/** `promise`, or a rejection as soon as `signal` aborts (connect and unary calls take no signal). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function origin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return '(unparsable endpoint)';
  }
}

function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const causes: string[] = [err.message];
  for (let c: unknown = err.cause; c instanceof Error && causes.length < 5; c = c.cause) causes.push(c.message);
  return causes.join(': ');
}

/** The slot statuses that become slot messages (./slot-tracker.ts), by Yellowstone's enum. */
const PUBLISHED_SLOT_STATUS: ReadonlyMap<SlotStatus, SlotUpdate['status']> = new Map([
  [SlotStatus.SLOT_PROCESSED, 'processed'],
  [SlotStatus.SLOT_CONFIRMED, 'confirmed'],
  [SlotStatus.SLOT_FINALIZED, 'finalized'],
  [SlotStatus.SLOT_DEAD, 'dead'],
]);

/**
 * One Subscribe stream: a bounded FIFO of its transaction updates and the slot
 * statuses among them (their order kept: a slot's status after its
 * transactions), filled from the stream's `data` events and drained by
 * {@link take}. At the bound the stream is paused (Node stream back-pressure
 * reaches the native reader and HTTP/2 flow control); it resumes at half the
 * bound. Block-meta and ping updates are handled on arrival.
 */
class Session {
  readonly #stream: ClientDuplexStream;
  readonly #items: (SubscribeUpdateTransaction | SlotUpdate | undefined)[] = [];
  #head = 0;
  #paused = false;
  #failure: Error | null = null;
  #wake: (() => void) | null = null;
  #lastDataAt: number;
  #pingId = 0;
  readonly #watchdog: NodeJS.Timeout;
  received = false;

  constructor(
    stream: ClientDuplexStream,
    private readonly ctx: {
      max: number;
      idleTimeoutMs: number;
      signal: AbortSignal;
      onFirstData: () => void;
      onSlot: (slot: number) => void;
      onBlockTime: (slot: number, ms: number) => void;
      onQueueFull: (depth: number) => void;
      onDepth: (depth: number) => void;
      log: Logger;
    },
  ) {
    this.#stream = stream;
    this.#lastDataAt = Date.now();
    stream.on('data', (u: SubscribeUpdate) => this.#onUpdate(u));
    stream.on('error', (err: Error) => this.#fail(err, true));
    stream.on('end', () => this.#fail(new Error('stream ended by the server')));
    stream.on('close', () => this.#fail(new Error('stream closed')));
    ctx.signal.addEventListener('abort', this.#wakeUp);
    const check = Math.max(10, Math.min(ctx.idleTimeoutMs / 3, 5_000));
    this.#watchdog = setInterval(() => {
      if (!this.#paused && Date.now() - this.#lastDataAt > ctx.idleTimeoutMs) {
        this.#fail(new Error(`no update for ${ctx.idleTimeoutMs} ms`), true);
        stream.destroy();
      }
    }, check);
    this.#watchdog.unref();
  }

  get depth(): number {
    return this.#items.length - this.#head;
  }

  /** Next transaction update or slot status; null when `signal` aborted; throws the stream's error once the queue is empty. */
  async take(): Promise<SubscribeUpdateTransaction | SlotUpdate | null> {
    for (;;) {
      if (this.ctx.signal.aborted) return null;
      if (this.#head < this.#items.length) {
        const u = this.#items[this.#head]!;
        this.#items[this.#head++] = undefined;
        if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
          this.#items.splice(0, this.#head);
          this.#head = 0;
        }
        const depth = this.depth;
        this.ctx.onDepth(depth);
        if (this.#paused && depth <= this.ctx.max >> 1 && this.#failure === null) {
          this.#paused = false;
          this.#lastDataAt = Date.now();
          this.#stream.resume();
        }
        return u;
      }
      if (this.#failure) throw this.#failure;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  close(): void {
    clearInterval(this.#watchdog);
    this.ctx.signal.removeEventListener('abort', this.#wakeUp);
    this.#failure ??= new Error('closed');
    this.#stream.destroy();
    this.#items.length = 0;
    this.#head = 0;
    this.ctx.onDepth(0);
  }

  readonly #wakeUp = (): void => {
    const w = this.#wake;
    this.#wake = null;
    w?.();
  };

  #fail(err: Error, preferred = false): void {
    // 'end'/'close' may precede the 'error' that explains them: keep the explanation.
    if (this.#failure === null || (preferred && /^stream (ended|closed)/.test(this.#failure.message))) this.#failure = err;
    this.#wakeUp();
  }

  #onUpdate(u: SubscribeUpdate): void {
    this.#lastDataAt = Date.now();
    if (!this.received) {
      this.received = true;
      this.ctx.onFirstData();
    }
    if (u.transaction !== undefined || (u.slot !== undefined && u.filters.includes(SLOT_STATUS_FILTER) && PUBLISHED_SLOT_STATUS.has(u.slot.status))) {
      if (u.transaction !== undefined) this.#items.push(u.transaction);
      else {
        const s = u.slot!;
        this.#items.push({
          kind: 'slot',
          slot: Number(s.slot),
          parent: s.parent === undefined ? null : Number(s.parent),
          status: PUBLISHED_SLOT_STATUS.get(s.status)!,
          ...(s.deadError ? { deadError: s.deadError } : {}),
        });
        if (s.status !== SlotStatus.SLOT_DEAD && u.filters.includes(TIP_FILTER)) this.ctx.onSlot(Number(s.slot));
      }
      const depth = this.depth;
      this.ctx.onDepth(depth);
      if (depth >= this.ctx.max && !this.#paused) {
        this.#paused = true;
        this.#stream.pause();
        this.ctx.onQueueFull(depth);
      }
      this.#wakeUp();
    } else if (u.slot !== undefined) {
      if (u.slot.status !== SlotStatus.SLOT_DEAD && u.filters.includes(TIP_FILTER)) this.ctx.onSlot(Number(u.slot.slot));
    } else if (u.blockMeta !== undefined) {
      const slot = Number(u.blockMeta.slot);
      const t = u.blockMeta.blockTime?.timestamp;
      if (t !== undefined) this.ctx.onBlockTime(slot, Number(t) * 1000);
      this.ctx.onSlot(slot);
    } else if (u.ping !== undefined) {
      // Answer the server's keep-alive as the Yellowstone examples do: a request with only `ping`
      // set is answered with a pong and leaves the subscription's filters unchanged.
      if (this.#stream.destroyed || this.#stream.writableEnded) return;
      this.#stream.write(SubscribeRequest.fromPartial({ ping: { id: ++this.#pingId } }), (err) => {
        if (err) this.ctx.log.debug({ err: errorMessage(err) }, 'ping reply not sent');
      });
    }
  }
}

/**
 * Creates the Yellowstone live source (`name` = `yellowstone`).
 *
 * Each connection: a new native `Client` (the package's built-in reconnect is
 * NOT enabled: reconnecting here keeps one backoff, resume and metrics contract
 * for every source), `connect()`, GetSlot while the run has no resume point yet
 * (see Resume), then one Subscribe stream with {@link buildSubscribeRequest}.
 * Server pings are answered.
 *
 * Commitment: `options.commitment` (default {@link DEFAULT_YELLOWSTONE_COMMITMENT})
 * is the SubscribeRequest's, and every yielded transaction carries it as
 * `commitment` (the server streams a transaction once its slot reaches that level).
 * Throws RangeError for an unknown level or a bad `queueMaxTransactions`.
 *
 * Delivery: transactions are yielded in arrival order through a bounded queue
 * (`queueMaxTransactions`; at the bound the stream pauses, so the server's
 * own per-client buffer absorbs the rest and, if that overflows, the server
 * ends the stream "lagged" and we resume from the last processed slot: nothing
 * is dropped silently; each pause counts in `tradewind_ingest_source_queue_full_total`
 * and is logged). Normalisation happens when the consumer takes the transaction.
 *
 * Resume: when the stream fails, the transactions already received are still
 * handed out, then the source waits {@link backoffDelayMs} (attempt 0 after a
 * connection that delivered data) and subscribes again with `fromSlot` = the
 * slot of the last transaction the consumer took (inclusive; before any, the
 * configured `fromSlot`, else the server's slot when the run started: GetSlot on
 * the first connection, or the first slot seen if the server refuses GetSlot). The
 * replayed part of that slot is skipped through {@link ResumeState}
 * (`duplicatesSkipped`). When the server no longer holds that slot it answers
 * "broadcast from N is not available, last available: M": the source resumes
 * from M, logs an error naming the missed range and counts `resume_gaps_total`;
 * a server without replay ("from_slot is not supported") is resumed at the tip
 * the same way.
 *
 * Caveat (server side): at `processed`, a Yellowstone replay only holds slots
 * whose bank was complete when the request arrived (yellowstone-grpc-geyser
 * `processed_replay_loses_transactions` test), so transactions of the slot in
 * progress at the moment of a disconnect can be missed; `confirmed` replays
 * whole slots.
 *
 * Block time: transaction updates carry none; `blockTimeMs` is the blocksMeta
 * block time of the slot when the source already has it (the server sends a
 * slot's BlockMeta after its transactions, so in practice only for
 * transactions that waited in the queue), else null. The seconds-behind metric
 * uses the slot's block time once known (it usually is by the time the consumer
 * is done with the transaction), else an estimate from the newest known block
 * time + 400 ms per slot.
 */
export function createYellowstoneSource(options: YellowstoneSourceOptions): TransactionSource {
  const name = 'yellowstone';
  const commitment = options.commitment ?? DEFAULT_YELLOWSTONE_COMMITMENT;
  // Stamped on every message: an unknown level must not silently subscribe at the server's default.
  if (!Object.hasOwn(COMMITMENT_LEVEL, commitment))
    throw new RangeError(`commitment must be processed, confirmed or finalized, got ${JSON.stringify(commitment)}`);
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const max = options.queueMaxTransactions ?? DEFAULT_QUEUE_MAX_TRANSACTIONS;
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`queueMaxTransactions must be a positive integer, got ${max}`);
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const programIds = options.programIds ?? TRADE_PROGRAM_IDS;
  const includeFailed = options.includeFailed ?? false;
  const now = options.now ?? Date.now;
  const metrics = options.metrics;
  const own = yellowstoneMetrics(options.registry ?? new Registry());
  const label = { source: name };
  const log = options.logger.child({ component: 'yellowstone-source' });
  const channelOptions: ChannelOptions = { grpcConnectTimeout: 10_000, grpcMaxDecodingMessageSize: 64 * 1024 * 1024, ...options.channelOptions };

  async function* transactions(signal: AbortSignal): AsyncGenerator<NormalizedTransaction> {
    for await (const u of updates(signal)) if (!('kind' in u)) yield u;
  }

  async function* updates(signal: AbortSignal): AsyncGenerator<NormalizedTransaction | SlotUpdate> {
    const resume = new ResumeState(options.fromSlot);
    const lag = new LagTracker(metrics, name, now);
    const blockTimes = new Map<number, number>();
    let newestBlock: { slot: number; ms: number } | null = null;
    /**
     * Where this run started when it was not given `fromSlot`: the server's slot
     * (GetSlot) at the first connection, else the first slot seen. A reconnect
     * before any transaction was processed resumes there, so a connection lost
     * early (with updates still unread in the native layer) leaves no gap.
     */
    let startSlot: number | null = null;
    /** Lowest slot the server can still replay, learnt from a refused resume. */
    let floor: number | null = null;
    let replayUnsupported = false;
    let lastQueueFullLog = 0;
    let attempt = 0;

    const resumeSlot = (): number | null => {
      if (replayUnsupported) return null;
      const s = resume.lastSlot ?? startSlot;
      if (s === null) return null;
      return floor !== null && floor > s ? floor : s;
    };
    const estimateBlockTime = (slot: number): number | null => (newestBlock === null ? null : newestBlock.ms + (slot - newestBlock.slot) * MS_PER_SLOT);

    for (let connection = 0; !signal.aborted; connection++) {
      if (connection > 0) {
        const delayMs = backoffDelayMs(attempt, backoff);
        metrics.reconnects.inc(label);
        log.info({ attempt, delay_ms: delayMs }, 'reconnecting after backoff');
        attempt++;
        await sleep(delayMs, signal);
        if (signal.aborted) break;
      }
      const fromSlot = resumeSlot();
      if (replayUnsupported && (resume.lastSlot ?? startSlot) !== null) {
        // Every reconnect to a server without replay can miss what happened meanwhile.
        own.resumeGaps.inc(label);
        log.warn({ last_slot: resume.lastSlot }, 'resubscribing at the tip (server cannot replay): transactions since the last processed slot may be missed');
      }
      let session: Session | null = null;
      try {
        const client = new YellowstoneClient(options.endpoint, options.xToken, channelOptions);
        await abortable(client.connect(), signal);
        if (resume.lastSlot === null && startSlot === null) {
          try {
            startSlot = Number((await abortable(client.getSlot(COMMITMENT_LEVEL[commitment]), signal)).slot);
          } catch (err) {
            if (signal.aborted) throw err;
            // Servers without block-meta storage answer "method disabled": fall back to the first slot seen.
            log.debug({ err: errorMessage(err) }, 'GetSlot failed; the start slot will be the first one seen');
          }
        }
        const request = buildSubscribeRequest({ commitment, programIds, includeFailed, fromSlot });
        const stream = await abortable(
          client.subscribe(request).then((s) => {
            if (signal.aborted) s.destroy(); // resolved after the abort: nobody else will close it
            return s;
          }),
          signal,
        );
        session = new Session(stream, {
          max,
          idleTimeoutMs,
          signal,
          log,
          onFirstData: () => {
            attempt = 0;
            metrics.connected.set(label, 1);
          },
          onSlot: (slot) => {
            startSlot ??= slot;
            lag.tip(slot);
          },
          onBlockTime: (slot, ms) => {
            blockTimes.set(slot, ms);
            if (newestBlock === null || slot >= newestBlock.slot) newestBlock = { slot, ms };
            if (blockTimes.size > BLOCK_TIMES_KEPT) {
              for (const s of blockTimes.keys()) {
                if (blockTimes.size <= BLOCK_TIMES_KEPT / 2) break;
                blockTimes.delete(s);
              }
            }
          },
          onQueueFull: (depth) => {
            own.queueFull.inc(label);
            const t = Date.now();
            if (t - lastQueueFullLog >= QUEUE_FULL_LOG_EVERY_MS) {
              lastQueueFullLog = t;
              log.warn({ depth, max }, 'transaction queue full: stream paused until the decoder catches up (nothing dropped)');
            }
          },
          onDepth: (depth) => own.queueDepth.set(label, depth),
        });
        log.info({ endpoint: origin(options.endpoint), commitment, from_slot: fromSlot, include_failed: includeFailed }, 'subscribed');

        for (;;) {
          const update = await session.take();
          if (update === null) return;
          if ('kind' in update) {
            yield update;
            continue;
          }
          let tx: NormalizedTransaction;
          const slot = Number(update.slot);
          startSlot ??= slot;
          try {
            tx = normalizeYellowstoneTransaction(update, commitment, blockTimes.get(slot) ?? null);
          } catch (err) {
            own.malformed.inc(label);
            log.error({ slot, err: errorMessage(err) }, 'transaction update skipped: not normalisable');
            continue;
          }
          if (resume.has(slot, tx.signature)) {
            metrics.duplicatesSkipped.inc(label);
            continue;
          }
          yield tx;
          // The consumer asked for the next one: this one is processed.
          resume.add(slot, tx.signature);
          metrics.transactions.inc(label);
          // The slot's BlockMeta may have arrived while the consumer held the transaction.
          lag.processed(slot, tx.blockTimeMs ?? blockTimes.get(slot) ?? estimateBlockTime(slot));
        }
      } catch (err) {
        if (signal.aborted) break;
        const message = errorMessage(err);
        const available = unavailableFrom(message);
        if (available !== undefined && fromSlot !== null) {
          if (available === null) {
            replayUnsupported = true; // counted as a gap at each resubscription
            log.error({ from_slot: fromSlot }, 'server cannot replay (from_slot not supported): resuming at the tip from now on');
          } else {
            own.resumeGaps.inc(label);
            floor = available;
            log.error(
              { from_slot: fromSlot, first_available: available },
              `server no longer holds slot ${fromSlot}: resuming from ${available}, transactions of slots ${fromSlot}..${available - 1} are missed`,
            );
          }
        } else {
          log.warn({ err: message, received: session?.received ?? false, last_slot: resume.lastSlot }, 'yellowstone stream failed');
        }
      } finally {
        session?.close();
        metrics.connected.set(label, 0);
      }
    }
  }

  return { name, commitment, transactions, updates };
}
