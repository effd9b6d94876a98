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
  if (!flat) {
    flat = [];
    for (const n of nodes) {
      flat.push(n.outer);
      for (const ix of n.inner) flat.push(ix);
    }
    flatCache.set(nodes, flat);
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

function push(m: Map<number, RawEvent[]>, k: number, e: RawEvent): void {
  const list = m.get(k);
  if (list) list.push(e);
  else m.set(k, [e]);
}

/** The emit_cpi half of {@link collectEvents}: cheap (no log parsing). */
export function collectCpiEvents(tx: NormalizedTransaction, programId: string): Map<number, RawEvent[]> {
  const flat = flatten(tx.instructions);
  const cpi = new Map<number, RawEvent[]>();

  // Flat index where each top-level node starts, to keep the owner search inside one node.
  let start = 0;
  for (const node of tx.instructions) {
    const nodeStart = start;
    start += 1 + node.inner.length;
    node.inner.forEach((ix, j) => {
      if (!isEventCpi(ix, programId) || ix.data === null) return;
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
    });
  }
  return cpi;
}

/** The `Program data:` half of {@link collectEvents}: replays the log nesting. */
export function collectLogEvents(tx: NormalizedTransaction, programId: string): Map<number, RawEvent[]> {
  const flat = flatten(tx.instructions);
  const log = new Map<number, RawEvent[]>();
  if (tx.logs) {
    const stack: number[] = [];
    let next = 0;
    for (const line of tx.logs) {
      // String tests instead of regexes: this runs over every log line of every transaction.
      if (line.startsWith('Program data: ')) {
        const top = stack[stack.length - 1];
        if (top === undefined || flat[top]?.programId !== programId) continue;
        push(log, top, { bytes: Buffer.from(line.slice(14).trim(), 'base64'), via: 'log' });
        continue;
      }
      if (!line.startsWith('Program ')) {
        if (line.startsWith('Log truncated')) break;
        continue;
      }
      const sp = line.indexOf(' ', 8);
      if (sp < 0) continue;
      const id = line.slice(8, sp);
      if (id.endsWith(':')) continue; // "Program log: …", "Program return: …", never a program id
      const rest = line.slice(sp + 1);
      if (rest.startsWith('invoke [') && rest.endsWith(']')) {
        const ix = flat[next];
        if (!ix || ix.programId !== id) break;
        stack.push(next++);
      } else if (rest === 'success' || rest.startsWith('failed')) {
        stack.pop();
      }
    }
  }
  return log;
}
