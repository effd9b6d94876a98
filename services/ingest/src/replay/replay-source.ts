/**
 * The replay source: emits a recording's trades in chain order at a steady pace and loops.
 *
 * Replayed messages are marked, never passed off as live: `replayed: true`, `replay_loop`
 * (0 for the first pass) and `replayed_at_ms` (when this copy was emitted). `slot` and
 * `block_time_ms` stay the chain's own. Their `Nats-Msg-Id` adds the replay run and loop to
 * `<signature>:<instruction path>`, so a loop is not dropped as a duplicate while a retried
 * publish of the same copy still is.
 */
import { randomUUID } from 'node:crypto';
import { SLOTS_SUBJECT, SLOT_MESSAGE_SCHEMA_VERSION, slotMessageId, type SlotStatusMessage, type SlotStatusName } from '@tradewind/contracts';
import { messageId, subjectOf, type TradeMessage, type TradeSubject } from '../decode/index.js';
import { sleep } from '../live/source.js';
import type { RecordedTransaction } from './recording.js';

/** A message ready to publish: its subject, `Nats-Msg-Id` and body. */
export interface OutgoingTrade {
  readonly subject: TradeSubject;
  readonly msgId: string;
  readonly message: TradeMessage;
}

/** A replayed copy of a recorded trade. */
export interface ReplayedTrade extends OutgoingTrade {
  readonly message: TradeMessage & { replayed: true; replay_loop: number; replayed_at_ms: number };
}

/** Marks one trade as a replayed copy. */
export function replayCopy(trade: TradeMessage, runId: string, loop: number, nowMs: number): ReplayedTrade {
  return {
    subject: subjectOf(trade),
    msgId: `${messageId(trade)}:replay:${runId}:${loop}`,
    message: { ...trade, replayed: true, replay_loop: loop, replayed_at_ms: nowMs },
  };
}

/** A replayed slot status: after the last replayed trade of its slot in a pass (`slotStatus` option of {@link replay}). */
export interface ReplayedSlotMessage {
  readonly subject: typeof SLOTS_SUBJECT;
  readonly msgId: string;
  readonly message: SlotStatusMessage & { replayed: true; replay_loop: number; replayed_at_ms: number };
}

/**
 * Yields batches (one per recorded transaction) at `transactionsPerSecond`, forever when `loop`.
 * With `slotStatus`, the batch of the last transaction of each recorded slot ends with that slot's status
 * message (status `slotStatus`, the recording's commitment; source `replay`; the replay's trades of the slot
 * counted per subject; `Nats-Msg-Id` `slot:<slot>:<status>:replay:<run>:<loop>`, so every pass publishes its own).
 * Stops when `signal` aborts. The pace is kept against a schedule, so slow publishing does not
 * accumulate drift, and never bursts to catch up by more than one transaction; waits shorter than
 * 1 ms (a timer's resolution) are not slept, so the schedule runs up to 1 ms ahead.
 */
export async function* replay(
  transactions: readonly RecordedTransaction[],
  options: { transactionsPerSecond: number; loop: boolean; signal: AbortSignal; runId?: string; now?: () => number; slotStatus?: SlotStatusName },
): AsyncGenerator<Array<ReplayedTrade | ReplayedSlotMessage>> {
  if (transactions.length === 0) return;
  const runId = options.runId ?? randomUUID().slice(0, 8);
  const now = options.now ?? Date.now;
  const intervalMs = 1000 / options.transactionsPerSecond;
  const status = options.slotStatus;
  // Per recorded slot: the index of its last transaction in replay order, and its trades per subject.
  const lastOfSlot = new Map<number, number>();
  const counts = new Map<number, Record<string, number>>();
  if (status) {
    transactions.forEach((tx, i) => {
      const slot = tx.trades[0]?.slot;
      if (typeof slot !== 'number') return;
      lastOfSlot.set(slot, i);
      const c = counts.get(slot) ?? {};
      for (const t of tx.trades) c[subjectOf(t)] = (c[subjectOf(t)] ?? 0) + 1;
      counts.set(slot, c);
    });
  }
  let next = now();
  for (let loop = 0; !options.signal.aborted; loop++) {
    for (const [index, tx] of transactions.entries()) {
      const wait = next - now();
      // Timers fire no sooner than 1 ms: a shorter wait is not slept (at 100,000 tx/s every wait is 0.01 ms, and
      // sleeping each would cap the replay near 1,000 waits a second); the schedule still holds the average pace.
      if (wait >= 1) await sleep(wait, options.signal);
      if (options.signal.aborted) return;
      next = Math.max(next + intervalMs, now() - intervalMs);
      const emittedAt = now();
      const batch: Array<ReplayedTrade | ReplayedSlotMessage> = tx.trades.map((t) => replayCopy(t, runId, loop, emittedAt));
      const slot = tx.trades[0]?.slot;
      if (status && typeof slot === 'number' && lastOfSlot.get(slot) === index) {
        batch.push({
          subject: SLOTS_SUBJECT,
          msgId: `${slotMessageId(slot, status)}:replay:${runId}:${loop}`,
          message: {
            type: 'slot',
            slot,
            parent: null,
            status,
            trades: { ...counts.get(slot) },
            source: 'replay',
            observed_at_ms: emittedAt,
            schema_version: SLOT_MESSAGE_SCHEMA_VERSION,
            replayed: true,
            replay_loop: loop,
            replayed_at_ms: emittedAt,
          },
        });
      }
      yield batch;
    }
    if (!options.loop) return;
  }
}
