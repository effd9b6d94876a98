import { describe, expect, it } from 'vitest';
import { interleavedRates, rateCase } from './decode-rate.js';

/** A fake clock: each item processed advances it by its case's cost. */
function fakeClock() {
  let t = 0;
  const order: string[] = [];
  return {
    now: () => t,
    work: (name: string, ms: number) => () => {
      order.push(name);
      t += ms;
    },
    order,
  };
}

describe('interleaved rates', () => {
  it('when two cases cost 1 ms and 4 ms per item, then their rates are 1,000/s and 250/s', () => {
    const c = fakeClock();
    const rates = interleavedRates(
      { cheap: rateCase([1, 2], c.work('cheap', 1)), dear: rateCase([1], c.work('dear', 4)) },
      { seconds: 1, warmupSeconds: 0.1, sliceMs: 10, now: c.now },
    );
    expect(rates).toEqual({ cheap: 1000, dear: 250 });
  });

  it('when measured, then the cases take turns in slices rather than one after the other', () => {
    const c = fakeClock();
    interleavedRates({ a: rateCase([0], c.work('a', 5)), b: rateCase([0], c.work('b', 5)) }, { seconds: 0.1, warmupSeconds: 0, sliceMs: 10, now: c.now });
    // 100 ms per case in 10 ms slices of 2 items: a a b b a a b b ...
    expect(c.order.slice(0, 8)).toEqual(['a', 'a', 'b', 'b', 'a', 'a', 'b', 'b']);
    expect(c.order.filter((x) => x === 'a')).toHaveLength(20);
    expect(c.order.filter((x) => x === 'b')).toHaveLength(20);
  });

  it('when a case has no items, then it is refused', () => {
    expect(() => rateCase([], () => {})).toThrow('rateCase: no items');
  });
});
