/**
 * Slot status on a WebSocket subscription (docs/websocket.md "Slot status"): which of the `slots` messages
 * (@tradewind/contracts slots.ts) a subscription that asked for them (`"slots": true`) is sent.
 *
 * A subscription with slot status reads its subject and `slots` merged in stream order (one consumer with both
 * filter subjects), so a slot's status always comes after the trades of that slot it was sent. Of the slot
 * messages it is sent those that concern it:
 * - `confirmed`, `finalized` and `dead` of every slot in which it was sent at least one trade (after its filter);
 *   `processed` never (a trade streamed at `processed` already says so);
 * - after a `resume_after`, also those of slots up to the slot of the message it resumed after in which ingest
 *   published a trade of its subject (the slot message's `trades` counts), whether or not its filter passed one:
 *   which trades the client had before the resume point is not known here, and a status too many is harmless
 *   where one missing is not.
 * A slot is forgotten once its `finalized` or `dead` status was sent (nothing follows those) and, past
 * `maxSlots`, oldest first.
 */
import type { SlotStatusName } from '@tradewind/contracts';

/** Default of {@link SlotWatch}'s `maxSlots` (config WS_SLOT_TRACK_MAX): 1,024 slots, about 7 minutes of chain. */
export const DEFAULT_WS_SLOT_TRACK_MAX = 1_024;

/** What {@link SlotWatch.admit} reads of a slot message. */
export interface SlotMessageFacts {
  readonly slot: number;
  readonly status: SlotStatusName;
  /** Trades ingest published from the slot, per TRADES subject. */
  readonly trades: Readonly<Partial<Record<string, number>>>;
}

/** The slot bookkeeping of one subscription with slot status. */
export class SlotWatch {
  /** Slots in which a trade was sent, oldest first (a Map keeps insertion order). */
  readonly #sent = new Map<number, true>();

  /**
   * @param subject the subscription's TRADES subject (its count in a slot message's `trades`).
   * @param resumeSlot after a resume: the slot of the message resumed after (statuses of slots up to it with
   *   trades of the subject are sent, module comment); null for a fresh subscription or a replay.
   * @param maxSlots slots remembered at most.
   */
  constructor(
    readonly subject: string,
    readonly resumeSlot: number | null,
    readonly maxSlots: number = DEFAULT_WS_SLOT_TRACK_MAX,
  ) {}

  /** Slots remembered now (for tests and metrics). */
  get size(): number {
    return this.#sent.size;
  }

  /** Records that a trade of `slot` was sent to the subscription. */
  noteTrade(slot: number | null): void {
    if (slot === null || this.#sent.has(slot)) return;
    this.#sent.set(slot, true);
    if (this.#sent.size > this.maxSlots) this.#sent.delete(this.#sent.keys().next().value as number);
  }

  /** Whether the subscription is sent this slot message (module comment); a terminal status sent forgets the slot. */
  admit(message: SlotMessageFacts): boolean {
    if (message.status === 'processed') return false;
    const terminal = message.status === 'finalized' || message.status === 'dead';
    if (this.#sent.has(message.slot)) {
      if (terminal) this.#sent.delete(message.slot);
      return true;
    }
    return this.resumeSlot !== null && message.slot <= this.resumeSlot && (message.trades[this.subject] ?? 0) > 0;
  }
}

/**
 * The facts of a `slots` message, or null when the bytes are not one (a malformed message is passed over, never
 * sent: it would not be a slot message a client can act on).
 */
export function slotMessageFacts(data: Uint8Array): SlotMessageFacts | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (v.type !== 'slot' || typeof v.slot !== 'number' || typeof v.status !== 'string') return null;
  if (!['processed', 'confirmed', 'finalized', 'dead'].includes(v.status)) return null;
  const trades = v.trades && typeof v.trades === 'object' && !Array.isArray(v.trades) ? (v.trades as Record<string, number>) : {};
  return { slot: v.slot, status: v.status as SlotStatusName, trades };
}

/** The `slot` of a trade message (bytes as published), or null when it has none or is not JSON. */
export function tradeSlot(value: unknown): number | null {
  if (!value || typeof value !== 'object') return null;
  const slot = (value as { slot?: unknown }).slot;
  return typeof slot === 'number' && Number.isSafeInteger(slot) ? slot : null;
}
