/**
 * Counting what a TRADES subscriber received, to find lost and duplicated trades under faults.
 *
 * Every delivery is recorded with its stream sequence and Nats-Msg-Id. `audit()` then counts:
 * - duplicated: a stream sequence delivered more than once, plus a Nats-Msg-Id stored under more
 *   than one sequence (a publish the duplicate window should have dropped);
 * - lost: a stream sequence in the stream's range that was never delivered, plus a gap in what the
 *   publisher stored: replay ids are `<signature>:<path>:replay:<run>:<loop>`, and one run publishes
 *   the recording's trades strictly in order, one acknowledged publish at a time, so the positions
 *   stored for a run must be 0…max without a hole (a trade in flight when the run ended is not a hole).
 */

/** One message as the subscriber saw it. */
export interface Delivery {
  /** Stream sequence. */
  readonly seq: number;
  /** Nats-Msg-Id header. */
  readonly msgId: string;
  /** Tradewind-Published-Ms header (epoch ms of the publish attempt that was stored), NaN when absent. */
  readonly publishedMs: number;
  /** Epoch ms the subscriber received it. */
  readonly receivedMs: number;
}

/** Result of {@link TradeLedger.audit}; cumulative since the ledger was created. */
export interface LedgerAudit {
  /** Sequences never delivered + holes in a replay run's stored positions. */
  readonly lost: number;
  /** Sequences delivered again + ids stored twice. */
  readonly duplicated: number;
  /** Deliveries recorded. */
  readonly delivered: number;
  /** Deliveries whose Nats-Msg-Id is not a replay id of the recording (not counted as lost/duplicated). */
  readonly unrecognised: number;
  /** Up to 10 examples of what was counted, for the report notes. */
  readonly examples: readonly string[];
}

/** A replay copy's Nats-Msg-Id: `<base id>:replay:<run>:<loop>`. */
export const REPLAY_ID = /^(.+):replay:([^:]+):(\d+)$/;

/** Records deliveries and audits them; see the module comment. */
export class TradeLedger {
  private readonly deliveries: Delivery[] = [];
  private readonly bySeq = new Map<number, number>();
  private maxSeqSeen = 0;

  /**
   * @param passOrder the recording's base message ids (`messageId(trade)`) in replay order: one pass.
   */
  constructor(readonly passOrder: readonly string[]) {}

  /** Adds one delivery. */
  record(d: Delivery): void {
    this.deliveries.push(d);
    this.bySeq.set(d.seq, (this.bySeq.get(d.seq) ?? 0) + 1);
    if (d.seq > this.maxSeqSeen) this.maxSeqSeen = d.seq;
  }

  /** Debug: the first deliveries received at or after `sinceMs`. */
  debugAfter(sinceMs: number): string {
    return this.deliveries
      .filter((d) => d.receivedMs >= sinceMs)
      .slice(0, 8)
      .map((d) => `${d.seq}@pub+${d.publishedMs - sinceMs}/recv+${d.receivedMs - sinceMs}`)
      .join(' ');
  }

  /** Each delivered Nats-Msg-Id that `accept` allows, with how many distinct stream sequences stored it. */
  storedIds(accept: (msgId: string) => boolean): Map<string, number> {
    const seqs = new Map<string, Set<number>>();
    for (const d of this.deliveries) {
      if (!accept(d.msgId)) continue;
      const s = seqs.get(d.msgId) ?? new Set<number>();
      seqs.set(d.msgId, s);
      s.add(d.seq);
    }
    return new Map([...seqs].map(([id, s]) => [id, s.size]));
  }

  /** Highest stream sequence delivered so far (0 before any). */
  maxSeq(): number {
    return this.maxSeqSeen;
  }

  /** Deliveries recorded so far. */
  count(): number {
    return this.deliveries.length;
  }

  /**
   * Epoch ms of the first delivery received at or after `sinceMs` that `accept` allows (default: any), or
   * null when none yet. Used for recovery: e.g. the first trade published after a fault.
   */
  firstDeliveryAfter(sinceMs: number, accept: (d: Delivery) => boolean = () => true): number | null {
    for (const d of this.deliveries) if (d.receivedMs >= sinceMs && accept(d)) return d.receivedMs;
    return null;
  }

  /**
   * Counts lost and duplicated trades (cumulative). Sequences from `firstSeq` to `lastSeq` (the stream's
   * state) must each have been delivered once.
   */
  audit(stream: { firstSeq: number; lastSeq: number }): LedgerAudit {
    const examples: string[] = [];
    const note = (s: string) => {
      if (examples.length < 10) examples.push(s);
    };
    let duplicated = 0;
    let lost = 0;
    for (const [seq, n] of this.bySeq) {
      if (n > 1) {
        duplicated += n - 1;
        note(`seq ${seq} delivered ${n}×`);
      }
    }
    for (let seq = stream.firstSeq; seq <= stream.lastSeq; seq++) {
      if (!this.bySeq.has(seq)) {
        lost++;
        note(`seq ${seq} never delivered`);
      }
    }
    const seqsById = new Map<string, Set<number>>();
    for (const d of this.deliveries) {
      const s = seqsById.get(d.msgId) ?? new Set<number>();
      seqsById.set(d.msgId, s);
      s.add(d.seq);
    }
    for (const [id, seqs] of seqsById) {
      if (seqs.size > 1) {
        duplicated += seqs.size - 1;
        note(`id ${id} stored at seqs ${[...seqs].join(',')}`);
      }
    }
    const index = new Map(this.passOrder.map((id, i) => [id, i]));
    const runs = new Map<string, Set<number>>();
    let unrecognised = 0;
    for (const id of seqsById.keys()) {
      const m = REPLAY_ID.exec(id);
      const at = m ? index.get(m[1]!) : undefined;
      if (!m || at === undefined) {
        unrecognised++;
        continue;
      }
      const positions = runs.get(m[2]!) ?? new Set<number>();
      runs.set(m[2]!, positions);
      positions.add(Number(m[3]) * this.passOrder.length + at);
    }
    for (const [run, positions] of runs) {
      const max = Math.max(...positions);
      const holes = max + 1 - positions.size;
      if (holes > 0) {
        lost += holes;
        for (let p = 0; p <= max && examples.length < 10; p++) {
          if (!positions.has(p))
            note(`run ${run} never stored loop ${Math.floor(p / this.passOrder.length)} trade ${this.passOrder[p % this.passOrder.length]}`);
        }
      }
    }
    return { lost, duplicated, delivered: this.deliveries.length, unrecognised, examples };
  }
}
