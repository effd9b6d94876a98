/**
 * The stored-trade records the soak harness reads from TRADES and hands to its subscriber processes
 * (scripts/soak/clients.ts): per stream sequence, the subject, which client filters pass it, the time the
 * Yellowstone stand-in sent its transaction and the rate phase then, and its `Nats-Msg-Id` (how a native
 * core subscriber, which sees no stream sequence, is matched to one: docs/nats.md).
 */
import { TRADE_SUBJECTS, type TradeSubject } from '@tradewind/contracts';

/** Subject index (into TRADE_SUBJECTS) of a sequence the stream did not deliver (deleted, or not a trade subject). */
export const NO_SUBJECT = 0x7f;
/** Bit of a record's flags set when its transaction was sent during a burst. */
const BURST_BIT = 0x80;

/**
 * A run of consecutive stored sequences `first` … `first + subject.length − 1`; every sequence up to
 * `upTo` (≥ the last one) has now been delivered. Typed arrays, so the IPC channel ('advanced'
 * serialization) copies them cheaply.
 */
export interface RecordBatch {
  readonly first: number;
  /** Index into TRADE_SUBJECTS, or {@link NO_SUBJECT}. */
  readonly subject: Uint8Array;
  /** Bit i set: client filter variant i passes the trade (scripts/soak/plan.ts). */
  readonly mask: Uint32Array;
  /** When the stand-in wrote the transaction to ingest's stream (epoch ms, Date.now()); NaN when unknown. */
  readonly sentMs: Float64Array;
  /** 1 when sent during a burst. */
  readonly burst: Uint8Array;
  /** `Nats-Msg-Id` of each (`<signature>:<instruction path>`), '' when absent. */
  readonly msgIds: string[];
  readonly upTo: number;
}

/** The subject index of `subject`. @throws Error for a subject that is not a TRADES subject. */
export function subjectIndex(subject: string): number {
  const i = (TRADE_SUBJECTS as readonly string[]).indexOf(subject);
  if (i < 0) throw new Error(`not a TRADES subject: ${subject}`);
  return i;
}

/** The subject at index `i`, undefined for {@link NO_SUBJECT}. */
export function subjectAt(i: number): TradeSubject | undefined {
  return TRADE_SUBJECTS[i];
}

/**
 * The records a subscriber process keeps while a subscriber may still receive them: subject, send time and
 * phase by stream sequence, in arrays indexed by `seq − base` (sequences of one stream are consecutive).
 */
export class RecordStore {
  private subjects = new Uint8Array(4_096);
  private sent = new Float64Array(4_096);
  private base = 1;
  private count = 0;

  /** One past the highest sequence held (the next to add). */
  get next(): number {
    return this.base + this.count;
  }

  /** Appends a batch. @throws Error when it does not continue the held sequences. */
  add(batch: RecordBatch): void {
    if (this.count === 0 && batch.first > this.base) this.base = batch.first;
    if (batch.first !== this.next) throw new Error(`RecordStore: batch starts at ${batch.first}, expected ${this.next}`);
    const n = batch.subject.length;
    if (this.count + n > this.subjects.length) {
      const size = Math.max(this.subjects.length * 2, this.count + n);
      const subjects = new Uint8Array(size);
      subjects.set(this.subjects.subarray(0, this.count));
      const sent = new Float64Array(size);
      sent.set(this.sent.subarray(0, this.count));
      this.subjects = subjects;
      this.sent = sent;
    }
    for (let i = 0; i < n; i++) {
      this.subjects[this.count + i] = batch.subject[i]! | (batch.burst[i] ? BURST_BIT : 0);
      this.sent[this.count + i] = batch.sentMs[i]!;
    }
    this.count += n;
  }

  /** Subject index of `seq`; undefined when not held (not delivered yet, or dropped). */
  subject(seq: number): number | undefined {
    const j = seq - this.base;
    if (j < 0 || j >= this.count) return undefined;
    return this.subjects[j]! & ~BURST_BIT;
  }

  /** Send time of `seq` (NaN when unknown or not held). */
  sentMs(seq: number): number {
    const j = seq - this.base;
    return j >= 0 && j < this.count ? this.sent[j]! : Number.NaN;
  }

  /** Whether `seq` was sent during a burst. */
  burst(seq: number): boolean {
    const j = seq - this.base;
    return j >= 0 && j < this.count && (this.subjects[j]! & BURST_BIT) !== 0;
  }

  /** Forgets every sequence below `seq`. */
  dropBefore(seq: number): void {
    const n = Math.min(seq - this.base, this.count);
    if (n <= 0) return;
    this.subjects.copyWithin(0, n, this.count);
    this.sent.copyWithin(0, n, this.count);
    this.base += n;
    this.count -= n;
  }
}
