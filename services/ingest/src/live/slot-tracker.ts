/**
 * Slot status for the stream (issue 32; @tradewind/contracts slots.ts): turns a live source's slot updates
 * into the slot messages ingest publishes on the TRADES subject `slots`, each after the trades of its slot.
 *
 * - It counts the trades ingest hands to the publisher per slot and subject ({@link SlotTracker.countTrades});
 *   a status message carries the counts so far.
 * - A status below the source's commitment is dropped (its transactions come after it: a `confirmed`
 *   subscription sees a slot's transactions only once it is confirmed); every other status of a slot is
 *   published once (a reconnect that replays statuses repeats nothing; the `Nats-Msg-Id` catches what a
 *   restarted process repeats).
 * - `dead` comes two ways. The source says so (Yellowstone `SLOT_DEAD`: reason `replay_failed`, with its
 *   `dead_error`). Or a finalized slot shows it: walking the parents from a newly finalized slot down to the
 *   previous finalized one gives the rooted chain; every slot seen between them that is not on it was left on
 *   an abandoned fork (reason `skipped`). Where a parent on that walk is unknown (a slot the source never
 *   reported), nothing is inferred: a slot is called dead only when the chain proves it.
 * - At most `maxSlots` slots are kept; a finalized or dead slot is forgotten once it is behind the newest
 *   finalized one. When the bound is reached the oldest slots are forgotten (a status that arrives for one
 *   later is published with the counts it then has).
 */
import { SLOTS_SUBJECT, SLOT_MESSAGE_SCHEMA_VERSION, slotMessageId, type SlotStatusMessage, type SlotStatusName } from '@tradewind/contracts';
import type { Commitment } from '../decode/types.js';

/** A slot update from a live source, in its stream order with the transactions. */
export interface SlotUpdate {
  readonly kind: 'slot';
  readonly slot: number;
  /** Parent slot, or null when the source did not give it. */
  readonly parent: number | null;
  readonly status: SlotStatusName;
  /** With status `dead`: the node's error text, when it gave one. */
  readonly deadError?: string;
}

/** A slot message ready for the publisher: its subject (`slots`), `Nats-Msg-Id` and body. */
export interface OutgoingSlotMessage {
  readonly subject: typeof SLOTS_SUBJECT;
  readonly msgId: string;
  readonly message: SlotStatusMessage;
}

/**
 * Default of {@link SlotTrackerOptions.maxSlots} (config INGEST_SLOT_TRACK_MAX): 4,096 slots, ≈ 27 min of
 * chain at 400 ms a slot, a hundred times the 32 slots a slot needs to be finalized.
 */
export const DEFAULT_SLOT_TRACK_MAX = 4_096;

/** Options of {@link SlotTracker}. */
export interface SlotTrackerOptions {
  /** The live source's name (`yellowstone`, `rpc`): the messages' `source`. */
  readonly source: string;
  /** The source's commitment: statuses below it are dropped. */
  readonly commitment: Commitment;
  /** Slots kept at most. Default {@link DEFAULT_SLOT_TRACK_MAX}. */
  readonly maxSlots?: number;
  /** Clock for `observed_at_ms`, ms since the Unix epoch. Default Date.now. */
  readonly now?: () => number;
}

interface Tracked {
  parent: number | null;
  trades: Record<string, number>;
  published: Set<SlotStatusName>;
}

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** See the module comment. */
export class SlotTracker {
  readonly #slots = new Map<number, Tracked>();
  readonly #o: Required<SlotTrackerOptions>;
  /** The newest finalized slot, or null before the first. */
  #lastFinalized: number | null = null;

  /** @throws RangeError when `maxSlots` is not a positive integer. */
  constructor(options: SlotTrackerOptions) {
    const maxSlots = options.maxSlots ?? DEFAULT_SLOT_TRACK_MAX;
    if (!Number.isInteger(maxSlots) || maxSlots < 1) throw new RangeError(`maxSlots must be a positive integer, got ${maxSlots}`);
    this.#o = { source: options.source, commitment: options.commitment, maxSlots, now: options.now ?? Date.now };
  }

  /** Slots kept now. */
  get size(): number {
    return this.#slots.size;
  }

  /** Counts trades handed to the publisher from `slot`, one per entry of `subjects` (a TRADES subject each). */
  countTrades(slot: number, subjects: readonly string[]): void {
    if (subjects.length === 0) return;
    const t = this.#entry(slot);
    for (const s of subjects) t.trades[s] = (t.trades[s] ?? 0) + 1;
  }

  /**
   * The slot messages `update` calls for, in publishing order: none (a status below the commitment, or one
   * already published), its own, and with a `finalized` one the `dead` (skipped) slots it proves.
   */
  onStatus(update: SlotUpdate): OutgoingSlotMessage[] {
    const { slot, status } = update;
    if (status !== 'dead' && RANK[status] < RANK[this.#o.commitment]) return [];
    // A slot at or behind the newest finalized one that is no longer kept has ended (finalized or dead) and
    // was published: a late or replayed status of it says nothing new.
    if (this.#lastFinalized !== null && slot <= this.#lastFinalized && !this.#slots.has(slot)) return [];
    const t = this.#entry(slot);
    // A slot's parent never changes: the first one given stands.
    if (update.parent !== null && t.parent === null) t.parent = update.parent;
    if (t.published.has(status) || t.published.has('dead') || (status === 'dead' && t.published.has('finalized'))) return [];
    const out: OutgoingSlotMessage[] = [this.#message(slot, t, status, status === 'dead' ? 'replay_failed' : undefined, update.deadError)];
    if (status === 'finalized') {
      out.push(...this.#skippedBefore(slot));
      this.#lastFinalized = Math.max(this.#lastFinalized ?? slot, slot);
      this.#prune();
    }
    return out;
  }

  #entry(slot: number): Tracked {
    let t = this.#slots.get(slot);
    if (!t) {
      t = { parent: null, trades: {}, published: new Set() };
      this.#slots.set(slot, t);
      if (this.#slots.size > this.#o.maxSlots) this.#evictOldest();
    }
    return t;
  }

  #message(slot: number, t: Tracked, status: SlotStatusName, reason?: 'replay_failed' | 'skipped', deadError?: string): OutgoingSlotMessage {
    t.published.add(status);
    const message: SlotStatusMessage = {
      type: 'slot',
      slot,
      parent: t.parent,
      status,
      trades: { ...t.trades },
      ...(reason ? { reason } : {}),
      ...(deadError ? { dead_error: deadError } : {}),
      source: this.#o.source,
      observed_at_ms: this.#o.now(),
      schema_version: SLOT_MESSAGE_SCHEMA_VERSION,
    };
    return { subject: SLOTS_SUBJECT, msgId: slotMessageId(slot, status), message };
  }

  /** The `dead` (skipped) messages of the slots between the previous finalized slot and `root` that are not its ancestors. */
  #skippedBefore(root: number): OutgoingSlotMessage[] {
    const floor = this.#lastFinalized;
    if (floor === null || root <= floor) return [];
    const chain = new Set<number>([root]);
    let at = root;
    while (at > floor) {
      const parent = this.#slots.get(at)?.parent ?? null;
      // An unknown link: the chain is not proven, so nothing is called dead.
      if (parent === null) return [];
      chain.add(parent);
      at = parent;
    }
    // The walk passed the previous finalized slot without meeting it: the parents disagree with the roots.
    if (at !== floor) return [];
    const out: OutgoingSlotMessage[] = [];
    const candidates = [...this.#slots.keys()].filter((s) => s > floor && s < root && !chain.has(s)).sort((a, b) => a - b);
    for (const s of candidates) {
      const t = this.#slots.get(s)!;
      if (t.published.has('dead') || t.published.has('finalized')) continue;
      out.push(this.#message(s, t, 'dead', 'skipped'));
    }
    return out;
  }

  /** Forgets slots behind the newest finalized one that reached an end (finalized or dead). */
  #prune(): void {
    const floor = this.#lastFinalized;
    if (floor === null) return;
    for (const [s, t] of this.#slots) {
      if (s < floor && (t.published.has('finalized') || t.published.has('dead'))) this.#slots.delete(s);
    }
  }

  #evictOldest(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const s of this.#slots.keys()) if (s < oldest) oldest = s;
    this.#slots.delete(oldest);
  }
}
