import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatReliabilityTable, fuzzSeed, reliabilityExitCode, reliabilityScale, writeReliabilityReport, type ReliabilityRow } from './report.js';

const ok: ReliabilityRow = { name: 'WebSocket: binary frames', tried: 500, lost: 0, duplicated: 0, crashed: 0, recoveryMs: null, notes: 'seed 24' };
const dir = mkdtempSync(join(tmpdir(), 'reliability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the reliability report', () => {
  it('when every class is clean, then the exit status is 0; one lost, duplicated or crashed item anywhere makes it 1', () => {
    expect(reliabilityExitCode([ok])).toBe(0);
    for (const bad of [{ lost: 1 }, { duplicated: 1 }, { crashed: 1 }]) expect(reliabilityExitCode([ok, { ...ok, ...bad }])).toBe(1);
  });

  it('when rows are tabled, then each is one Markdown row (pipes escaped) and the totals row sums counts and keeps the worst recovery', () => {
    const table = formatReliabilityTable([
      ok,
      { name: 'Redis | restart', tried: 3, lost: 0, duplicated: 0, crashed: 0, recoveryMs: 1234.4 },
      { ...ok, name: 'x', recoveryMs: 99 },
    ]);
    const lines = table.trim().split('\n');
    expect(lines).toHaveLength(2 + 3 + 1);
    expect(lines[3]).toBe('| Redis \\| restart | 3 | 0 | 0 | 0 | 1234 |  |');
    expect(lines.at(-1)).toBe('| **all** | **1003** | **0** | **0** | **0** | **1234** | |');
  });

  it('when a report is written, then the table with its date is in <kind>.md and the rows in <kind>.json, and the status follows the rows', () => {
    const code = writeReliabilityReport('fuzz', [{ ...ok, crashed: 2 }], { dir, scale: 'test', now: new Date('2026-11-26T00:00:00Z') });
    expect(code).toBe(1);
    expect(readFileSync(join(dir, 'fuzz.md'), 'utf8')).toMatch(/^fuzz \(test size\), 2026-11-26, .*Node v\d+/);
    expect(JSON.parse(readFileSync(join(dir, 'fuzz.json'), 'utf8')).rows[0].crashed).toBe(2);
  });

  it('when the scale or seed variables are wrong, then they are refused by name', () => {
    expect(reliabilityScale({})).toBe('test');
    expect(reliabilityScale({ RELIABILITY_SCALE: 'full' })).toBe('full');
    expect(() => reliabilityScale({ RELIABILITY_SCALE: 'huge' })).toThrow(/RELIABILITY_SCALE/);
    expect(fuzzSeed(24, {})).toBe(24);
    expect(fuzzSeed(24, { FUZZ_SEED: '7' })).toBe(7);
    expect(() => fuzzSeed(24, { FUZZ_SEED: 'seven' })).toThrow(/FUZZ_SEED/);
  });
});
