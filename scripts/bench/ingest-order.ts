/**
 * Order and loss check of replayed trades as TRADES stored them (scripts/bench/ingest.ts). Pure: no I/O.
 *
 * A replayed trade's `Nats-Msg-Id` is `<message id>:replay:<run>:<loop>` (replayCopy,
 * services/ingest/src/replay/replay-source.ts), where `<message id>` is `<signature>:<instruction path>`
 * with `:COMPLETE` for a pump.fun COMPLETE (messageId), `<run>` the replay run (one per ingest process) and
 * `<loop>` the pass (0 first). Within a run, the trade at index `i` of a pass of `n` trades in pass `loop` has
 * position `loop × n + i`; the replay hands the trades to the publisher in position order, so a stream that
 * kept that order holds, per run, positions rising by exactly 1.
 */

/** Counts of one check; every count but `checked` and `runs` is 0 when the order was kept and nothing was lost. */
export interface OrderCheck {
  /** Message ids looked at. */
  checked: number;
  /** Distinct replay runs among them. */
  runs: number;
  /** Stored after a message that comes later in the replay order (a position below the highest seen before in its run). */
  reordered: number;
  /** Stored again: a position already seen in its run. */
  duplicated: number;
  /** Positions missing between the lowest and the highest stored of each run (lost, or stored outside the ids checked). */
  gaps: number;
  /** Ids that are not a replayed copy of a trade of the pass (not `…:replay:<run>:<loop>`, or an unknown message id). */
  foreign: number;
}

/** The parts of a replayed trade's `Nats-Msg-Id`; undefined when `msgId` does not end in `:replay:<run>:<loop>`. */
export function parseReplayMsgId(msgId: string): { messageId: string; run: string; loop: number } | undefined {
  const m = /^(.+):replay:([^:]+):(\d+)$/.exec(msgId);
  if (!m) return undefined;
  const loop = Number(m[3]);
  if (!Number.isSafeInteger(loop)) return undefined;
  return { messageId: m[1]!, run: m[2]!, loop };
}

/**
 * Checks stored message ids against the replay order.
 * @param msgIds `Nats-Msg-Id`s in stream order (ascending stream sequence), e.g. the last N of TRADES.
 * @param passOrder the message ids of one replay pass in publish order (unique).
 * @returns the counts; positions before the first and after the last stored one of each run are not gaps
 *   (a sample may start or end anywhere).
 * @throws Error when `passOrder` is empty or holds an id twice.
 */
export function checkReplayOrder(msgIds: Iterable<string>, passOrder: readonly string[]): OrderCheck {
  const index = new Map<string, number>();
  for (let i = 0; i < passOrder.length; i++) index.set(passOrder[i]!, i);
  if (passOrder.length === 0 || index.size !== passOrder.length) throw new Error('passOrder must be non-empty and hold each message id once');
  const n = passOrder.length;
  const runs = new Map<string, { seen: Set<number>; min: number; max: number }>();
  const out: OrderCheck = { checked: 0, runs: 0, reordered: 0, duplicated: 0, gaps: 0, foreign: 0 };
  for (const msgId of msgIds) {
    out.checked++;
    const parsed = parseReplayMsgId(msgId);
    const i = parsed ? index.get(parsed.messageId) : undefined;
    if (!parsed || i === undefined) {
      out.foreign++;
      continue;
    }
    const position = parsed.loop * n + i;
    let run = runs.get(parsed.run);
    if (!run) {
      run = { seen: new Set(), min: position, max: position };
      runs.set(parsed.run, run);
    }
    if (run.seen.has(position)) {
      out.duplicated++;
      continue;
    }
    if (position < run.max) out.reordered++;
    run.seen.add(position);
    if (position < run.min) run.min = position;
    if (position > run.max) run.max = position;
  }
  out.runs = runs.size;
  for (const run of runs.values()) out.gaps += run.max - run.min + 1 - run.seen.size;
  return out;
}
