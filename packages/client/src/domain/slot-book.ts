/**
 * What the client knows of slots' statuses, and who waits for one (pure: no I/O, no timers).
 *
 * A trade streams at the commitment its source saw it (`commitment`, usually `processed`); subscriptions with
 * slot status (`subscribe(subject, { slots: true })`) then receive `confirmed`, `finalized` or `dead` for its slot
 * (docs/websocket.md "Slot status"). Commitments order processed < confirmed < finalized; `dead` ends a slot:
 * every trade in it never happened.
 */
import type { SlotStatusMessage } from '../generated/slots.js';

/** A commitment a caller may wait for. */
export type WantedCommitment = 'confirmed' | 'finalized';

/** A slot's status. */
export type SlotStatus = SlotStatusMessage['status'];

/** Rank of each commitment (Solana: processed < confirmed < finalized). */
const RANK: Readonly<Record<string, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** Whether a slot at `status` has reached `wanted` (a dead slot never has). */
export function reaches(status: string | undefined, wanted: WantedCommitment): boolean {
  return status !== undefined && status !== 'dead' && (RANK[status] ?? -1) >= RANK[wanted]!;
}

/** Default of {@link SlotBook}'s `maxSlots`: 4,096 slots, about 27 minutes of chain at 400 ms a slot. */
export const DEFAULT_SLOT_BOOK_MAX = 4_096;

/** One waiter's outcome. */
export type SlotOutcome =
  | { readonly slot: number; readonly status: WantedCommitment | 'finalized' }
  | { readonly slot: number; readonly status: 'dead'; readonly reason: string | null };

interface Waiter {
  readonly wanted: WantedCommitment;
  readonly settle: (outcome: SlotOutcome) => void;
}

/** The best status seen per slot (bounded, oldest slot forgotten first) and the waiters on each. */
export class SlotBook {
  readonly #status = new Map<number, { status: SlotStatus; reason: string | null }>();
  readonly #waiters = new Map<number, Set<Waiter>>();

  constructor(readonly maxSlots: number = DEFAULT_SLOT_BOOK_MAX) {}

  /** The best status seen for `slot` (dead beats everything), or undefined. */
  status(slot: number): SlotStatus | undefined {
    return this.#status.get(slot)?.status;
  }

  /** Why `slot` died, when it did and the server said. */
  deadReason(slot: number): string | null {
    return this.#status.get(slot)?.reason ?? null;
  }

  /** Records a slot message; settles the waiters it answers. */
  record(message: Pick<SlotStatusMessage, 'slot' | 'status' | 'reason'>): void {
    const seen = this.#status.get(message.slot);
    const better = !seen || message.status === 'dead' || (seen.status !== 'dead' && (RANK[message.status] ?? -1) > (RANK[seen.status] ?? -1));
    if (better) {
      this.#status.delete(message.slot);
      this.#status.set(message.slot, { status: message.status, reason: message.reason ?? null });
      if (this.#status.size > this.maxSlots) this.#status.delete(this.#status.keys().next().value as number);
    }
    const waiters = this.#waiters.get(message.slot);
    if (!waiters) return;
    for (const w of [...waiters]) {
      const outcome = this.#outcome(message.slot, w.wanted);
      if (outcome) {
        waiters.delete(w);
        w.settle(outcome);
      }
    }
    if (waiters.size === 0) this.#waiters.delete(message.slot);
  }

  /**
   * Settles `settle` once `slot` reaches `wanted` or dies: at once when it already has.
   * @returns a function that removes the waiter (a timeout, a closed client).
   */
  wait(slot: number, wanted: WantedCommitment, settle: (outcome: SlotOutcome) => void): () => void {
    const now = this.#outcome(slot, wanted);
    if (now) {
      settle(now);
      return () => undefined;
    }
    const waiter: Waiter = { wanted, settle };
    const set = this.#waiters.get(slot) ?? new Set<Waiter>();
    this.#waiters.set(slot, set);
    set.add(waiter);
    return () => {
      set.delete(waiter);
      if (set.size === 0 && this.#waiters.get(slot) === set) this.#waiters.delete(slot);
    };
  }

  /** Waiters still pending (for tests). */
  get waiting(): number {
    let n = 0;
    for (const s of this.#waiters.values()) n += s.size;
    return n;
  }

  #outcome(slot: number, wanted: WantedCommitment): SlotOutcome | undefined {
    const seen = this.#status.get(slot);
    if (!seen) return undefined;
    if (seen.status === 'dead') return { slot, status: 'dead', reason: seen.reason };
    if (reaches(seen.status, wanted)) return { slot, status: seen.status === 'finalized' ? 'finalized' : wanted };
    return undefined;
  }
}
