/** The soak's memory rule and verdict (rules.ts). */
import { describe, expect, it } from 'vitest';
import { memoryFindings, verdictReasons, warmupMs, type VerdictInput } from './rules.js';

const MIB = 2 ** 20;
const CLEAN: VerdictInput = {
  lost: 0,
  duplicated: 0,
  reordered: 0,
  unexpected: 0,
  geyserDisconnects: 0,
  ingestReconnects: 0,
  memory: [],
  exited: [],
  unconnected: 0,
  unstoredTransactions: 0,
};

describe('soak memory rule', () => {
  it('when the run is 30 minutes, then the baseline is minute 5', () => {
    expect(warmupMs(30 * 60_000, 90_000)).toBe(5 * 60_000);
  });

  it('when the run is short, then the baseline is a sixth of it but at least one rate cycle, and none when that reaches the end', () => {
    expect(warmupMs(12 * 60_000, 90_000)).toBe(2 * 60_000);
    expect(warmupMs(3 * 60_000, 90_000)).toBe(90_000);
    expect(warmupMs(30_000, 30_000)).toBeNull();
  });

  it('when a process ends more than 10 % above its warm-up RSS, then it fails, and at 10 % it passes', () => {
    const [grew, flat] = memoryFindings([
      { process: 'ingest', warmupBytes: 100 * MIB, endBytes: 110.5 * MIB },
      { process: 'token-price', warmupBytes: 100 * MIB, endBytes: 110 * MIB },
    ]);
    expect(grew).toMatchObject({ failed: true });
    expect(grew!.growth).toBeCloseTo(0.105);
    expect(flat).toMatchObject({ failed: false });
  });

  it('when a process was sampled at warm-up and is gone at the end, then it fails', () => {
    expect(memoryFindings([{ process: 'ws-fanout worker 2', warmupBytes: 80 * MIB, endBytes: null }])[0]).toMatchObject({ failed: true, growth: null });
  });
});

describe('soak verdict', () => {
  it('when nothing was lost, duplicated, reordered or unexpected and nothing disconnected, grew or died, then there is no reason to fail', () => {
    expect(verdictReasons(CLEAN)).toEqual([]);
  });

  it('when any integrity count, a transaction that never reached TRADES, a disconnect, a reconnect, memory growth or a dead process is seen, then each is a reason to fail', () => {
    const reasons = verdictReasons({
      ...CLEAN,
      lost: 1,
      duplicated: 2,
      reordered: 3,
      unexpected: 4,
      geyserDisconnects: 1,
      ingestReconnects: 2,
      memory: memoryFindings([{ process: 'ingest', warmupBytes: 100 * MIB, endBytes: 200 * MIB }]),
      exited: ['token-price'],
      unstoredTransactions: 3,
    });
    expect(reasons).toHaveLength(9);
    expect(reasons.join('\n')).toMatch(/1 trade\(s\) lost[\s\S]*ingest RSS grew 100\.0 %[\s\S]*token-price exited/);
  });

  it("when ingest's reconnect counter could not be read, then the run cannot pass", () => {
    expect(verdictReasons({ ...CLEAN, ingestReconnects: null })).toHaveLength(1);
  });
});
