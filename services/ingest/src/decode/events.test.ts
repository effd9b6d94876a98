import { describe, expect, it } from 'vitest';
import { collectLogEvents, collectLogEventsForPrograms } from './events.js';
import type { NormalizedInstruction, NormalizedTransaction } from './transaction.js';

const PUMP = '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P';
const PUMP_AMM = 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA';
const SYSTEM = '11111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const COMPUTE = 'ComputeBudget111111111111111111111111111111';

function ix(programId: string, path: number[], stackHeight: number): NormalizedInstruction {
  return { programId, accounts: [], data: new Uint8Array(8), path, stackHeight };
}

function txOf(instructions: NormalizedTransaction['instructions'], logs: string[]): NormalizedTransaction {
  return {
    signature: 'sig',
    slot: 1,
    commitment: 'confirmed',
    blockTimeMs: null,
    accountKeys: [],
    instructions,
    logs,
    err: null,
    fee: 5000,
    preBalances: [],
    postBalances: [],
    preTokenBalances: [],
    postTokenBalances: [],
  };
}

const data = (bytes: number[]): string => `Program data: ${Buffer.from(bytes).toString('base64')}`;

/**
 * compute budget; pump.fun buy (CPI to token, an event, an emit_cpi-style self CPI); then a
 * transfer and a pump.fun-free instruction after it whose own `Program data:` lines belong to
 * other programs.
 */
const instructions: NormalizedTransaction['instructions'] = [
  { outer: ix(COMPUTE, [0], 1), inner: [] },
  { outer: ix(PUMP, [1], 1), inner: [ix(TOKEN, [1, 0], 2), ix(PUMP, [1, 1], 2)] },
  { outer: ix(SYSTEM, [2], 1), inner: [] },
  { outer: ix(PUMP_AMM, [3], 1), inner: [] },
];
const logs = [
  `Program ${COMPUTE} invoke [1]`,
  `Program ${COMPUTE} success`,
  `Program ${PUMP} invoke [1]`,
  'Program log: Instruction: Buy',
  `Program ${TOKEN} invoke [2]`,
  `Program ${TOKEN} consumed 4645 of 190000 compute units`,
  `Program ${TOKEN} success`,
  data([1, 2, 3]),
  `Program ${PUMP} invoke [2]`,
  `Program ${PUMP} consumed 2003 of 180000 compute units`,
  `Program ${PUMP} success`,
  data([4, 5]),
  `Program ${PUMP} consumed 40000 of 200000 compute units`,
  `Program ${PUMP} success`,
  `Program ${SYSTEM} invoke [1]`,
  `Program ${SYSTEM} success`,
  `Program ${PUMP_AMM} invoke [1]`,
  data([9, 9]),
  `Program ${PUMP_AMM} success`,
];

describe('collectLogEvents (log replay)', () => {
  it("when the last wanted instruction is in the middle, then its events are collected and later programs' data lines are not", () => {
    const log = collectLogEvents(txOf(instructions, logs), PUMP);
    expect([...log.keys()]).toEqual([1]);
    expect(log.get(1)!.map((e) => [...e.bytes])).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('when a later instruction is wanted too, then the replay reaches it', () => {
    const log = collectLogEventsForPrograms(txOf(instructions, logs), new Set([PUMP, PUMP_AMM]));
    expect([...log.keys()]).toEqual([1, 5]);
    expect(log.get(5)!.map((e) => [...e.bytes])).toEqual([[9, 9]]);
  });

  it('when no instruction of the program is in the transaction, then nothing is collected', () => {
    expect(collectLogEvents(txOf(instructions.slice(0, 1), logs.slice(0, 2)), PUMP).size).toBe(0);
  });

  it('when an invoke line names another program than the instruction list, then attribution stops there', () => {
    const bad = logs.map((l) => (l === `Program ${PUMP} invoke [2]` ? `Program ${SYSTEM} invoke [2]` : l));
    const log = collectLogEvents(txOf(instructions, bad), PUMP);
    expect(log.get(1)!.map((e) => [...e.bytes])).toEqual([[1, 2, 3]]);
  });
});
