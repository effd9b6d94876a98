/**
 * The soak harness's reader of what was stored: an ordered JetStream consumer on the whole TRADES stream
 * (the services' user), from sequence 1. For each stored trade it joins the Yellowstone stand-in's send
 * time by the transaction's signature (the part of `Nats-Msg-Id` before `:`, docs/architecture.md §5),
 * measures ingest lag (send → the message's JetStream store timestamp), computes which subscriber filters
 * pass it (scripts/soak/plan.ts) and hands the records, in stream order, to the subscriber processes
 * (scripts/soak/records.ts).
 *
 * A stored trade can be read before its send time arrives from the stand-in's process (sends come in
 * batches); records wait, in order, until their send time is known or `holdMs` passed.
 */
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { TRADES_STREAM, type TradeSubject } from '@tradewind/contracts';
import type { NatsConnection } from '@tradewind/lib';
import { Histogram } from './histogram.js';
import type { TradeJson } from './filters.js';
import { variantMask, type Variant } from './plan.js';
import { NO_SUBJECT, subjectAt, subjectIndex, type RecordBatch } from './records.js';

/** Timings of the reader. */
export interface StoredReaderOptions {
  /** Longest a stored trade waits for its send time before it is handed on without one, ms. */
  holdMs: number;
  /** Period of the record batches to the subscriber processes, ms. */
  batchMs: number;
  /** Matched sends kept for more trades of the same transaction, ms (one transaction's trades are published together). */
  sendRetentionMs: number;
  /** Report interval (figures are kept per interval of store time), ms. */
  intervalMs: number;
  /** Messages per pull of the ordered consumer. */
  batchMessages: number;
}

/** Figures of one interval of store time. */
export interface StoredInterval {
  /** Trades stored. */
  trades: number;
  /** Transactions whose first trade was stored. */
  transactions: number;
  /** Ingest lag (stand-in send → JetStream store), ms, by phase of the send. */
  lag: { steady: Histogram; burst: Histogram };
}

interface Held {
  seq: number;
  subject: number;
  mask: number;
  msgId: string;
  signature: string;
  storeMs: number;
  readAt: number;
}

/** Packs a send: time × 2 + burst bit (epoch ms × 2 < 2^53). */
const packSend = (sentMs: number, burst: boolean) => sentMs * 2 + (burst ? 1 : 0);

export class StoredReader {
  /** signature → packed send; matched ones are forgotten after sendRetentionMs. */
  private readonly sends = new Map<string, number>();
  private readonly matched = new Set<string>();
  private matchedOrder: Array<{ signature: string; at: number }> = [];
  private held: Held[] = [];
  private batch = { first: 0, subject: [] as number[], mask: [] as number[], sentMs: [] as number[], burst: [] as number[], msgIds: [] as string[] };
  private upTo = 0;
  private timer: NodeJS.Timeout | undefined;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly intervals = new Map<number, StoredInterval>();
  private t0: number | undefined;
  /** Highest sequence read from the stream. */
  lastRead = 0;
  /** Trades handed on without a send time (the stand-in never reported their transaction). */
  withoutSend = 0;
  /** Sequences the ordered consumer skipped (deleted from the stream before they were read). */
  skipped = 0;
  /** Sends reported by the stand-in. */
  sendsReported = 0;
  /** Distinct transactions that have a stored trade. */
  transactionsStored = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly variants: readonly Variant[],
    private readonly options: StoredReaderOptions,
    private readonly onBatch: (batch: RecordBatch) => void,
  ) {}

  /** Starts reading from sequence 1 and emitting batches. */
  async start(): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(TRADES_STREAM, { deliver_policy: DeliverPolicy.All, name_prefix: 'soak_stored' });
    this.messages = await consumer.consume({ max_messages: this.options.batchMessages });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const m of messages) {
        const expected = this.lastRead + 1;
        for (let seq = expected; seq < m.seq; seq++) {
          this.skipped++;
          this.held.push({ seq, subject: NO_SUBJECT, mask: 0, msgId: '', signature: '', storeMs: Number.NaN, readAt: Date.now() });
        }
        this.lastRead = m.seq;
        const msgId = m.headers?.get('Nats-Msg-Id') ?? '';
        let subject = NO_SUBJECT;
        let mask = 0;
        try {
          subject = subjectIndex(m.subject);
          mask = variantMask(this.variants, m.subject as TradeSubject, m.json<TradeJson>());
        } catch {
          subject = NO_SUBJECT; // not a trade subject or not JSON: nobody is owed it
        }
        this.held.push({
          seq: m.seq,
          subject,
          mask,
          msgId,
          signature: msgId.slice(0, Math.max(0, msgId.indexOf(':'))),
          storeMs: Number(m.info.timestampNanos) / 1e6,
          readAt: Date.now(),
        });
      }
    })();
    this.timer = setInterval(() => this.flush(false), this.options.batchMs);
  }

  /** The run's clock (the chain's start), epoch ms; intervals count from it. */
  setStart(t0: number): void {
    this.t0 = t0;
  }

  /** Sends reported by the stand-in's process. */
  addSends(signatures: readonly string[], sentMs: Float64Array, burst: Uint8Array): void {
    this.sendsReported += signatures.length;
    for (let i = 0; i < signatures.length; i++) if (!this.sends.has(signatures[i]!)) this.sends.set(signatures[i]!, packSend(sentMs[i]!, burst[i] === 1));
  }

  /** Figures of interval `index` (store time), created empty when none. */
  interval(index: number): StoredInterval {
    let s = this.intervals.get(index);
    if (!s) {
      s = { trades: 0, transactions: 0, lag: { steady: new Histogram(), burst: new Histogram() } };
      this.intervals.set(index, s);
    }
    return s;
  }

  /** Every interval index with figures. */
  intervalIndexes(): number[] {
    return [...this.intervals.keys()].sort((a, b) => a - b);
  }

  /** Sends not matched by any stored trade (so far). */
  unmatchedSends(): number {
    return this.sends.size - this.matched.size;
  }

  /**
   * Hands on the held records whose send time is known (all of them when `force`, or those held
   * longer than holdMs), in order, and emits the batch.
   */
  flush(force: boolean): void {
    const now = Date.now();
    let i = 0;
    for (; i < this.held.length; i++) {
      const h = this.held[i]!;
      const packed = h.signature ? this.sends.get(h.signature) : undefined;
      if (packed === undefined && h.subject !== NO_SUBJECT && !force && now - h.readAt < this.options.holdMs) break;
      this.release(h, packed);
    }
    if (i > 0) this.held = this.held.slice(i);
    this.emit();
    this.forgetMatched(now);
  }

  private release(h: Held, packed: number | undefined): void {
    const b = this.batch;
    if (b.subject.length === 0) b.first = h.seq;
    let sentMs = Number.NaN;
    let burst = 0;
    if (packed !== undefined) {
      sentMs = Math.floor(packed / 2);
      burst = packed % 2;
      if (!this.matched.has(h.signature)) {
        this.matched.add(h.signature);
        this.matchedOrder.push({ signature: h.signature, at: Date.now() });
        this.transactionsStored++;
        if (this.t0 !== undefined) this.interval(this.indexOf(h.storeMs)).transactions++;
      }
    } else if (h.subject !== NO_SUBJECT) this.withoutSend++;
    if (h.subject !== NO_SUBJECT && this.t0 !== undefined) {
      const s = this.interval(this.indexOf(h.storeMs));
      s.trades++;
      if (packed !== undefined) (burst ? s.lag.burst : s.lag.steady).record(Math.max(0, h.storeMs - sentMs));
    }
    b.subject.push(h.subject);
    b.mask.push(h.mask);
    b.sentMs.push(sentMs);
    b.burst.push(burst);
    b.msgIds.push(h.msgId);
    this.upTo = h.seq;
  }

  private indexOf(ms: number): number {
    return Math.max(0, Math.floor((ms - this.t0!) / this.options.intervalMs));
  }

  private emit(): void {
    const b = this.batch;
    this.onBatch({
      first: b.subject.length ? b.first : this.upTo + 1,
      subject: Uint8Array.from(b.subject),
      mask: Uint32Array.from(b.mask),
      sentMs: Float64Array.from(b.sentMs),
      burst: Uint8Array.from(b.burst),
      msgIds: b.msgIds,
      upTo: this.upTo,
    });
    this.batch = { first: 0, subject: [], mask: [], sentMs: [], burst: [], msgIds: [] };
  }

  private forgetMatched(now: number): void {
    let i = 0;
    while (i < this.matchedOrder.length && now - this.matchedOrder[i]!.at > this.options.sendRetentionMs) {
      const sig = this.matchedOrder[i]!.signature;
      this.sends.delete(sig);
      this.matched.delete(sig);
      i++;
    }
    if (i > 0) this.matchedOrder = this.matchedOrder.slice(i);
  }

  /** Records read but not handed on yet. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Stops reading and emitting. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.messages?.close().catch(() => undefined);
    await this.loop?.catch(() => undefined);
  }
}

/** For the report: the subject name of a record's subject index. */
export const subjectName = (i: number): string => subjectAt(i) ?? 'none';
