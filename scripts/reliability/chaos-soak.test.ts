/**
 * The soak at test size (scripts/soak/harness.ts; `npm run soak` runs it at full size): Yellowstone
 * stand-in → ingest → TRADES on a 3-node operator-mode cluster (R3) → ws-fanout → 100 WebSocket clients (half
 * filtered) and 10 native subscribers, token-price beside them, for one cycle of a short rate profile with a
 * burst (300 tx/s for 8 s, then 1,500 tx/s for 5 s). In the chaos project: last and one file at a time,
 * so nothing else loads the 2 cores meanwhile.
 *
 * Asserted: every subscriber got exactly what the stored stream owes it (nothing lost, duplicated,
 * reordered or unexpected), the stand-in saw no disconnect and ingest no reconnect, and the latency figures
 * were measured. Their values are printed, not asserted: performance is measured by `npm run soak`.
 * The audit's own negative cases are in scripts/soak/audit.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSoak, type Soak, type SoakResult } from '../soak/harness.js';
import { soakOptions } from '../soak/options.js';
import { intervalLine, summaryText } from '../soak/report.js';

describe('soak (test size)', () => {
  let soak: Soak | undefined;
  // A run that outlives the test's timeout is stopped here, so no server or service is left running.
  afterAll(() => soak?.stop());

  it('when the whole path runs through a burst, then every subscriber gets exactly the stored trades it is owed, nothing disconnects, and latency is measured', async () => {
    const lines: string[] = [];
    soak = createSoak(
      soakOptions('test'),
      (line) => lines.push(line),
      (row) => lines.push(intervalLine(row)),
    );
    let result: SoakResult;
    try {
      result = await soak.run();
    } finally {
      console.info(lines.join('\n'));
    }
    console.info(summaryText(result));

    expect(result.connect.ws.connected).toBe(100);
    expect(result.connect.native.connected).toBe(10);
    expect({ ws: result.integrity.ws, native: result.integrity.native, problems: result.problems }).toEqual({
      ws: { ...result.integrity.ws, lost: 0, duplicated: 0, reordered: 0, unexpected: 0 },
      native: { ...result.integrity.native, lost: 0, duplicated: 0, reordered: 0, unexpected: 0 },
      problems: [],
    });
    expect(result.geyser?.disconnects).toBe(0);
    expect(result.ingest.reconnects).toBe(0);
    expect(result.exited).toEqual([]);
    // The burst was sent and its trades reached subscribers of both kinds.
    expect(result.rows.some((r) => r.burstSeconds > 0)).toBe(true);
    expect(result.stored.trades).toBeGreaterThan(0);
    // Every transaction the stand-in sent reached TRADES, apart from the recording's ones that decode to no trade.
    expect(result.sends.unstored).toBe(0);
    expect(result.stored.withoutSend).toBe(0);
    for (const kind of ['ws', 'native'] as const) {
      expect(result.latency[kind].steady.count, `${kind} steady latency samples`).toBeGreaterThan(0);
      expect(result.latency[kind].burst.count, `${kind} burst latency samples`).toBeGreaterThan(0);
      expect(Number.isFinite(result.latency[kind].all.p99)).toBe(true);
    }
    expect(result.latency.ingest.all.count).toBe(result.stored.trades);
  }, 150_000);
});
