import { describe, expect, it } from 'vitest';
import { NATIVE_SOL } from '@tradewind/contracts';
import { BUNDLED_RECORDING_DIR } from './config.js';
import { subjectOf, type TradeMessage } from './decode/index.js';
import { WSOL_MINT } from './decode/program.js';
import { mintSubjectsOf } from './mint-subjects.js';
import { loadRecording } from './replay/recording.js';

const A = '5dNYcC6W7fV8gEoP98pLYcuqTrU9K2ZW6dQjDyTzpump';
const B = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const common = { transaction_type: 'BUY', signature: 's', slot: 1, commitment: 'confirmed', block_time_ms: null, instruction_path: [0], program_id: 'p' };
const msg = (fields: Record<string, unknown>) => ({ ...common, ...fields }) as unknown as TradeMessage;

describe('per-mint subjects of a trade', () => {
  it('when a pump.fun trade is SOL-quoted (no quote_mint, native SOL or WSOL), then only its mint has a subject', () => {
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: A }))).toEqual([`basic.pumpfun.mint.${A}`]);
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: A, quote_mint: NATIVE_SOL }))).toEqual([`basic.pumpfun.mint.${A}`]);
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: A, quote_mint: WSOL_MINT }))).toEqual([`basic.pumpfun.mint.${A}`]);
  });

  it('when a curve or pool is quoted in another token, then the quote mint has a subject too (as the WebSocket mints filter matches it)', () => {
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: A, quote_mint: B }))).toEqual([`basic.pumpfun.mint.${A}`, `basic.pumpfun.mint.${B}`]);
    expect(mintSubjectsOf('basic.bonk', msg({ source: 'bonk', base_mint: A, quote_mint: B }))).toEqual([`basic.bonk.mint.${A}`, `basic.bonk.mint.${B}`]);
    expect(mintSubjectsOf('premium.pumpswap', msg({ source: 'pumpswap', base_mint: A, quote_mint: B, mint: A, lp_mint: B }))).toEqual([
      `premium.pumpswap.mint.${A}`,
      `premium.pumpswap.mint.${B}`,
    ]);
  });

  it('when a WSOL-quoted pool trades, then WSOL has no subject and lp_mint none either', () => {
    expect(mintSubjectsOf('basic.bonk', msg({ source: 'bonk', base_mint: A, quote_mint: WSOL_MINT }))).toEqual([`basic.bonk.mint.${A}`]);
    expect(mintSubjectsOf('premium.pumpswap', msg({ source: 'pumpswap', base_mint: A, quote_mint: WSOL_MINT, mint: A, lp_mint: B }))).toEqual([
      `premium.pumpswap.mint.${A}`,
    ]);
  });

  it('when a Raydium CPMM message is a swap, a pool creation or a liquidity change, then the two mints of its type are used, WSOL skipped', () => {
    expect(
      mintSubjectsOf('premium.raydium', msg({ source: 'raydium_cpmm', transaction_type: 'SWAP', input_mint: WSOL_MINT, output_mint: A, mint: A })),
    ).toEqual([`premium.raydium.mint.${A}`]);
    expect(mintSubjectsOf('premium.raydium', msg({ source: 'raydium_cpmm', transaction_type: 'SWAP', input_mint: A, output_mint: B }))).toEqual([
      `premium.raydium.mint.${A}`,
      `premium.raydium.mint.${B}`,
    ]);
    expect(
      mintSubjectsOf('premium.raydium', msg({ source: 'raydium_cpmm', transaction_type: 'CREATE_POOL', token_0_mint: WSOL_MINT, token_1_mint: B, lp_mint: A })),
    ).toEqual([`premium.raydium.mint.${B}`]);
    expect(mintSubjectsOf('premium.raydium', msg({ source: 'raydium_cpmm', transaction_type: 'DEPOSIT', vault_0_mint: A, vault_1_mint: B }))).toEqual([
      `premium.raydium.mint.${A}`,
      `premium.raydium.mint.${B}`,
    ]);
  });

  it('when a trade has no mint field, or one that is not a base58 address, then it has no mint subject and nothing is thrown', () => {
    expect(mintSubjectsOf('premium.raydium', msg({ source: 'raydium_cpmm', transaction_type: 'SWAP', pool_state: A }))).toEqual([]);
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: `${A}.x` }))).toEqual([]);
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: '>' }))).toEqual([]);
    expect(mintSubjectsOf('basic.pumpfun', msg({ source: 'pumpfun', mint: 42 }))).toEqual([]);
  });

  it('when the bundled recording is decoded, then every trade has one or two mint subjects, none of them WSOL', async () => {
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const counts: number[] = [];
    for (const tx of transactions) {
      for (const trade of tx.trades) {
        const subjects = mintSubjectsOf(subjectOf(trade), trade);
        counts.push(subjects.length);
        for (const s of subjects) expect(s).toMatch(new RegExp(`^${subjectOf(trade).replace('.', '\\.')}\\.mint\\.[1-9A-HJ-NP-Za-km-z]{32,44}$`));
        expect(subjects.join()).not.toContain(WSOL_MINT);
      }
    }
    expect(counts.length).toBeGreaterThanOrEqual(20);
    expect(Math.min(...counts)).toBe(1);
    expect(Math.max(...counts)).toBe(2);
  });
});
