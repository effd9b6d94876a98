/**
 * Latency histogram of the soak: the bench's (scripts/bench/fanout-message.ts, log buckets of 1 % width,
 * mergeable across processes, exact maximum) over 10 µs to one hour, since a backlog of minutes must still
 * show its quantiles, unlike the bench's 60 s range.
 */
import { LatencyHistogram, type LatencyHistogramJson, type LatencyRange } from '../bench/fanout-message.js';

/** The soak's range: 10 µs to one hour. */
const SOAK_LATENCY_RANGE: LatencyRange = { minMs: 0.01, maxMs: 3_600_000 };

/** A histogram as sent between processes: non-empty buckets as `[index, count]`. */
export type HistogramJson = LatencyHistogramJson;

export class Histogram extends LatencyHistogram {
  constructor() {
    super(SOAK_LATENCY_RANGE);
  }

  /** Adds another soak histogram's counts. */
  override merge(other: HistogramJson | Histogram): this {
    super.merge(other instanceof LatencyHistogram ? other.toJSON() : other);
    return this;
  }

  /** A histogram from its JSON. */
  static from(json: HistogramJson): Histogram {
    return new Histogram().merge(json);
  }
}
