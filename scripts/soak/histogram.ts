/**
 * Latency histogram of the soak: log buckets of 1 % width from 10 µs to one hour (a backlog of minutes
 * must still show its quantiles, unlike the bench's 60 s range), mergeable across processes; the maximum
 * is exact.
 */

/** Relative width of a bucket: values are kept to within 1 %. */
const GROWTH = 1.01;
/** Smallest resolved value, ms; anything below (or a negative clock difference) lands in bucket 0. */
const MIN_MS = 0.01;
/** Largest resolved value, ms (one hour); anything above lands in the last bucket. */
const MAX_MS = 3_600_000;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(MAX_MS / MIN_MS) / LOG_GROWTH) + 1;

/** A histogram as sent between processes: non-empty buckets as `[index, count]`. */
export interface HistogramJson {
  buckets: Array<[number, number]>;
  count: number;
  max: number;
}

export class Histogram {
  private readonly counts = new Float64Array(BUCKETS);
  count = 0;
  max = 0;

  /** Adds one value, ms. */
  record(ms: number): void {
    const i = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / LOG_GROWTH));
    this.counts[i]! += 1;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  toJSON(): HistogramJson {
    const buckets: Array<[number, number]> = [];
    this.counts.forEach((c, i) => {
      if (c > 0) buckets.push([i, c]);
    });
    return { buckets, count: this.count, max: this.max };
  }

  /** Adds another histogram's counts. */
  merge(other: HistogramJson | Histogram): this {
    const o = other instanceof Histogram ? other.toJSON() : other;
    for (const [i, c] of o.buckets) this.counts[i]! += c;
    this.count += o.count;
    this.max = Math.max(this.max, o.max);
    return this;
  }

  /** A histogram from its JSON. */
  static from(json: HistogramJson): Histogram {
    return new Histogram().merge(json);
  }

  /** The `q` quantile (0..1), ms: the upper bound of its bucket (≤ 1 % above the true value), the exact maximum for q = 1; NaN when empty. */
  quantile(q: number): number {
    if (this.count === 0) return Number.NaN;
    if (q >= 1) return this.max;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.max, i === 0 ? MIN_MS : MIN_MS * GROWTH ** i);
    }
    return this.max;
  }
}
