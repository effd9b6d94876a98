import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import type { UnknownItem } from './program.js';
import { TRADE_PROGRAMS } from './prefilter.js';

/** Metric label of each trade program: its short name (prefilter's TRADE_PROGRAMS keys). */
const PROGRAM_LABELS: ReadonlyMap<string, string> = new Map(Object.entries(TRADE_PROGRAMS).map(([name, id]) => [id, name]));

/** Name of the counter {@link createUnknownReporter} registers. */
export const DECODE_UNKNOWN_METRIC = 'tradewind_ingest_decode_unknown_total';

/**
 * The decoder's {@link DecodeOptions.onUnknown} hook for a process: counts every
 * {@link UnknownItem} in `tradewind_ingest_decode_unknown_total{program,kind}` (program = the
 * trade program's short name, kind = the item's kind) and logs a warning with the signature the
 * first time each (program, kind) is seen in the process (a bounded set: 4 programs × 4 kinds),
 * so a program upgrade shows up in the logs once, not once per transaction.
 */
export function createUnknownReporter(registry: Registry, logger: Logger): (item: UnknownItem) => void {
  const counter = new Counter({
    name: DECODE_UNKNOWN_METRIC,
    help: 'Instructions, events or event fields of a decoded program that its IDL lacks (skipped; the rest of the transaction is decoded)',
    labelNames: ['program', 'kind'],
    registers: [registry],
  });
  const logged = new Set<string>();
  return (item) => {
    const program = PROGRAM_LABELS.get(item.programId) ?? item.programId;
    counter.inc({ program, kind: item.kind });
    const key = `${program}:${item.kind}`;
    if (logged.has(key)) return;
    logged.add(key);
    logger.warn(
      { program, program_id: item.programId, kind: item.kind, name: item.name, signature: item.signature },
      'decoder met something its IDL lacks (newer program version?); skipped it and decoded the rest (logged once per program and kind)',
    );
  };
}
