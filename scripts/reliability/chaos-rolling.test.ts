/**
 * The rolling-restart class at 'test' size (issue 31, chaos/rolling.ts): the whole stack behind the load
 * balancer, one NATS node in lame duck mode, the ingest leader, one ws-fanout and one auth replica restarted
 * as a rollout does it, while WebSocket, native and HTTP clients count what they get. Plus negative controls
 * proving each rule of the tally (chaos/rolling-tally.ts) can fail.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fuzzSeed } from './report.js';
import { ROLLING_ROW_PREFIX, runRollingChaos } from './chaos/rolling.js';
import {
  indexTruth,
  lossWitnesses,
  newTallies,
  type RestartWindow,
  tallyHttp,
  tallyIngestRuns,
  tallyNativeReconnects,
  tallyReconnects,
  tallySubscriber,
  type TruthTrade,
  windowAt,
} from './chaos/rolling-tally.js';

// Each NATS node's log and every replica's whole log go to artifacts/ (CI keeps them), so a failing run can be read.
process.env.CHAOS_NATS_LOG_DIR ??= fileURLToPath(new URL('../../artifacts/chaos-nats-logs', import.meta.url));

const WINDOWS: RestartWindow[] = [
  { label: 'NATS node n1', kind: 'nats', startMs: 1_000 },
  { label: 'ws-fanout replica a', kind: 'ws-fanout', startMs: 2_000 },
  { label: 'auth replica a', kind: 'service', startMs: 3_000 },
];
/** Trades 1…12 stored 250 ms apart from t = 900: seqs 1 (t 900) … 12 (t 3650); odd seqs basic.pumpfun, even basic.bonk. */
const TRADES: TruthTrade[] = Array.from({ length: 12 }, (_, i) => ({
  seq: i + 1,
  subject: i % 2 === 0 ? 'basic.pumpfun' : 'basic.bonk',
  storedMs: 900 + i * 250,
  msgId: `sig${i % 4}:0:replay:run1:${Math.floor(i / 4)}`,
}));

describe('rolling restart tally (negative controls)', () => {
  it('when an event happens before, between or after restarts, then it belongs to the restart running then', () => {
    expect([0, 999, 1_000, 2_500, 3_000, 99_999].map((t) => windowAt(WINDOWS, t))).toEqual([0, 0, 0, 1, 2, 2]);
  });

  it('when a subscriber misses, repeats, reorders or gets a foreign trade, then each is counted in the restart it was stored in', () => {
    const truth = indexTruth(TRADES);
    const tallies = newTallies(WINDOWS);
    // pumpfun seqs 3,5,7,9,11 after seq 1: 5 missing (stored at 1900: NATS window), 9 twice and 7 after 11 (stored at
    // 2900 and 2400: ws-fanout window), and bonk seq 4 (stored at 1650) although it holds pumpfun only.
    const seqs = [3, 4, 9, 9, 11, 7];
    tallySubscriber({ id: 'c', seqs, times: seqs.map((_, i) => 4_000 + i) }, new Map([['basic.pumpfun', 1]]), truth, WINDOWS, tallies);
    expect(tallies.map((t) => [t.lost, t.duplicated, t.crashed])).toEqual([
      [1, 0, 1],
      [0, 2, 0],
      [0, 0, 0],
    ]);
    // Everything received once, in order: nothing counted; the recovery is the longest arrival − store time.
    const clean = newTallies(WINDOWS);
    tallySubscriber({ id: 'ok', seqs: [3, 5, 7, 9, 11], times: [2_400, 2_450, 2_500, 2_910, 3_500] }, new Map([['basic.pumpfun', 1]]), truth, WINDOWS, clean);
    expect(clean.map((t) => [t.lost, t.duplicated, t.crashed])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(clean.map((t) => t.recoveryMs)).toEqual([1_000, 100, 100]);
    expect(clean[0]!.recoveryBy).toMatch(/ok \(basic\.pumpfun seq 3\)/);
  });

  it('when a WebSocket client reconnects twice or with another code during a ws-fanout restart, or at all during another restart, then it counts as crashed', () => {
    const tallies = newTallies(WINDOWS);
    tallyReconnects(
      { id: 'once', closes: [{ at: 2_100, code: 1001, reason: 'server shutting down' }], attempts: [{ at: 2_101, outcome: 'ok' }], problems: [] },
      WINDOWS,
      tallies,
    );
    expect(tallies.map((t) => t.crashed)).toEqual([0, 0, 0]);
    tallyReconnects(
      {
        id: 'twice',
        closes: [{ at: 2_100, code: 1001, reason: '' }],
        attempts: [
          { at: 2_101, outcome: 'connection_limit' },
          { at: 2_300, outcome: 'ok' },
        ],
        problems: [],
      },
      WINDOWS,
      tallies,
    );
    tallyReconnects(
      { id: 'abnormal', closes: [{ at: 2_100, code: 1006, reason: '' }], attempts: [{ at: 2_101, outcome: 'ok' }], problems: [] },
      WINDOWS,
      tallies,
    );
    tallyReconnects({ id: 'nats', closes: [{ at: 1_100, code: 1001, reason: '' }], attempts: [{ at: 1_101, outcome: 'ok' }], problems: [] }, WINDOWS, tallies);
    tallyReconnects({ id: 'protocol', closes: [], attempts: [], problems: [{ at: 3_500, what: 'resume_too_old' }] }, WINDOWS, tallies);
    expect(tallies.map((t) => t.crashed)).toEqual([1, 2, 1]);
    expect(tallies[1]!.notes.join(' ')).toMatch(/twice: 1 close\(s\).*2 reconnect attempt\(s\) \(connection_limit, ok\)/);
  });

  it('when an HTTP request gets a 5xx, no answer or another unexpected status, then it counts as crashed', () => {
    const tallies = newTallies(WINDOWS);
    const base = { service: 'auth', route: 'GET /auth/login', durationMs: 20, detail: '' };
    tallyHttp(
      [
        { ...base, at: 1_100, status: 302, expected: true },
        { ...base, at: 2_100, status: 503, expected: false },
        { ...base, at: 3_100, status: 'no answer', expected: false, durationMs: 10_000 },
        { ...base, at: 3_200, status: 401, expected: false },
      ],
      WINDOWS,
      tallies,
    );
    expect(tallies.map((t) => t.crashed)).toEqual([0, 1, 2]);
    expect(tallies[2]!.recoveryMs).toBe(10_000);
  });

  it('when a native subscriber loses its server outside a NATS restart, then it counts as crashed', () => {
    const tallies = newTallies(WINDOWS);
    tallyNativeReconnects('n', [1_500, 2_500], WINDOWS, tallies);
    expect(tallies.map((t) => t.crashed)).toEqual([0, 1, 0]);
  });

  it('when an ingest run leaves a hole or stores an id twice, then it is lost or duplicated', () => {
    const passOrder = ['sig0:0', 'sig1:0', 'sig2:0', 'sig3:0'];
    const tallies = newTallies(WINDOWS);
    expect(tallyIngestRuns(TRADES, passOrder, WINDOWS, tallies)).toEqual({ runs: 1, unrecognised: 0 });
    expect(tallies.map((t) => [t.lost, t.duplicated])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    // Without seq 6 (loop 1, trade sig1: a hole, attributed to the next stored trade, seq 7 at 2400: ws-fanout
    // window) and with seq 10's id stored again at 3900 (auth window).
    const broken = [...TRADES.filter((t) => t.seq !== 6), { ...TRADES[9]!, seq: 13, storedMs: 3_900 }];
    const again = newTallies(WINDOWS);
    tallyIngestRuns(broken, passOrder, WINDOWS, again);
    expect(again.map((t) => [t.lost, t.duplicated])).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
  });
});

describe('where a loss went missing (negative controls)', () => {
  it('when one subscriber lost trades, then the note says how many others of each kind holding the subject received them all', () => {
    const truth = indexTruth(TRADES);
    const pumpfun = [1, 3, 5, 7, 9, 11];
    const from = (subject: string) => new Map([[subject, 0]]);
    const lines = lossWitnesses(
      [
        { id: 'ws-a', kind: 'WebSocket', seqs: [1, 3, 9, 11], times: [], after: from('basic.pumpfun') },
        { id: 'ws-b', kind: 'WebSocket', seqs: pumpfun, times: [], after: from('basic.pumpfun') },
        { id: 'ws-c', kind: 'WebSocket', seqs: [1, 3, 5, 9, 11], times: [], after: from('basic.pumpfun') },
        { id: 'ws-bonk', kind: 'WebSocket', seqs: [2, 4, 6, 8, 10, 12], times: [], after: from('basic.bonk') },
        { id: 'nat', kind: 'native', seqs: TRADES.map((t) => t.seq), times: [], after: new Map([...truth.bySubject.keys()].map((s) => [s, 0])) },
      ],
      truth,
    );
    expect(lines.map((l) => l.firstSeq)).toEqual([5, 7]);
    expect(lines.map((l) => l.text)).toEqual([
      'ws-a lost 2 basic.pumpfun trade(s), seq 5…7; received all of them: 1 of 2 other WebSocket, 1 of 1 other native',
      'ws-c lost 1 basic.pumpfun trade(s), seq 7…7; received all of them: 1 of 2 other WebSocket, 1 of 1 other native',
    ]);
  });
});

describe('rolling restart (test size)', () => {
  it('when a NATS node, the ingest leader, a ws-fanout and an auth replica restart as a rollout does, then no trade is lost or duplicated, WebSocket clients reconnect at most once, and every HTTP request is answered', async () => {
    const rows = await runRollingChaos('test', fuzzSeed(24));
    console.info(
      rows
        .map((r) => `${r.name}: tried ${r.tried}, lost ${r.lost}, duplicated ${r.duplicated}, crashed ${r.crashed}, recovery ${r.recoveryMs} ms — ${r.notes}`)
        .join('\n'),
    );
    expect(rows.map((r) => r.name.slice(ROLLING_ROW_PREFIX.length).split(' ').slice(0, 2).join(' '))).toEqual([
      expect.stringMatching(/^NATS node$/),
      'ingest replica',
      'ws-fanout replica',
      'auth replica',
    ]);
    for (const row of rows) {
      expect(row.tried, row.name).toBe(1);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toEqual({
        name: row.name,
        lost: 0,
        duplicated: 0,
        crashed: 0,
        notes: row.notes,
      });
      expect(row.recoveryMs, row.name).not.toBeNull();
    }
    // The ws-fanout restart did move WebSocket clients (else the reconnect rule was never exercised).
    expect(rows[2]!.notes).toMatch(/[1-9]\d* of \d+ WebSocket clients closed and reconnected/);
  }, 300_000);
});
