/**
 * The soak's per-subscriber check of what it received against what it was owed, by TRADES stream
 * sequence (WebSocket `seq`, docs/websocket.md; the JetStream stream sequence of the stored copy for a
 * native subscriber, docs/nats.md "Stream sequence and resuming natively").
 *
 * An {@link ExpectedSeqs} is the ordered list of stored sequences one kind of subscription is owed (one
 * subject, one filter or per-mint subject), built from the stored stream as it is read, and shared by every
 * subscriber of that kind. A {@link SeqAudit} follows one subscriber through it: every stored sequence
 * after its start that the expectation holds must arrive once, in stream order, and nothing else may.
 * A received sequence is judged only once the expectation is known up to it (`watermark`); the caller
 * holds receipts until then.
 *
 * Counts (all must be 0 in a good run):
 * - lost: owed sequences the subscriber went past without getting (a gap), plus, at {@link SeqAudit.finish},
 *   those still not received;
 * - duplicated: a sequence received again;
 * - reordered: an owed sequence that arrived after a higher one (it was counted in a gap and is taken out);
 * - unexpected: a sequence not owed (not stored on the subject, or its filter does not pass it).
 */

/** Entries kept before the list compacts its dropped prefix. */
const COMPACT_MIN_ENTRIES = 4_096;

/**
 * The increasing stored sequences one kind of subscription is owed, known up to `watermark` (every stored
 * sequence ≤ watermark has been offered to the list and kept when owed). Entries are addressed by absolute
 * index (position since the first entry ever pushed), so dropping a consumed prefix moves nothing for callers.
 */
export class ExpectedSeqs {
  private seqs = new Float64Array(1_024);
  /** Absolute index of `seqs[0]`. */
  private base = 0;
  /** Entries in `seqs`. */
  private count = 0;
  private lastPushed = 0;
  /** Every stored sequence ≤ this was offered. */
  watermark = 0;

  /**
   * Appends an owed sequence. @throws Error when `seq` is not above the last one pushed and the watermark
   * (the stored stream is read in order; anything else is a bug of the caller).
   */
  push(seq: number): void {
    if (!(seq > this.lastPushed && seq > this.watermark)) throw new Error(`ExpectedSeqs: ${seq} pushed after ${Math.max(this.lastPushed, this.watermark)}`);
    if (this.count === this.seqs.length) {
      const grown = new Float64Array(this.seqs.length * 2);
      grown.set(this.seqs);
      this.seqs = grown;
    }
    this.seqs[this.count++] = seq;
    this.lastPushed = seq;
  }

  /** Every stored sequence ≤ `seq` has now been offered. @throws Error when the watermark would go back. */
  advance(seq: number): void {
    if (seq < this.watermark) throw new Error(`ExpectedSeqs: watermark ${seq} below ${this.watermark}`);
    this.watermark = seq;
  }

  /** Absolute index of the first retained entry. */
  get start(): number {
    return this.base;
  }

  /** Absolute index one past the last entry. */
  get end(): number {
    return this.base + this.count;
  }

  /** The entry at absolute index `i`; undefined outside the retained range. */
  at(i: number): number | undefined {
    const j = i - this.base;
    return j >= 0 && j < this.count ? this.seqs[j] : undefined;
  }

  /** Absolute index of the first retained entry > `seq` at or after absolute index `from` (binary search). */
  indexAfter(seq: number, from: number = this.base): number {
    let lo = Math.max(from, this.base) - this.base;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid]! <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo + this.base;
  }

  /** Absolute index of `seq` in [from, to), or -1. */
  indexOf(seq: number, from: number, to: number = this.end): number {
    const i = this.indexAfter(seq - 1, from);
    return i < to && this.at(i) === seq ? i : -1;
  }

  /** Forgets the entries before absolute index `i` (no subscriber will look at them again). */
  dropBefore(i: number): void {
    const n = Math.min(i, this.end) - this.base;
    if (n <= 0) return;
    this.base += n;
    this.count -= n;
    this.seqs.copyWithin(0, n, n + this.count);
    if (this.seqs.length > COMPACT_MIN_ENTRIES && this.count < this.seqs.length / 4)
      this.seqs = this.seqs.slice(0, Math.max(COMPACT_MIN_ENTRIES, this.count * 2));
  }
}

/** What one receipt was judged to be. */
export type Verdict = 'ok' | 'gap' | 'duplicate' | 'reordered' | 'unexpected';

/** Running counts of one subscriber (or a sum of several). */
export interface AuditCounts {
  /** Owed sequences received (once each, reordered ones included). */
  delivered: number;
  lost: number;
  duplicated: number;
  reordered: number;
  unexpected: number;
}

/** A zeroed {@link AuditCounts}. */
export function zeroCounts(): AuditCounts {
  return { delivered: 0, lost: 0, duplicated: 0, reordered: 0, unexpected: 0 };
}

/** Adds `b` into `a` and returns `a`. */
export function addCounts(a: AuditCounts, b: Readonly<AuditCounts>): AuditCounts {
  a.delivered += b.delivered;
  a.lost += b.lost;
  a.duplicated += b.duplicated;
  a.reordered += b.reordered;
  a.unexpected += b.unexpected;
  return a;
}

/**
 * One subscriber's audit over one {@link ExpectedSeqs}. It is owed every entry above its start sequence
 * (WebSocket: the `seq` of its `subscribed` answer; native: the stored sequence when its subscription was in
 * place). The start may be set later ({@link begin}); until then the audit holds the list's prefix.
 */
export class SeqAudit {
  /** Absolute index of the next owed entry; undefined until the start is known and the first receipt judged. */
  private pos: number | undefined;
  private startSeq: number | undefined;
  private maxSeen = 0;
  /** Owed sequences gone past without receipt (they may still arrive, reordered). */
  private readonly missing = new Set<number>();
  private readonly counts = zeroCounts();

  constructor(
    private readonly expected: ExpectedSeqs,
    startSeq?: number,
  ) {
    if (startSeq !== undefined) this.begin(startSeq);
  }

  /** Sets the start: owed are the entries above `startSeq`. @throws Error when called twice. */
  begin(startSeq: number): void {
    if (this.startSeq !== undefined) throw new Error('SeqAudit: start already set');
    this.startSeq = startSeq;
    this.maxSeen = startSeq;
  }

  /** The start sequence, or undefined before {@link begin}. */
  get start(): number | undefined {
    return this.startSeq;
  }

  /** The lowest absolute index of the list this audit may still read (the list may drop what lies before). */
  get lowestNeeded(): number {
    if (this.startSeq === undefined) return this.expected.start;
    return this.position();
  }

  private position(): number {
    this.pos ??= this.expected.indexAfter(this.startSeq!);
    return this.pos;
  }

  /**
   * Judges one received sequence.
   * @throws Error when `seq` is above the list's watermark (hold it until the expectation is known) or the start is not set.
   */
  receive(seq: number): Verdict {
    if (this.startSeq === undefined) throw new Error('SeqAudit: receive before begin');
    if (seq > this.expected.watermark) throw new Error(`SeqAudit: ${seq} judged before the expectation reached it (watermark ${this.expected.watermark})`);
    const pos = this.position();
    if (seq > this.maxSeen) {
      const k = this.expected.indexOf(seq, pos);
      if (k < 0) {
        this.counts.unexpected++;
        return 'unexpected';
      }
      for (let i = pos; i < k; i++) this.missing.add(this.expected.at(i)!);
      this.pos = k + 1;
      this.maxSeen = seq;
      this.counts.delivered++;
      return k > pos ? 'gap' : 'ok';
    }
    if (this.missing.delete(seq)) {
      this.counts.reordered++;
      this.counts.delivered++;
      return 'reordered';
    }
    // At or below the highest received: a repeat of something owed (received before), or never owed.
    if (seq > this.startSeq && (seq < this.expected.start || this.expected.indexOf(seq, this.expected.start, pos) >= 0)) {
      this.counts.duplicated++;
      return 'duplicate';
    }
    this.counts.unexpected++;
    return 'unexpected';
  }

  /** Owed entries known (≤ watermark) and not received yet, beyond the highest received: the subscriber is behind by these. */
  pending(): number {
    if (this.startSeq === undefined) return 0;
    return this.expected.end - this.position();
  }

  /** Counts so far; `lost` holds the gaps gone past (not yet what is {@link pending}). */
  snapshot(): AuditCounts {
    return { ...this.counts, lost: this.missing.size };
  }

  /** Final counts: what is still pending is lost too (call after the drain). */
  finish(): AuditCounts {
    return { ...this.counts, lost: this.missing.size + this.pending() };
  }
}
