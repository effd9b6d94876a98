import type { InstructionNode, NormalizedInstruction, NormalizedTransaction } from './transaction.js';

/**
 * Anchor's event-CPI tag: the first 8 bytes of instruction data of an emit_cpi
 * self-invocation (sha256("anchor:event")[..8], anchor-lang `EVENT_IX_TAG_LE`).
 */
export const EVENT_IX_TAG = Buffer.from('e445a52e51cb9a1d', 'hex');

/** An Anchor event as raw bytes: 8-byte event discriminator + borsh payload. */
export interface RawEvent {
  bytes: Uint8Array;
  /** Where it came from: an emit_cpi inner instruction or a `Program data:` log line. */
  via: 'cpi' | 'log';
}

/** True when `ix` is an emit_cpi self-invocation carrying an event. */
export function isEventCpi(ix: NormalizedInstruction, programId: string): boolean {
  // emit_cpi passes exactly one account, the program's event authority (anchor-lang `emit_cpi!`):
  // checked first so that other instructions' data is never decoded here.
  if (ix.programId !== programId || ix.accounts.length !== 1) return false;
  const data = ix.data;
  return data !== null && data.length >= 16 && EVENT_IX_TAG.equals(data.subarray(0, 8));
}

const flatCache = new WeakMap<InstructionNode[], NormalizedInstruction[]>();

/**
 * Every instruction in execution order: each top-level instruction followed by
 * its CPIs. Memoised per instruction tree (the four program decoders all walk
 * it); do not add instructions to a tree after flattening it.
 */
export function flatten(nodes: InstructionNode[]): NormalizedInstruction[] {
  let flat = flatCache.get(nodes);
  if (!flat) flatCache.set(nodes, (flat = flattenNodes(nodes)));
  return flat;
}

/** {@link flatten} without the memo (the single-pass decoder flattens each tree once anyway). */
export function flattenNodes(nodes: readonly InstructionNode[]): NormalizedInstruction[] {
  const flat: NormalizedInstruction[] = [];
  for (const n of nodes) {
    flat.push(n.outer);
    for (const ix of n.inner) flat.push(ix);
  }
  return flat;
}

/**
 * Collects the events each invocation of `programId` emitted, keyed by the
 * index of the emitting instruction in {@link flatten} order.
 *
 * emit_cpi events are inner instructions one level below their emitter
 * (stackHeight + 1). `Program data:` log lines are attributed by replaying the
 * `Program <id> invoke [n]` / `success` / `failed` nesting: the k-th `invoke`
 * line is the k-th instruction in execution order. Attribution stops at a
 * program-id mismatch or `Log truncated`, since the order is no longer known.
 * Callers prefer the emit_cpi form and fall back to logs only when an
 * instruction has no emit_cpi event.
 */
export function collectEvents(tx: NormalizedTransaction, programId: string): { cpi: Map<number, RawEvent[]>; log: Map<number, RawEvent[]> } {
  return { cpi: collectCpiEvents(tx, programId), log: collectLogEvents(tx, programId) };
}

/** Whether `s` holds `lit` at `pos` (a char loop: cheaper than startsWith for these short literals). */
function hasAt(s: string, pos: number, lit: string): boolean {
  const n = lit.length;
  if (pos < 0 || pos + n > s.length) return false;
  for (let i = 0; i < n; i++) if (s.charCodeAt(pos + i) !== lit.charCodeAt(i)) return false;
  return true;
}

/** Whether `s` starts with `Program ` (constant compares: ~2× faster than {@link hasAt}'s loop, and every log line pays it). */
function isProgramLine(s: string): boolean {
  return (
    s.charCodeAt(0) === 80 &&
    s.charCodeAt(1) === 114 &&
    s.charCodeAt(2) === 111 &&
    s.charCodeAt(3) === 103 &&
    s.charCodeAt(4) === 114 &&
    s.charCodeAt(5) === 97 &&
    s.charCodeAt(6) === 109 &&
    s.charCodeAt(7) === 32
  );
}

function push(m: Map<number, RawEvent[]>, k: number, e: RawEvent): void {
  const list = m.get(k);
  if (list) list.push(e);
  else m.set(k, [e]);
}

/** The emit_cpi half of {@link collectEvents}: cheap (no log parsing). */
export function collectCpiEvents(
  tx: NormalizedTransaction,
  programId: string,
  flat: readonly NormalizedInstruction[] = flatten(tx.instructions),
): Map<number, RawEvent[]> {
  const cpi = new Map<number, RawEvent[]>();

  // Flat index where each top-level node starts, to keep the owner search inside one node.
  let start = 0;
  for (const node of tx.instructions) {
    const nodeStart = start;
    start += 1 + node.inner.length;
    for (let j = 0; j < node.inner.length; j++) {
      const ix = node.inner[j]!;
      if (!isEventCpi(ix, programId) || ix.data === null) continue;
      const k = nodeStart + 1 + j;
      for (let o = k - 1; o >= nodeStart; o--) {
        const cand = flat[o];
        if (!cand || cand.programId !== programId || isEventCpi(cand, programId)) continue;
        const depthOk = ix.stackHeight === null || cand.stackHeight === null || cand.stackHeight === ix.stackHeight - 1;
        if (depthOk) {
          push(cpi, o, { bytes: ix.data.subarray(8), via: 'cpi' });
          break;
        }
      }
    }
  }
  return cpi;
}

/** The `Program data:` half of {@link collectEvents}: replays the log nesting. */
export function collectLogEvents(tx: NormalizedTransaction, programId: string): Map<number, RawEvent[]> {
  return collectLogEventsOf(tx, flatten(tx.instructions), undefined, programId);
}

/**
 * {@link collectLogEvents} for several programs in one replay of the log: the events of every
 * instruction whose program is in `programIds`, keyed by index in `flat` (= {@link flatten} of
 * `tx.instructions`). The single-pass decoder reads the events of all four programs from it.
 */
export function collectLogEventsForPrograms(
  tx: NormalizedTransaction,
  programIds: ReadonlySet<string>,
  flat: readonly NormalizedInstruction[] = flatten(tx.instructions),
): Map<number, RawEvent[]> {
  return collectLogEventsOf(tx, flat, programIds, undefined);
}

/** The log replay: events of instructions whose program is in `ids`, or is `id`. */
function collectLogEventsOf(
  tx: NormalizedTransaction,
  flat: readonly NormalizedInstruction[],
  ids: ReadonlySet<string> | undefined,
  id: string | undefined,
): Map<number, RawEvent[]> {
  const log = new Map<number, RawEvent[]>();
  // The last instruction whose events are wanted: once it has been invoked and the stack is empty
  // again (its top-level instruction finished), every later `Program data:` line belongs to a later
  // instruction, so the rest of the log is not read (often a third of it: tips, transfers, closes).
  let last = flat.length - 1;
  while (last >= 0 && (ids ? !ids.has(flat[last]!.programId) : flat[last]!.programId !== id)) last--;
  if (tx.logs && last >= 0) {
    const stack: number[] = [];
    let next = 0;
    const logs = tx.logs;
    for (let li = 0; li < logs.length; li++) {
      if (next > last && stack.length === 0) break;
      const line = logs[li]!;
      const len = line.length;
      // Character tests (hasAt, isProgramLine) instead of regexes or startsWith: this runs over every
      // log line of every transaction (~70 per trade). The one slice, the program id of an invoke
      // line, is compared as a whole string (measured faster than a 44-character hasAt loop). Lines look like `Program <id> invoke [n]`,
      // `Program <id> success`, `Program <id> failed: …`, `Program <id> consumed …`,
      // `Program log: …`, `Program data: <base64>`, `Program return: …`.
      if (!isProgramLine(line)) {
        if (line.startsWith('Log truncated')) break;
        continue;
      }
      // The two commonest lines, `Program <id> invoke [d]` and `Program <id> success`, are told by
      // their ends, without a search for the space after the id.
      if (line.charCodeAt(len - 1) === 93 /* ] */ && hasAt(line, len - 11, ' invoke [')) {
        const id = flat[next]?.programId;
        if (id !== undefined && id.length === len - 19 && line.slice(8, len - 11) === id) {
          stack.push(next++);
          continue;
        }
      } else if (line.charCodeAt(len - 8) === 32 && hasAt(line, len - 7, 'success') && line.indexOf(' ', 8) === len - 8 && line.charCodeAt(len - 9) !== 58) {
        stack.pop();
        continue;
      }
      const c8 = line.charCodeAt(8);
      if (c8 === 100 /* d */ && hasAt(line, 8, 'data: ')) {
        const top = stack[stack.length - 1];
        if (top === undefined) continue;
        const owner = flat[top];
        if (owner === undefined || (ids ? !ids.has(owner.programId) : owner.programId !== id)) continue;
        push(log, top, { bytes: Buffer.from(line.slice(14).trim(), 'base64'), via: 'log' });
        continue;
      }
      if (c8 === 108 /* l */ && hasAt(line, 8, 'log: ')) continue;
      const sp = line.indexOf(' ', 8);
      if (sp < 0) continue;
      if (sp > 8 && line.charCodeAt(sp - 1) === 58) continue; // "Program return: …" and the like, never a program id
      const rest = sp + 1;
      const r0 = line.charCodeAt(rest);
      if (r0 === 105 /* i */ && hasAt(line, rest, 'invoke [') && line.endsWith(']')) {
        const ix = flat[next];
        if (!ix || ix.programId.length !== sp - 8 || !hasAt(line, 8, ix.programId)) break;
        stack.push(next++);
      } else if ((r0 === 115 /* s */ && len === rest + 7 && hasAt(line, rest, 'success')) || (r0 === 102 /* f */ && hasAt(line, rest, 'failed'))) {
        stack.pop();
      }
    }
  }
  return log;
}
