import { describe, expect, it } from 'vitest';
import { replayCopy } from '@tradewind/ingest';
import { checkReplayOrder, parseReplayMsgId } from './ingest-order.js';
import { ingestSuite } from './ingest.js';
import { bucketQuantile, histogramBuckets, metricSum } from './prometheus-text.js';
import { loadBenchReplay } from './ingest-replay.js';

const PASS = ['sigA:0', 'sigA:1', 'sigB:2.0', 'sigB:2.0:COMPLETE'];
/** Message ids of `positions` (loop × pass length + index) of replay run `run`. */
const ids = (positions: number[], run = 'r1') => positions.map((p) => `${PASS[p % PASS.length]}:replay:${run}:${Math.floor(p / PASS.length)}`);

describe('checkReplayOrder', () => {
  it('when the stored ids follow the replay order across loops, then nothing is reordered, duplicated or missing', () => {
    expect(checkReplayOrder(ids([0, 1, 2, 3, 4, 5, 6, 7, 8]), PASS)).toEqual({ checked: 9, runs: 1, reordered: 0, duplicated: 0, gaps: 0, foreign: 0 });
  });

  it('when a sample starts and ends mid-pass, then the positions outside it are not gaps', () => {
    expect(checkReplayOrder(ids([6, 7, 8, 9]), PASS)).toMatchObject({ reordered: 0, gaps: 0 });
  });

  it('when two messages are swapped, then one is reordered and none missing', () => {
    expect(checkReplayOrder(ids([0, 1, 3, 2, 4]), PASS)).toMatchObject({ reordered: 1, duplicated: 0, gaps: 0 });
  });

  it('when a message is stored after the next loop began, then it is reordered', () => {
    expect(checkReplayOrder(ids([0, 1, 2, 4, 5, 3]), PASS)).toMatchObject({ reordered: 1, gaps: 0 });
  });

  it('when messages are missing, then each is a gap', () => {
    expect(checkReplayOrder(ids([0, 1, 4, 6]), PASS)).toMatchObject({ reordered: 0, gaps: 3 });
  });

  it('when a message is stored twice, then it is a duplicate', () => {
    expect(checkReplayOrder(ids([0, 1, 1, 2]), PASS)).toMatchObject({ duplicated: 1, reordered: 0, gaps: 0 });
  });

  it('when two runs are interleaved, then each is checked on its own', () => {
    const a = ids([0, 1, 2], 'a');
    const b = ids([5, 6, 7], 'b');
    expect(checkReplayOrder([a[0]!, b[0]!, a[1]!, b[1]!, a[2]!, b[2]!], PASS)).toMatchObject({ runs: 2, reordered: 0, gaps: 0 });
  });

  it('when an id is not a replayed copy of the pass, then it is foreign', () => {
    expect(checkReplayOrder(['sigA:0', 'sigZ:9:replay:r1:0', ...ids([0])], PASS)).toMatchObject({ foreign: 2, checked: 3 });
  });

  it('when the pass order is empty or repeats an id, then it is refused', () => {
    expect(() => checkReplayOrder([], [])).toThrow(/once/);
    expect(() => checkReplayOrder([], ['x', 'x'])).toThrow(/once/);
  });

  it('when ids are parsed, then COMPLETE suffixes and colons in the message id are kept', () => {
    expect(parseReplayMsgId('5Ed:3.0:COMPLETE:replay:ab12cd34:17')).toEqual({ messageId: '5Ed:3.0:COMPLETE', run: 'ab12cd34', loop: 17 });
    expect(parseReplayMsgId('5Ed:3.0')).toBeUndefined();
  });
});

describe('bench replay', () => {
  it("when ingest's replayCopy marks the pass, then the checker reads its ids back in order", async () => {
    const replay = await loadBenchReplay();
    const n = replay.trades.length;
    const stored = Array.from({ length: 2 * n + 3 }, (_, p) => replayCopy(replay.trades[p % n]!, 'run1', Math.floor(p / n), 0).msgId);
    expect(checkReplayOrder(stored, replay.passOrder)).toMatchObject({ checked: 2 * n + 3, runs: 1, reordered: 0, duplicated: 0, gaps: 0, foreign: 0 });
    [stored[n], stored[n + 1]] = [stored[n + 1]!, stored[n]!];
    expect(checkReplayOrder(stored, replay.passOrder).reordered).toBe(1);
  });
});

describe('metricSum', () => {
  it('when a counter has several label sets, then their values are summed and other metrics ignored', () => {
    const text = [
      '# TYPE tradewind_ingest_trades_published_total counter',
      'tradewind_ingest_trades_published_total{subject="basic.pumpfun"} 10',
      'tradewind_ingest_trades_published_total{subject="basic.bonk"} 5',
      'tradewind_ingest_trades_published_total_other 99',
    ].join('\n');
    expect(metricSum(text, 'tradewind_ingest_trades_published_total')).toBe(15);
    expect(metricSum(text, 'tradewind_ingest_publish_resends_total')).toBeUndefined();
  });
});

describe('ingest bench suite', () => {
  it('when run at R1 for a short span, then ingest and broker rates are positive and the order check saw what ingest stored', async () => {
    const out = await ingestSuite({ seconds: 1, warmupSeconds: 0.5, rounds: 1, cases: ['r1'], orderCheckMessages: 20_000 });
    for (const key of [
      'ingest_r1_trades_per_s',
      'ingest_r1_broker_per_s',
      'ingest_r1_broker_w1_per_s',
      'ingest_r1_ratio',
      'ingest_r1_cpu_pct',
      'ingest_r1_order_checked',
    ])
      expect(out[key], key).toBeGreaterThan(0);
    for (const key of [
      'ingest_r1_reordered',
      'ingest_r1_duplicated',
      'ingest_r1_gaps',
      'ingest_r1_foreign',
      'ingest_r1_broker_reordered',
      'ingest_r1_broker_gaps',
    ])
      expect(out[key], key).toBe(0);
    expect(out.ingest_r1_broker_acked_minus_stored).toBe(0);
  }, 60_000);
});

describe('histogramBuckets / bucketQuantile', () => {
  const text = [
    '# TYPE tradewind_ingest_publish_ack_seconds histogram',
    'tradewind_ingest_publish_ack_seconds_bucket{le="0.001"} 90',
    'tradewind_ingest_publish_ack_seconds_bucket{le="0.01"} 99',
    'tradewind_ingest_publish_ack_seconds_bucket{le="0.1"} 100',
    'tradewind_ingest_publish_ack_seconds_bucket{le="+Inf"} 100',
    'tradewind_ingest_publish_ack_seconds_sum 0.3',
    'tradewind_ingest_publish_ack_seconds_count 100',
    'tradewind_other_bucket{le="0.001"} 5',
  ].join('\n');
  it('when a histogram is read, then its cumulative buckets come sorted and quantiles name the bucket that holds them', () => {
    const b = histogramBuckets(text, 'tradewind_ingest_publish_ack_seconds');
    expect(b.map((x) => x.le)).toEqual([0.001, 0.01, 0.1, Number.POSITIVE_INFINITY]);
    expect(bucketQuantile(b, 0.5)).toBe(0.001);
    expect(bucketQuantile(b, 0.99)).toBe(0.01);
    expect(bucketQuantile(b, 0.999)).toBe(0.1);
    expect(bucketQuantile(histogramBuckets(text, 'absent'), 0.99)).toBeUndefined();
  });
});
