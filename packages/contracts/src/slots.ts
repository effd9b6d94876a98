/**
 * Slot status messages (issue 32): what became of each slot ingest published trades from, on the TRADES
 * subject {@link SLOTS_SUBJECT}, in the stream's order with the trades (a slot's status is stored after the
 * trades ingest published from it), de-duplicated like trades (`Nats-Msg-Id` = {@link slotMessageId}).
 *
 * A trade message states the `commitment` at which its source saw the transaction; at `processed` its slot
 * may still be skipped. The slot messages say what happened next:
 * - `processed`: the slot's block was executed by the node the source reads (the earliest a trade streams);
 * - `confirmed`: a supermajority of stake voted on the block;
 * - `finalized`: the block is rooted and will never be rolled back;
 * - `dead`: the slot will never be confirmed, and every trade in it never happened. Either the node said so
 *   (Yellowstone's `SLOT_DEAD`: its replay of the block failed; `dead_error` carries why), or the slot was
 *   left on a fork the cluster abandoned: a slot rooted after it does not descend from it (`reason`).
 * Statuses below the source's own commitment are not published (a source at `confirmed` sees the
 * transactions of a slot only once it is confirmed: its `processed` status would come before them).
 */

/** The TRADES subject of the slot status messages. Every plan may read it. */
export const SLOTS_SUBJECT = 'slots';

/** Version of the slot message format (`schema_version` on every slot message). */
export const SLOT_MESSAGE_SCHEMA_VERSION = 1;

/** A slot's status, in the order it can move (processed → confirmed → finalized), or `dead`. */
export type SlotStatusName = 'processed' | 'confirmed' | 'finalized' | 'dead';

/** Every {@link SlotStatusName}. */
export const SLOT_STATUSES: readonly SlotStatusName[] = ['processed', 'confirmed', 'finalized', 'dead'];

/** Why a slot is `dead`: the node's replay failed (`replay_failed`), or the slot was left on an abandoned fork (`skipped`). */
export type DeadSlotReason = 'replay_failed' | 'skipped';

/** One slot status message as published on {@link SLOTS_SUBJECT} (JSON). */
export interface SlotStatusMessage {
  /** Always `"slot"`: tells a slot message from a trade (`"trade"`) in a mixed reader. */
  type: 'slot';
  /** The slot. */
  slot: number;
  /** Its parent slot, or null when the source did not say. */
  parent: number | null;
  status: SlotStatusName;
  /**
   * Trades ingest published from this slot so far, per TRADES subject; a subject with none is left out
   * (`{}`: none). Counted by the publishing ingest process since it started.
   */
  trades: Partial<Record<string, number>>;
  /** With status `dead`: why. */
  reason?: DeadSlotReason;
  /** With reason `replay_failed`: the node's error text (Yellowstone `dead_error`), when it gave one. */
  dead_error?: string;
  /** The source that reported it: `yellowstone` or `rpc` (live), or `replay` (the recording's commitment, replayed). */
  source: string;
  /** When ingest learned of the status, ms since the Unix epoch. */
  observed_at_ms: number;
  /** {@link SLOT_MESSAGE_SCHEMA_VERSION}. */
  schema_version: typeof SLOT_MESSAGE_SCHEMA_VERSION;
  /** Replay only (as on replayed trades): always true. */
  replayed?: true;
  /** Replay only: the pass over the recording (0 for the first). */
  replay_loop?: number;
  /** Replay only: when this copy was emitted, ms since the Unix epoch. */
  replayed_at_ms?: number;
}

/** The `Nats-Msg-Id` of a slot message: `slot:<slot>:<status>` (one message per slot and status). */
export function slotMessageId(slot: number, status: SlotStatusName): string {
  return `slot:${slot}:${status}`;
}
