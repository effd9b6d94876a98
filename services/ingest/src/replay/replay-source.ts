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

/**
 * Yields batches (one per recorded transaction) at `transactionsPerSecond`, forever when `loop`.
 * Stops when `signal` aborts. The pace is kept against a schedule, so slow publishing does not
 * accumulate drift, and never bursts to catch up by more than one transaction; waits shorter than
 * 1 ms (a timer's resolution) are not slept, so the schedule runs up to 1 ms ahead.
 */
export async function* replay(
  transactions: readonly RecordedTransaction[],
  options: { transactionsPerSecond: number; loop: boolean; signal: AbortSignal; runId?: string; now?: () => number },
): AsyncGenerator<ReplayedTrade[]> {
  if (transactions.length === 0) return;
  const runId = options.runId ?? randomUUID().slice(0, 8);
  const now = options.now ?? Date.now;
  const intervalMs = 1000 / options.transactionsPerSecond;
  let next = now();
  for (let loop = 0; !options.signal.aborted; loop++) {
    for (const tx of transactions) {
      const wait = next - now();
      // Timers fire no sooner than 1 ms: a shorter wait is not slept (at 100,000 tx/s every wait is 0.01 ms, and
      // sleeping each would cap the replay near 1,000 waits a second); the schedule still holds the average pace.
      if (wait >= 1) await sleep(wait, options.signal);
      if (options.signal.aborted) return;
      next = Math.max(next + intervalMs, now() - intervalMs);
      const emittedAt = now();
      yield tx.trades.map((t) => replayCopy(t, runId, loop, emittedAt));
    }
    if (!options.loop) return;
  }
}
