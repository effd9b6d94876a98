/**
 * Throughput of several code paths measured side by side, for `npm run bench -- decode`.
 *
 * The machine is shared (2 cores, other processes come and go), so paths measured one after the
 * other see different neighbours and their ratios drift from run to run. Here every path runs in
 * short alternating slices (round-robin) over the same wall-clock span, so a neighbour's burst
 * slows all of them alike and the ratios between them hold.
 */

/** One path: `fn` is called on every item of `items` in turn, whole passes at a time. */
export interface RateCase {
  /** Runs one full pass over the items; returns how many items it processed. */
  pass: () => number;
}

/** A {@link RateCase} calling `fn` on each of `items` (typed here, erased in the case). */
export function rateCase<T>(items: readonly T[], fn: (item: T) => void): RateCase {
  if (items.length === 0) throw new Error('rateCase: no items');
  return {
    pass: () => {
      for (const it of items) fn(it);
      return items.length;
    },
  };
}

/** Options of {@link interleavedRates}. */
export interface InterleaveOptions {
  /** Measured time per case, seconds (each case gets this much in total, spread over slices). */
  seconds: number;
  /** Warm-up per case before measuring, seconds (default 0.5; JIT tiers up). */
  warmupSeconds?: number;
  /** Length of one slice, ms (default 50): whole passes run until it is used up, at least one. */
  sliceMs?: number;
  /** Clock in ms (default `performance.now`); injectable for tests. */
  now?: () => number;
}

/**
 * Items per second of each case, measured in alternating slices: case 1 for a slice, case 2 for
 * a slice, ..., until every case has run `seconds` (after a warm-up done the same way). A slice
 * always completes whole passes, so a case whose pass is longer than a slice runs one pass per
 * turn. Returns `{name: items/s}` with the same keys as `cases`.
 */
export function interleavedRates<K extends string>(cases: Record<K, RateCase>, options: InterleaveOptions): Record<K, number> {
  const now = options.now ?? (() => performance.now());
  const sliceMs = options.sliceMs ?? 50;
  const names = Object.keys(cases) as K[];
  const run = (msPerCase: number): Record<K, number> => {
    const items = Object.fromEntries(names.map((k) => [k, 0])) as Record<K, number>;
    const spent = Object.fromEntries(names.map((k) => [k, 0])) as Record<K, number>;
    while (names.some((k) => spent[k] < msPerCase)) {
      for (const k of names) {
        if (spent[k] >= msPerCase) continue;
        const t0 = now();
        let t = t0;
        do {
          items[k] += cases[k].pass();
          t = now();
        } while (t - t0 < sliceMs);
        spent[k] += t - t0;
      }
    }
    return Object.fromEntries(names.map((k) => [k, (items[k] / spent[k]) * 1000])) as Record<K, number>;
  };
  run((options.warmupSeconds ?? 0.5) * 1000);
  return run(options.seconds * 1000);
}
