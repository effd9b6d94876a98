/**
 * Publishing trades to JetStream TRADES: pipelined, in source order, nothing dropped.
 *
 * {@link OrderedPublisher} keeps up to `maxInFlight` acknowledged publishes in flight at once (a window),
 * so ingest runs at the broker's pace instead of one round trip per trade, and keeps the trades in the
 * order the source gave them:
 * - Every publish sent while others are in flight, and every re-send's anchor, carries
 *   `Nats-Expected-Last-Msg-Id` = the `Nats-Msg-Id` of the trade before it (a first attempt sent with nothing in
 *   flight follows an acknowledged trade and needs none). nats-server refuses a message whose expectation does
 *   not match the stream's last message id (error 10070 "wrong last msg ID"), so when a trade is not stored (a
 *   timeout, no responders during a leader election, a connection cut) every later trade of the window is
 *   refused too: a later trade is never stored before an earlier one.
 * - On any failure the window stops sending, waits until every publish in flight has an answer, and sends
 *   again from the first unacknowledged trade (the anchor of a new chain). The anchor expects the last trade
 *   this publisher saw acknowledged. When the stream's last message is a later trade of ours (stored, its
 *   acknowledgement lost with a killed leader or a cut connection), the server refuses the anchor and names
 *   that message ("wrong last msg ID: <id>"): every trade of the window up to it is stored (a stored trade's
 *   predecessors are stored: the chain), so they count as acknowledged and the window continues after it.
 *   So a re-send never stores a trade twice, even when the duplicate window does not catch it (seen on
 *   nats-server 2.9.10 after TRADES leader kills under load: a whole window of 1,024 trades stored twice,
 *   npm run chaos). Only when the stream's last message is not ours (another writer) does the next anchor
 *   go without an expectation; a re-sent trade that was stored after all is then answered as a duplicate
 *   (`Nats-Msg-Id`, checked by the server before the expectation).
 * - A unit's `onDone` (ingest: the live checkpoint) runs only when its trades and every trade enqueued
 *   before them are acknowledged, in enqueue order.
 * - When the window is full, `enqueue` waits: the caller stops reading its source (back-pressure).
 * - Another writer on TRADES (a second ingest, or any other publisher) would break the chain at each of its
 *   messages, and nats-server keeps the id of every message it refused for a failed expectation staged (answering
 *   its re-sends "duplicate, seq 0", or 10158, while the same node leads: docs/reliability.md "Which nats-server").
 *   So once another writer is seen (a refusal naming a message that is not ours, or an acknowledgement whose
 *   sequence is not the one right after our previous), the publisher goes *serial* for
 *   {@link OrderedPublisherOptions.contentionHoldMs} after the last sign of it: one attempt in flight at a time, each
 *   sent only after its predecessor is acknowledged (order without the chain), first attempts without an
 *   expectation; only the anchor of a re-send still expects our last acknowledged trade (which keeps a new leader
 *   that has not applied its predecessor's last entries from storing a copy), and goes without one while the
 *   stream's last message is known to be another writer's. Nothing is lost or reordered within each writer.
 *
 * Every attempt carries `Tradewind-Published-Ms` (epoch ms of the attempt; ws-fanout's delivery latency starts
 * there) and `Nats-Msg-Id`, and is also copied, as a core NATS message with the same bytes and headers, to the
 * trade's per-mint subjects (`<subject>.mint.<mint>`, ./mint-subjects.ts), which TRADES does not store (its
 * subjects are exact). A copy goes out with every attempt, right after it: a mint subscriber sees exactly what
 * a core subscriber of the subject sees for that mint, at the same moment (a retried attempt included, with
 * the same Nats-Msg-Id), and no JetStream acknowledgement delays it.
 */
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { SLOTS_SUBJECT, TRADE_PUBLISHED_MS_HEADER } from '@tradewind/contracts';
import { watchStreamLeader, type Logger, type StreamLeaderWatch } from '@tradewind/lib';
import { mintSubjectsOf } from './mint-subjects.js';
import type { OutgoingTrade } from './replay/replay-source.js';
import type { OutgoingSlotMessage } from './live/slot-tracker.js';

/**
 * What the publisher stores in TRADES: a trade on its subject, or a slot status message on `slots`
 * (./live/slot-tracker.ts), chained in the same order.
 */
export type OutgoingMessage = OutgoingTrade | OutgoingSlotMessage;

/** JetStream's dedup header (nats.js sets it from `msgID` too); set here first so the mint copies carry it. */
const MSG_ID_HEADER = 'Nats-Msg-Id';

export interface PublisherMetrics {
  published: Counter<'subject'>;
  duplicates: Counter<'subject'>;
  errors: Counter;
  /** Core NATS copies sent to per-mint subjects, by TRADES subject (one per mint per attempt). */
  mintCopies: Counter<'subject'>;
  /** Copies nats.js refused to send (connection closed); the trade itself is still retried as usual. */
  mintCopyErrors: Counter;
  /** Trades enqueued and not yet acknowledged (the window's fill), read from the publisher when scraped. */
  inFlight: Gauge;
  /** Sets where {@link inFlight} reads its value (the {@link OrderedPublisher} does this). */
  trackInFlight(size: () => number): void;
  /** Times `enqueue` had to wait for room in the window (the source was paused). */
  windowFull: Counter;
  /** Times the window stopped and re-sent from its first unacknowledged trade, by the first failure's kind. */
  resends: Counter<'reason'>;
  /** Seconds from the attempt that was acknowledged to its acknowledgement. */
  ackSeconds: Histogram;
  /** Stream leader step-downs the publisher asked for to clear staged message ids ({@link OrderedPublisherOptions.stagedIdStepdownMs}). */
  stepdowns: Counter;
  /** Times the publisher saw another writer on the stream and went serial ({@link OrderedPublisherOptions.contentionHoldMs}). */
  contentions: Counter;
  /** 1 while the publisher is serial because another writer was seen, else 0; read from the publisher when scraped. */
  serial: Gauge;
  /** Sets where {@link serial} reads its value (the {@link OrderedPublisher} does this). */
  trackSerial(serial: () => boolean): void;
}

/** Registers the publisher's metrics on `registry`. */
export function publisherMetrics(registry: Registry): PublisherMetrics {
  let inFlightNow: () => number = () => 0;
  let serialNow: () => boolean = () => false;
  return {
    trackInFlight: (size) => {
      inFlightNow = size;
    },
    trackSerial: (serial) => {
      serialNow = serial;
    },
    contentions: new Counter({
      name: 'tradewind_ingest_publish_contentions_total',
      help: 'Times ingest saw another writer on TRADES and went serial (one publish in flight) for PUBLISH_CONTENTION_HOLD_MS',
      registers: [registry],
    }),
    serial: new Gauge({
      name: 'tradewind_ingest_publish_serial',
      help: '1 while ingest publishes one trade at a time because another writer was seen on TRADES, else 0',
      registers: [registry],
      collect() {
        this.set(serialNow() ? 1 : 0);
      },
    }),
    published: new Counter({
      name: 'tradewind_ingest_trades_published_total',
      help: 'Trades stored in TRADES',
      labelNames: ['subject'],
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'tradewind_ingest_trades_duplicate_total',
      help: 'Trades JetStream dropped as duplicates (Nats-Msg-Id)',
      labelNames: ['subject'],
      registers: [registry],
    }),
    errors: new Counter({ name: 'tradewind_ingest_publish_errors_total', help: 'Failed publish attempts (each is retried)', registers: [registry] }),
    mintCopies: new Counter({
      name: 'tradewind_ingest_mint_copies_published_total',
      help: 'Core NATS copies of trades sent to <subject>.mint.<mint> (not stored)',
      labelNames: ['subject'],
      registers: [registry],
    }),
    mintCopyErrors: new Counter({
      name: 'tradewind_ingest_mint_copy_errors_total',
      help: 'Copies to per-mint subjects that could not be sent',
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'tradewind_ingest_publish_in_flight',
      help: 'Trades handed to the publisher and not yet acknowledged by TRADES (bounded by PUBLISH_MAX_IN_FLIGHT)',
      registers: [registry],
      collect() {
        this.set(inFlightNow());
      },
    }),
    windowFull: new Counter({
      name: 'tradewind_ingest_publish_window_full_total',
      help: 'Times the publish window was full and ingest stopped reading its source until an acknowledgement',
      registers: [registry],
    }),
    resends: new Counter({
      name: 'tradewind_ingest_publish_resends_total',
      help: 'Times the publish window was re-sent from its first unacknowledged trade, by the first failure (order, timeout, error, leader, unconfirmed)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    stepdowns: new Counter({
      name: 'tradewind_ingest_stream_stepdowns_total',
      help: 'Times ingest asked the TRADES leader to step down because it answered only "duplicate, seq 0" (a staged message id) for PUBLISH_STAGED_ID_STEPDOWN_MS',
      registers: [registry],
    }),
    ackSeconds: new Histogram({
      name: 'tradewind_ingest_publish_ack_seconds',
      help: 'Seconds from a publish attempt to its acknowledgement by TRADES',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}

/**
 * Sends one attempt's core NATS copies. Never throws: a copy that cannot be sent is counted and logged, and
 * the trade's own publish (whose promise is pending while this runs) is unaffected.
 */
function publishMintCopies(
  nc: Pick<NatsConnection, 'publish'>,
  trade: OutgoingMessage,
  subjects: readonly string[],
  data: Uint8Array,
  headers: MsgHdrs,
  deps: { logger: Logger; metrics: PublisherMetrics },
): void {
  try {
    for (let i = 0; i < subjects.length; i++) nc.publish(subjects[i]!, data, { headers });
    deps.metrics.mintCopies.inc({ subject: trade.subject }, subjects.length);
  } catch (err) {
    deps.metrics.mintCopyErrors.inc();
    deps.logger.warn({ err, msg_id: trade.msgId }, 'copy to the per-mint subjects failed');
  }
}

/** nats-server's error code for a failed `Nats-Expected-Last-Msg-Id` (JSStreamWrongLastMsgIDErrF, "wrong last msg ID: <id>"). */
export const WRONG_LAST_MSG_ID_ERR_CODE = 10070;

/**
 * The stream's last message id named by a 10070 refusal (nats-server's JSStreamWrongLastMsgIDErrF description
 * `wrong last msg ID: {id}`, server/errors.json), `''` when the stream's last message has none, or null when
 * `err` is not such a refusal.
 */
export function lastMsgIdOfRefusal(err: unknown): string | null {
  if (typeof err !== 'object' || err === null || (err as { code?: unknown }).code !== WRONG_LAST_MSG_ID_ERR_CODE) return null;
  const m = /wrong last msg ID: ?(.*)$/.exec(String((err as { message?: unknown }).message ?? ''));
  return m ? m[1]!.trim() : null;
}

/**
 * nats-server's error code (2.11 and newer) for a publish whose `Nats-Msg-Id` is staged by a proposal not applied
 * (JSStreamDuplicateMessageConflict, 409 "duplicate message id is in process", server/errors.json): what 2.10
 * answers as "duplicate, seq 0" ({@link UnconfirmedDuplicateError}).
 */
export const DUPLICATE_IN_PROCESS_ERR_CODE = 10158;

/**
 * Why a window was re-sent: `order` (a chain expectation failed), `timeout` (no acknowledgement in time),
 * `error`, or `leader` (TRADES elected a leader or the connection reconnected while attempts were in
 * flight: they may have died with the old leader, so the window is re-sent at once, see {@link OrderedPublisher.kick}).
 */
export type ResendReason = 'order' | 'timeout' | 'error' | 'leader' | 'unconfirmed';

/**
 * A `duplicate` acknowledgement with stream sequence 0: the stream leader has the `Nats-Msg-Id` only staged
 * from an earlier attempt's proposal, not stored. nats-server 2.10 (jetstream_cluster.go
 * processClusteredInboundMsg, "stage with zero") records a clustered stream's message ids when it proposes a
 * message; a proposal lost in a leader change leaves the id there for the duplicate window, and every re-send
 * is answered "duplicate, seq 0" although nothing was stored (npm run chaos on 2.10.27: ingest counted a whole
 * window as acknowledged while TRADES stored none of it). nats-server 2.11.0 clears staged ids on a leader change
 * (commit 9c63e12), but an id whose proposal is still in flight answers seq 0 in every version: a re-send that
 * overtakes its own first attempt. A stored message's duplicate always names its sequence, so seq 0 is never
 * taken as stored: the trade is re-sent until it is stored or truly a duplicate.
 */
export class UnconfirmedDuplicateError extends Error {
  constructor(readonly msgId: string) {
    super(`TRADES answered "duplicate" with stream sequence 0 for ${msgId}: staged by a lost proposal, not stored`);
    this.name = 'UnconfirmedDuplicateError';
  }
}

/** Classifies a failed publish for the resend metric and the backoff (only `order` is re-sent at once). */
export function resendReason(err: unknown): ResendReason {
  if (err instanceof UnconfirmedDuplicateError) return 'unconfirmed';
  if (typeof err === 'object' && err !== null) {
    if ((err as { code?: unknown }).code === WRONG_LAST_MSG_ID_ERR_CODE) return 'order';
    if ((err as { code?: unknown }).code === DUPLICATE_IN_PROCESS_ERR_CODE) return 'unconfirmed';
    if ((err as { name?: unknown }).name === 'TimeoutError') return 'timeout';
  }
  return 'error';
}

/** Options of {@link OrderedPublisher}. */
export interface OrderedPublisherOptions {
  /** JetStream client of `nc`'s connection. */
  js: JetStreamClient;
  /** The connection `js` publishes on, for the per-mint core copies (its write buffer keeps them right behind the trade). */
  nc: Pick<NatsConnection, 'publish'>;
  logger: Logger;
  metrics: PublisherMetrics;
  /** Trades enqueued and not yet acknowledged, at most (config PUBLISH_MAX_IN_FLIGHT). A unit larger than this is taken when the window is empty. */
  maxInFlight: number;
  /** How long one attempt waits for its acknowledgement, ms (config PUBLISH_ACK_TIMEOUT_MS). */
  ackTimeoutMs: number;
  /** Longest wait before re-sending after a timeout or error, ms (config PUBLISH_MAX_BACKOFF_MS); the first wait is 100 ms, doubling. */
  maxBackoffMs: number;
  /** Aborting stops every send and retry; what is not acknowledged by then is not published by this process. */
  signal: AbortSignal;
  /**
   * When given, the publisher watches the stream's leader elections and `nc`'s reconnects
   * (`watchStreamLeader`) and calls {@link OrderedPublisher.kick} on each, until `signal` aborts.
   */
  leaderSignals?: { nc: NatsConnection; stream: string };
  /**
   * The staged-id remedy, ms (config PUBLISH_STAGED_ID_STEPDOWN_MS; 0 or absent: never). When every answer for this
   * long was "duplicate, seq 0" or 10158 (a message id the leader staged for a proposal that was lost, or refused when
   * applied: nats-server keeps such an id until the duplicate window ends or, from 2.11, a leader change; docs/reliability.md
   * "Which nats-server") and none stored anything, the publisher asks the stream's leader to step down, at most once
   * per this long: a new leader holds no staged id of ours, and its election kicks the window ({@link kick}). Without it
   * ingest would store nothing for up to the duplicate window (2 min).
   */
  stagedIdStepdownMs?: number;
  /**
   * How long the publisher stays serial after it last saw another writer on the stream, ms (config
   * PUBLISH_CONTENTION_HOLD_MS; 0: never serial, the chain alone). See the module comment: while two writers
   * pipeline with chained expectations, each refuses the other's messages and nats-server keeps every refused id
   * staged, so both wedge.
   */
  contentionHoldMs?: number;
  /**
   * Asks the stream's leader to step down. Default: `$JS.API.STREAM.LEADER.STEPDOWN.<stream>` on
   * `leaderSignals.nc` (1 s timeout). @throws whatever the request throws (logged, never fatal).
   */
  stepdown?: () => Promise<unknown>;
}

/** One trade in the window. */
interface Entry {
  readonly trade: OutgoingMessage;
  readonly data: Uint8Array;
  readonly mintSubjects: readonly string[];
  acked: boolean;
  /** Runs when this entry and every earlier one are acknowledged (the end of a unit). */
  onDone: (() => void) | null;
}

/** First wait before re-sending after a timeout or error, ms (doubles up to `maxBackoffMs`). */
const FIRST_BACKOFF_MS = 100;
const encoder = new TextEncoder();

/**
 * The pipelined, ordered publisher of trades into TRADES (see the module comment for the guarantees).
 * One producer calls {@link enqueue} (not concurrently); acknowledgements arrive in any order and
 * units complete in enqueue order.
 */
export class OrderedPublisher {
  readonly #o: OrderedPublisherOptions;
  readonly #q: (Entry | undefined)[] = [];
  #head = 0;
  /** Index in #q of the next entry to send. */
  #next = 0;
  /** Attempts sent and not answered yet. */
  #outstanding = 0;
  /** Msg id the next send expects as the stream's last (its predecessor), or null: the next send anchors a new chain. */
  #prevMsgId: string | null = null;
  /** Msg id of the last trade popped from the window (acknowledged, and every trade before it): what a re-send's anchor expects. */
  #lastAckedId: string | null = null;
  /** The stream's last message was found to be another writer's (and none of ours was stored since): re-send anchors go without an expectation. */
  #blindAnchor = false;
  /** The next send is the anchor of a re-send (the only send that carries an expectation while serial). */
  #anchorPending = false;
  /** Epoch ms until which the publisher is serial (another writer was seen); 0: never was. */
  #serialUntil = 0;
  /** Stream sequence of the last acknowledgement of ours (stored or duplicate), null when not known: the next one of ours should follow it. */
  #lastSeq: number | null = null;
  /** The last refusal's named id already looked up in the window (one scan per distinct id). */
  #lastRefusalId: string | null = null;
  /** A failure was seen: no sends until every outstanding attempt is answered, then a re-send. */
  #failed: ResendReason | null = null;
  #resendTimer: NodeJS.Timeout | null = null;
  #backoffMs = FIRST_BACKOFF_MS;
  #pumpScheduled = false;
  #spaceWaiter: (() => void) | null = null;
  #drainWaiters: ((drained: boolean) => void)[] = [];
  /** Generation of the attempts in flight: a kick starts a new one, and answers to older attempts no longer gate re-sends. */
  #gen = 0;
  #leaderWatch: StreamLeaderWatch | undefined;
  /** Epoch ms of the first "staged id" answer since the last stored one (null: none). */
  #stagedSince: number | null = null;
  /** Epoch ms of the last step-down asked for (0: none). */
  #lastStepdownAt = 0;
  /** Asks the stream's leader to step down: the option, else `$JS.API.STREAM.LEADER.STEPDOWN.<stream>` on the leader-signal connection; undefined without either. */
  readonly #stepdown: (() => Promise<unknown>) | undefined;

  constructor(options: OrderedPublisherOptions) {
    if (!Number.isInteger(options.maxInFlight) || options.maxInFlight < 1)
      throw new RangeError(`maxInFlight must be a positive integer, got ${options.maxInFlight}`);
    this.#o = options;
    const signals = options.leaderSignals;
    this.#stepdown =
      options.stepdown ?? (signals ? () => signals.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${signals.stream}`, '', { timeout: 1_000 }) : undefined);
    options.metrics.trackInFlight(() => this.size);
    options.metrics.trackSerial(() => this.serial);
    options.signal.addEventListener('abort', () => this.#onAbort(), { once: true });
    if (options.leaderSignals && !options.signal.aborted) {
      const { nc, stream } = options.leaderSignals;
      this.#leaderWatch = watchStreamLeader(nc, stream, (event) => this.kick(event.signal), { logger: options.logger });
    }
  }

  /**
   * The broker says attempts in flight may be lost (a new stream leader: the old one died with what it
   * had not stored; a reconnect: answers on the old connection never come). When attempts are in flight
   * or a re-send is waiting out its backoff, re-sends the window from its first unacknowledged trade at
   * once instead of waiting for PUBLISH_ACK_TIMEOUT_MS and the backoff. The older attempts still count
   * when they are acknowledged (the entry is done; its re-send is then a duplicate the stream drops);
   * their failures are ignored. Order holds: each re-send carries the expected last message id again.
   * @param why the signal, for the log.
   */
  kick(why: string): void {
    if (this.#o.signal.aborted) return;
    if (this.#outstanding === 0 && this.#resendTimer === null && this.#failed === null) return;
    if (this.size === 0) return;
    this.#gen++;
    this.#outstanding = 0;
    // A new leader (or server) gets a whole PUBLISH_STAGED_ID_STEPDOWN_MS before it is asked to step down in turn: one
    // that just took over is still applying its predecessor's entries, and its first answers may be "seq 0" for a
    // proposal in flight. Without this, `npm run chaos` (29 Nov 23:52, nats-server 2.10.27) saw a step-down every
    // second for a minute, each leader asked to go before its proposal committed, until every node had staged the id.
    this.#stagedSince = null;
    if (this.#failed === null) this.#o.metrics.resends.inc({ reason: 'leader' });
    this.#failed = 'leader';
    this.#backoffMs = FIRST_BACKOFF_MS;
    if (this.#resendTimer !== null) clearTimeout(this.#resendTimer);
    this.#resendTimer = null;
    this.#o.logger.warn({ signal: why, in_flight: this.size }, 'stream leader changed: re-sending the window from its first unacknowledged trade now');
    this.#maybeResend();
  }

  /** True while another writer was seen on the stream within `contentionHoldMs`: one attempt in flight at a time. */
  get serial(): boolean {
    return Date.now() < this.#serialUntil;
  }

  /** Another writer's message is in the stream: serial from now for `contentionHoldMs`. */
  #sawOtherWriter(evidence: Record<string, unknown>): void {
    const holdMs = this.#o.contentionHoldMs ?? 0;
    if (holdMs <= 0) return;
    const was = this.serial;
    this.#serialUntil = Date.now() + holdMs;
    if (was) return;
    this.#o.metrics.contentions.inc();
    this.#o.logger.info(
      { ...evidence, hold_ms: holdMs },
      'another writer publishes to TRADES: publishing one trade at a time, without chained expectations, until it has been quiet for the hold',
    );
  }

  /** Trades enqueued and not yet acknowledged. */
  get size(): number {
    return this.#q.length - this.#head;
  }

  /**
   * Hands one unit (a transaction's trades, in order; possibly none) to the window. Waits while the window
   * has no room for it (back-pressure); then encodes the trades and starts sending them.
   * @param onDone runs once, synchronously in an acknowledgement callback, when these trades and every trade
   *   enqueued before them are acknowledged (stored or duplicate); right away for an empty unit behind nothing.
   *   Never runs after `signal` aborted.
   * @returns false when `signal` aborted first (nothing of this unit was taken).
   */
  async enqueue(trades: readonly OutgoingMessage[], onDone?: () => void): Promise<boolean> {
    if (this.#o.signal.aborted) return false;
    if (trades.length === 0) {
      if (onDone) this.#attachDone(onDone);
      return true;
    }
    if (this.size > 0 && this.size + trades.length > this.#o.maxInFlight) {
      this.#o.metrics.windowFull.inc();
      while (this.size > 0 && this.size + trades.length > this.#o.maxInFlight) {
        await new Promise<void>((resolve) => (this.#spaceWaiter = resolve));
        if (this.#o.signal.aborted) return false;
      }
    }
    for (let i = 0; i < trades.length; i++) {
      const trade = trades[i]!;
      this.#q.push({
        trade,
        data: encoder.encode(JSON.stringify(trade.message)),
        // Slot messages have no per-mint copies.
        mintSubjects: trade.subject === SLOTS_SUBJECT ? [] : mintSubjectsOf(trade.subject, trade.message),
        acked: false,
        onDone: null,
      });
    }
    if (onDone) this.#q[this.#q.length - 1]!.onDone = onDone;
    this.#schedulePump();
    return true;
  }

  /** Resolves true once every enqueued trade is acknowledged (at once when none is pending); false when `signal` aborts first. */
  drained(): Promise<boolean> {
    if (this.size === 0) return Promise.resolve(true);
    if (this.#o.signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #attachDone(onDone: () => void): void {
    if (this.size === 0) {
      onDone();
      return;
    }
    const last = this.#q[this.#q.length - 1]!;
    const before = last.onDone;
    last.onDone =
      before === null
        ? onDone
        : () => {
            before();
            onDone();
          };
  }

  /**
   * Sends what was enqueued in this turn of the event loop together, at its end (setImmediate): nats.js
   * writes its buffer to the socket once per microtask turn, and the producer enqueues one unit per turn,
   * so sending at enqueue would cost a socket write (and a separate read and raft proposal on the server)
   * per trade; batched, the trades freed by one read of acknowledgements go out in one write.
   */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Sends every entry not sent yet, unless a failure is being handled. */
  #pump(): void {
    const signal = this.#o.signal;
    // Serial (read once: nothing in this loop changes it): the next attempt waits for this one's acknowledgement (#onAck pumps again).
    const serial = this.serial;
    while (this.#failed === null && this.#next < this.#q.length && !signal.aborted) {
      if (serial && this.#outstanding > 0) return;
      const e = this.#q[this.#next++]!;
      // Acknowledged after an earlier failure (that trade was stored after all): its successor may expect it.
      if (e.acked) this.#prevMsgId = e.trade.msgId;
      else this.#send(e);
    }
  }

  #send(e: Entry): void {
    const { js, ackTimeoutMs } = this.#o;
    const { trade } = e;
    // A re-send's anchor expects; a first attempt only while others are in flight (the chain). A first attempt sent
    // when nothing is in flight follows an acknowledged predecessor and was never sent before: it needs no expectation,
    // and another writer's message before it is seen in its acknowledgement's sequence instead of a refusal (which
    // would leave its id staged). While serial, nothing else is ever in flight.
    const expected = this.#anchorPending || this.#outstanding > 0 ? this.#prevMsgId : null;
    this.#anchorPending = false;
    this.#prevMsgId = trade.msgId;
    // Stamped per attempt: a retry that JetStream stores is published now. When an earlier attempt was
    // stored after all, the retry is a duplicate and the stored message keeps that attempt's time.
    const sentAt = Date.now();
    const h = natsHeaders();
    h.set(TRADE_PUBLISHED_MS_HEADER, String(sentAt));
    h.set(MSG_ID_HEADER, trade.msgId);
    // nats.js adds the expectation to the headers it is given: the copies get their own, without it.
    let copyHeaders: MsgHdrs | null = null;
    if (e.mintSubjects.length > 0) {
      copyHeaders = natsHeaders();
      copyHeaders.set(TRADE_PUBLISHED_MS_HEADER, String(sentAt));
      copyHeaders.set(MSG_ID_HEADER, trade.msgId);
    }
    this.#outstanding++;
    const gen = this.#gen;
    let acked: Promise<PubAck>;
    try {
      acked = js.publish(trade.subject, e.data, {
        msgID: trade.msgId,
        headers: h,
        timeout: ackTimeoutMs,
        ...(expected === null ? {} : { expect: { lastMsgID: expected } }),
      });
    } catch (err) {
      acked = Promise.reject(err);
    }
    if (copyHeaders !== null) publishMintCopies(this.#o.nc, trade, e.mintSubjects, e.data, copyHeaders, this.#o);
    acked.then(
      (ack) => this.#onAck(e, ack, sentAt, gen),
      (err: unknown) => this.#onError(e, err, gen),
    );
  }

  #onAck(e: Entry, ack: PubAck, sentAt: number, gen: number): void {
    if (ack.duplicate && ack.seq === 0) {
      this.#onError(e, new UnconfirmedDuplicateError(e.trade.msgId), gen);
      return;
    }
    this.#stagedSince = null;
    const current = gen === this.#gen;
    if (current) this.#outstanding--;
    if (this.#o.signal.aborted) return;
    // Ours follow each other in the stream (a chain, or serial sends): a gap is another writer's message.
    const lastSeq = this.#lastSeq;
    if (lastSeq !== null && ack.seq > lastSeq + 1 && !e.acked) this.#sawOtherWriter({ msg_id: e.trade.msgId, seq: ack.seq, previous_seq: lastSeq });
    if (lastSeq === null || ack.seq > lastSeq) this.#lastSeq = ack.seq;
    if (!ack.duplicate) this.#blindAnchor = false;
    // Both the attempt of an abandoned generation and its re-send answered: the first answer counted.
    if (e.acked) {
      if (current) this.#maybeResend();
      return;
    }
    const { metrics } = this.#o;
    e.acked = true;
    if (ack.duplicate) metrics.duplicates.inc({ subject: e.trade.subject });
    else metrics.published.inc({ subject: e.trade.subject });
    metrics.ackSeconds.observe((Date.now() - sentAt) / 1000);
    if (this.#failed === null) this.#backoffMs = FIRST_BACKOFF_MS;
    this.#advance();
    this.#maybeResend();
    // Serial (or just no longer): what waited for this acknowledgement goes now.
    if (this.#failed === null && this.#outstanding === 0 && this.#next < this.#q.length) this.#pump();
  }

  #onError(e: Entry, err: unknown, gen: number): void {
    if (gen !== this.#gen) {
      // Abandoned by a kick: its trade is re-sent already.
      if (!this.#o.signal.aborted) this.#o.metrics.errors.inc();
      return;
    }
    this.#outstanding--;
    if (this.#o.signal.aborted) return;
    this.#o.metrics.errors.inc();
    const reason = resendReason(err);
    if (reason === 'unconfirmed') this.#noteStagedId(e.trade.msgId);
    const streamLast = lastMsgIdOfRefusal(err);
    if (streamLast !== null) this.#learnStreamLast(streamLast);
    if (this.#failed === null) {
      this.#failed = reason;
      this.#o.metrics.resends.inc({ reason });
      const log = reason === 'order' ? this.#o.logger.debug.bind(this.#o.logger) : this.#o.logger.warn.bind(this.#o.logger);
      log(
        { err, msg_id: e.trade.msgId, in_flight: this.#outstanding, reason },
        'publish failed: re-sending the window from its first unacknowledged trade, in order',
      );
    } else if (this.#failed === 'order' && reason !== 'order') {
      // The chain broke because of this failure: back off as for it.
      this.#failed = reason;
    }
    this.#maybeResend();
  }

  /**
   * An answer said `msgId` is staged, not stored. Once such answers alone came for
   * {@link OrderedPublisherOptions.stagedIdStepdownMs}, asks the stream's leader to step down (at most once per
   * that long); the election that follows re-sends the window ({@link kick}).
   */
  #noteStagedId(msgId: string): void {
    const limitMs = this.#o.stagedIdStepdownMs ?? 0;
    const stepdown = this.#stepdown;
    if (limitMs <= 0 || !stepdown) return;
    const now = Date.now();
    this.#stagedSince ??= now;
    if (now - this.#stagedSince < limitMs || now - this.#lastStepdownAt < limitMs) return;
    this.#lastStepdownAt = now;
    this.#o.metrics.stepdowns.inc();
    this.#o.logger.warn(
      { msg_id: msgId, staged_for_ms: now - this.#stagedSince },
      'TRADES answers only "duplicate, seq 0" (a staged message id, nothing stored): asking its leader to step down',
    );
    stepdown().catch((err: unknown) => this.#o.logger.warn({ err }, 'the TRADES leader step-down request failed; the window is re-sent as usual'));
  }

  /**
   * A refusal named the stream's last message id. When it is a trade in the window, that trade and every one
   * before it are stored (module comment): they count as acknowledged. When it is neither in the window nor
   * the last acknowledged trade, the stream's last message is someone else's: the next anchor goes without
   * an expectation.
   */
  #learnStreamLast(id: string): void {
    if (id === this.#lastRefusalId) return;
    this.#lastRefusalId = id;
    if (id === this.#lastAckedId) return;
    const q = this.#q;
    let at = -1;
    for (let i = this.#head; i < q.length; i++) {
      if (q[i]!.trade.msgId === id) {
        at = i;
        break;
      }
    }
    if (at < 0) {
      this.#blindAnchor = true;
      this.#sawOtherWriter({ stream_last_msg_id: id });
      return;
    }
    // Their sequences are not known: the next acknowledgement starts the comparison again.
    this.#lastSeq = null;
    let counted = 0;
    for (let i = this.#head; i <= at; i++) {
      const e = q[i]!;
      if (e.acked) continue;
      e.acked = true;
      counted++;
      this.#o.metrics.published.inc({ subject: e.trade.subject });
    }
    this.#o.logger.info(
      { stream_last_msg_id: id, trades: counted },
      'TRADES already stored trades whose acknowledgement was lost: counted as stored, continuing after them',
    );
    this.#advance();
  }

  /** After a failure, once every attempt is answered: re-sends from the first unacknowledged trade (at once for `order`, else after the backoff). */
  #maybeResend(): void {
    if (this.#failed === null || this.#outstanding > 0 || this.#resendTimer !== null) return;
    const delayMs = this.#failed === 'order' || this.#failed === 'leader' ? 0 : this.#backoffMs;
    if (this.#failed !== 'order' && this.#failed !== 'leader') this.#backoffMs = Math.min(this.#backoffMs * 2, this.#o.maxBackoffMs);
    this.#resendTimer = setTimeout(() => {
      this.#resendTimer = null;
      this.#failed = null;
      // The anchor expects the last acknowledged trade unless the stream's last message was found to be another writer's
      // (until one of ours is stored: a re-send that expects ours again is refused again, and its id staged on a new leader too).
      this.#prevMsgId = this.#blindAnchor ? null : this.#lastAckedId;
      this.#anchorPending = true;
      this.#lastRefusalId = null;
      this.#next = this.#head;
      this.#pump();
    }, delayMs);
  }

  /** Pops the acknowledged entries at the head, running their `onDone` in order; wakes the producer and drain waiters. */
  #advance(): void {
    const q = this.#q;
    while (this.#head < q.length && q[this.#head]!.acked) {
      const e = q[this.#head]!;
      q[this.#head++] = undefined;
      this.#lastAckedId = e.trade.msgId;
      e.onDone?.();
    }
    if (this.#next < this.#head) this.#next = this.#head;
    if (this.#head === q.length) {
      q.length = 0;
      this.#next -= this.#head;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= q.length) {
      q.splice(0, this.#head);
      this.#next -= this.#head;
      this.#head = 0;
    }
    const waiter = this.#spaceWaiter;
    if (waiter && this.size < this.#o.maxInFlight) {
      this.#spaceWaiter = null;
      waiter();
    }
    if (this.size === 0 && this.#drainWaiters.length > 0) {
      const waiters = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const w of waiters) w(true);
    }
  }

  #onAbort(): void {
    this.#leaderWatch?.stop();
    if (this.#resendTimer !== null) clearTimeout(this.#resendTimer);
    this.#resendTimer = null;
    const waiter = this.#spaceWaiter;
    this.#spaceWaiter = null;
    waiter?.();
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w(false);
  }
}
