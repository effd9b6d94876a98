/**
 * The fan-out bench's trade message and its latency histogram, shared by the publisher
 * (scripts/bench/fanout.ts) and the subscriber processes (scripts/bench/fanout-clients.ts).
 *
 * A message is a real decoded trade's JSON with three fields spliced in at the end:
 *   …,"bench_s":<step>,"bench_n":<counter>,"bench_t":<publish time, ms>}
 * `bench_n` increases by one per published message over the whole run; `bench_t` is
 * performance.timeOrigin + performance.now() of the publisher (epoch ms with µs resolution,
 * comparable between processes on one machine). The fields go last so a subscriber finds them
 * by searching back from the end, whatever ws-fanout puts in front (protocol v2 prepends "seq").
 */

/** The fields a subscriber reads back. */
export interface BenchFields {
  readonly step: number;
  readonly n: number;
  /** Publish time, epoch ms (performance.timeOrigin + performance.now()). */
  readonly t: number;
}

/** Current time on the clock of `bench_t`, epoch ms. */
export function benchNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Message factory for one trade: `make(step, n)` returns the JSON text stamped with the current time.
 * @throws Error when `trade` does not serialise to a JSON object.
 */
export function benchMessages(trade: unknown): { bytes: number; make(step: number, n: number): string } {
  const json = JSON.stringify(trade);
  if (typeof json !== 'string' || !json.startsWith('{') || !json.endsWith('}') || json === '{}') throw new Error('bench trade must be a non-empty JSON object');
  const head = json.slice(0, -1);
  const make = (step: number, n: number) => `${head},"bench_s":${step},"bench_n":${n},"bench_t":${benchNow().toFixed(3)}}`;
  return { bytes: Buffer.byteLength(make(1, 100_000)), make };
}

const KEY_S = Buffer.from('"bench_s"');
const KEY_N = Buffer.from('"bench_n"');
const KEY_T = Buffer.from('"bench_t"');
const COLON = 0x3a;
const SPACE = 0x20;

/** Index after `key`, optional spaces, `:` and optional spaces, searching from `from`; -1 when absent. */
function valueStart(buf: Buffer, key: Buffer, from: number): number {
  const at = buf.indexOf(key, from);
  if (at < 0) return -1;
  let i = at + key.length;
  while (buf[i] === SPACE) i++;
  if (buf[i] !== COLON) return -1;
  i++;
  while (buf[i] === SPACE) i++;
  return i;
}

/** Non-negative integer at `i`, and where it ends; undefined when there is no digit. */
function readInt(buf: Buffer, i: number): [number, number] | undefined {
  let v = 0;
  const start = i;
  for (let c = buf[i]; c !== undefined && c >= 0x30 && c <= 0x39; c = buf[++i]) v = v * 10 + (c - 0x30);
  return i > start ? [v, i] : undefined;
}

/**
 * The bench fields of a received message (a WebSocket text frame or a NATS payload), without parsing
 * the whole JSON; undefined for anything else (control messages such as `subscribed` or `heartbeat`).
 */
export function parseBenchFields(data: Uint8Array): BenchFields | undefined {
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const at = buf.lastIndexOf(KEY_S);
  if (at < 0) return undefined;
  const s = readInt(buf, valueStart(buf, KEY_S, at));
  if (!s) return undefined;
  const n = readInt(buf, valueStart(buf, KEY_N, s[1]));
  if (!n) return undefined;
  const ti = valueStart(buf, KEY_T, n[1]);
  if (ti < 0) return undefined;
  let end = ti;
  for (let c = buf[end]; c !== undefined && ((c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x65 || c === 0x2b); c = buf[++end]);
  const t = Number(buf.toString('latin1', ti, end));
  return Number.isFinite(t) && end > ti ? { step: s[0], n: n[0], t } : undefined;
}

/** Relative width of a histogram bucket: values are kept to within 1 %. */
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);

/** The range a {@link LatencyHistogram} resolves, ms. */
export interface LatencyRange {
  /** Smallest resolved value; anything below (or a negative clock difference) lands in bucket 0. */
  minMs: number;
  /** Largest resolved value; anything above lands in the last bucket (the maximum stays exact). */
  maxMs: number;
}

/** The bench's range: 1 µs to 60 s (ln(60 000 / 0.001) / ln 1.01 ≈ 1 800 buckets). */
export const BENCH_LATENCY_RANGE: LatencyRange = { minMs: 0.001, maxMs: 60_000 };

/** A histogram as sent between processes: its non-empty buckets as `[index, count]`. */
export interface LatencyHistogramJson {
  buckets: Array<[number, number]>;
  count: number;
  max: number;
}

/** Latencies in ms, in log buckets of 1 % width (mergeable across processes with the same range); the maximum is exact. */
export class LatencyHistogram {
  private readonly minMs: number;
  private readonly size: number;
  private readonly counts: Float64Array;
  count = 0;
  max = 0;

  constructor(range: LatencyRange = BENCH_LATENCY_RANGE) {
    this.minMs = range.minMs;
    this.size = Math.ceil(Math.log(range.maxMs / range.minMs) / LOG_GROWTH) + 1;
    this.counts = new Float64Array(this.size);
  }

  record(ms: number): void {
    const i = ms <= this.minMs ? 0 : Math.min(this.size - 1, Math.ceil(Math.log(ms / this.minMs) / LOG_GROWTH));
    this.counts[i]! += 1;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  /** Non-empty buckets as `[index, count]` pairs (what a child process sends to the parent). */
  toJSON(): LatencyHistogramJson {
    const buckets: Array<[number, number]> = [];
    this.counts.forEach((c, i) => {
      if (c > 0) buckets.push([i, c]);
    });
    return { buckets, count: this.count, max: this.max };
  }

  /** Adds another histogram's counts (the output of {@link toJSON} of a histogram with the same range). */
  merge(other: LatencyHistogramJson): void {
    for (const [i, c] of other.buckets) this.counts[i]! += c;
    this.count += other.count;
    this.max = Math.max(this.max, other.max);
  }

  /**
   * The `q` quantile (0..1), ms: the upper bound of the bucket holding it (at most 1 % above the true
   * value; the exact maximum for q = 1). NaN when empty.
   */
  quantile(q: number): number {
    if (this.count === 0) return Number.NaN;
    if (q >= 1) return this.max;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < this.size; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.max, i === 0 ? this.minMs : this.minMs * GROWTH ** i);
    }
    return this.max;
  }
}
