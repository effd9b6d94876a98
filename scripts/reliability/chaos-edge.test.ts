/**
 * The edge fault-injection run at 'test' size (issue 24): ws-fanout killed with SIGKILL, Redis and
 * PostgreSQL stopped and restarted, each on private servers (chaos/edge.ts). Plus negative controls
 * proving each detector can fail: the sequence tally, the Redis-outage login check and the
 * PostgreSQL-outage answer check.
 */
import { describe, expect, it } from 'vitest';
import { fuzzSeed } from './report.js';
import { outageLoginProblem, runEdgeChaos } from './chaos/edge.js';
import { tallySeqs } from './chaos/edge-ws.js';
import { outageAnswerProblem } from './chaos/postgres-chaos.js';

describe('edge chaos detectors (negative controls)', () => {
  it('when a subscriber missed, repeated and reordered sequences, then the tally counts each', () => {
    const t = tallySeqs([11, 12, 12, 14, 13, 16, 99], 10, 16);
    expect(t).toMatchObject({ lost: 1, duplicated: 1, reordered: 1, lostSample: [15] });
    expect(tallySeqs([11, 12, 13], 10, 13)).toMatchObject({ lost: 0, duplicated: 0, reordered: 0 });
    // A subscriber that got nothing lost the whole range.
    expect(tallySeqs([], 0, 5).lost).toBe(5);
  });

  it('when a login is admitted, hangs or gets another error during a Redis outage, then it counts as a failure', () => {
    expect(outageLoginProblem({ type: 'authenticated', plan: 'starter' }, 10, 0)).toMatch(/admitted/);
    expect(outageLoginProblem({ type: 'error', code: 'internal' }, 10, 1011)).toMatch(/instead of unavailable/);
    expect(outageLoginProblem({ type: 'failed', message: 'no control message within 5000 ms' }, 5000, 0)).toMatch(/instead of unavailable/);
    expect(outageLoginProblem({ type: 'error', code: 'unavailable' }, 4000, 4503)).toMatch(/took/);
    expect(outageLoginProblem({ type: 'error', code: 'unavailable' }, 10, 1006)).toMatch(/4503/);
    expect(outageLoginProblem({ type: 'error', code: 'unavailable', message: 'x' }, 10, 4503)).toBeUndefined();
  });

  it('when auth or billing answers 500 or hangs during a PostgreSQL outage, then it counts as a failure', () => {
    expect(outageAnswerProblem({ status: 500, body: { status: 500, code: 'internal', message: 'internal error' } })).toMatch(/500/);
    expect(outageAnswerProblem({ status: 'hung', body: {} })).toMatch(/hung/);
    expect(outageAnswerProblem({ status: 503, body: { text: 'Service Unavailable' } })).toBeDefined();
    expect(
      outageAnswerProblem({ status: 503, body: { status: 503, code: 'unavailable', message: 'the database is unavailable right now; try again shortly' } }),
    ).toBeUndefined();
  });
});

describe('edge chaos run (test size)', () => {
  it('when ws-fanout is killed and Redis and PostgreSQL restart, then nothing is lost, duplicated or crashed and every fault was injected', async () => {
    const seed = fuzzSeed(24);
    const rows = await runEdgeChaos('test', seed);
    console.info(
      rows
        .map((r) => `${r.name}: tried ${r.tried}, lost ${r.lost}, duplicated ${r.duplicated}, crashed ${r.crashed}, recovery ${r.recoveryMs} ms — ${r.notes}`)
        .join('\n'),
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.tried, row.name).toBeGreaterThan(0);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toEqual({
        name: row.name,
        lost: 0,
        duplicated: 0,
        crashed: 0,
        notes: row.notes,
      });
      expect(row.recoveryMs, row.name).not.toBeNull();
    }
  }, 120_000);
});
