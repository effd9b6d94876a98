/**
 * The stream-leader kill seen from WebSocket subscribers, at 'test' size (issue 24 fault 1 end to
 * end, chaos/edge-cluster.ts): a 3-node operator-mode JetStream cluster, two ws-fanout processes,
 * the TRADES leader SIGKILLed while trades flow. The sequence tally it uses has its negative
 * controls in chaos-edge.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fuzzSeed } from './report.js';
import { CLUSTER_EDGE_FAULT, runClusterEdgeChaos } from './chaos/edge-cluster.js';

describe('stream leader killed under ws-fanout (test size)', () => {
  it('when the TRADES leader is SIGKILLed, then every WebSocket subscriber keeps its connection and gets every stored trade once, in order', async () => {
    const row = await runClusterEdgeChaos('test', fuzzSeed(24));
    console.info(
      `${row.name}: tried ${row.tried}, lost ${row.lost}, duplicated ${row.duplicated}, crashed ${row.crashed}, recovery ${row.recoveryMs} ms — ${row.notes}`,
    );
    expect(row.name).toBe(CLUSTER_EDGE_FAULT);
    expect(row.tried).toBe(1);
    expect({ lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toEqual({
      lost: 0,
      duplicated: 0,
      crashed: 0,
      notes: row.notes,
    });
    expect(row.recoveryMs).not.toBeNull();
  }, 150_000);
});
