/**
 * The soak's per-subscriber sequence audit (audit.ts) with an expectation built from stored trades through
 * a filter (filters.ts), as the soak builds it from the TRADES stream.
 */
import { describe, expect, it } from 'vitest';
import type { TradeSubject } from '@tradewind/contracts';
import { ExpectedSeqs, SeqAudit } from './audit.js';
import { matchesSoakFilter, perMintSubjectMints, type SoakFilter, type TradeJson } from './filters.js';

const MINT_A = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';
const MINT_B = 'HfJVjBdkhAD2ynVM8PdTSii4ECZdsxNTCx5wpEqUpump';

/** A small stored stream: seq → subject and trade (only the fields the filters read). */
const STORED: Array<{ seq: number; subject: TradeSubject; trade: TradeJson }> = [
  { seq: 1, subject: 'basic.pumpfun', trade: { transaction_type: 'CREATE', mint: MINT_A, quote_mint: '11111111111111111111111111111111' } },
  { seq: 2, subject: 'basic.pumpfun', trade: { transaction_type: 'BUY', mint: MINT_A, sol_amount: '1500000000' } },
  { seq: 3, subject: 'premium.pumpswap', trade: { transaction_type: 'BUY', base_mint: MINT_B, quote_mint: 'So11111111111111111111111111111111111111112' } },
  { seq: 4, subject: 'basic.pumpfun', trade: { transaction_type: 'SELL', mint: MINT_B, sol_amount: '400000000' } },
  { seq: 5, subject: 'basic.pumpfun', trade: { transaction_type: 'BUY', mint: MINT_B, sol_amount: '2000000000' } },
  { seq: 6, subject: 'basic.pumpfun', trade: { transaction_type: 'BUY', mint: MINT_A, sol_amount: '999999999' } },
  { seq: 7, subject: 'basic.pumpfun', trade: { transaction_type: 'BUY', mint: MINT_A, sol_amount: '1000000000' } },
];

/** The expectation of a filtered basic.pumpfun subscription, read from STORED up to `upTo`. */
function expectation(filter: SoakFilter, upTo = STORED.length): ExpectedSeqs {
  const list = new ExpectedSeqs();
  for (const s of STORED.slice(0, upTo)) if (s.subject === 'basic.pumpfun' && matchesSoakFilter(s.subject, filter, s.trade)) list.push(s.seq);
  list.advance(upTo);
  return list;
}

/** Feeds `received` to a fresh audit starting at `start` and returns its final counts. */
function audit(list: ExpectedSeqs, received: number[], start = 0) {
  const a = new SeqAudit(list, start);
  for (const seq of received) a.receive(seq);
  return a.finish();
}

describe('soak sequence audit', () => {
  it('when a filtered subscriber receives exactly the stored trades its filter passes, in order, then nothing is lost, duplicated, reordered or unexpected', () => {
    // BUY with ≥ 1 SOL: seqs 2, 5, 7 (6 is one lamport short, 4 is a SELL, 3 another subject).
    const list = expectation({ types: ['BUY'], min_sol: 1 });
    expect(audit(list, [2, 5, 7])).toEqual({ delivered: 3, lost: 0, duplicated: 0, reordered: 0, unexpected: 0 });
  });

  it('when a filtered subscriber misses one owed trade, then it is counted lost, whether in a gap or at the end', () => {
    const list = expectation({ types: ['BUY'], min_sol: 1 });
    expect(audit(list, [2, 7]).lost).toBe(1);
    expect(audit(list, [2, 5]).lost).toBe(1);
  });

  it('when a trade arrives twice, then it is one duplicate', () => {
    const list = expectation({ mints: [MINT_A] });
    expect(audit(list, [1, 2, 2, 6, 7])).toMatchObject({ delivered: 4, duplicated: 1, lost: 0 });
  });

  it('when two owed trades arrive swapped, then one is reordered and none is lost', () => {
    const list = expectation({ mints: [MINT_A] });
    expect(audit(list, [1, 6, 2, 7])).toMatchObject({ delivered: 4, reordered: 1, lost: 0, duplicated: 0 });
  });

  it('when a subscriber receives a stored trade its filter does not pass, then it is unexpected', () => {
    const list = expectation({ types: ['BUY'], min_sol: 1 });
    // 6 is 999,999,999 lamports: below min_sol 1 by one lamport.
    expect(audit(list, [2, 5, 6, 7])).toMatchObject({ unexpected: 1, lost: 0 });
    // 3 is stored on another subject.
    expect(audit(list, [2, 3, 5, 7])).toMatchObject({ unexpected: 1, lost: 0 });
  });

  it('when the subscription started after some stored trades, then only the later ones are owed and an earlier one is unexpected', () => {
    const list = expectation({ mints: [MINT_A] });
    expect(audit(list, [6, 7], 5)).toMatchObject({ delivered: 2, lost: 0 });
    expect(audit(list, [2, 6, 7], 5)).toMatchObject({ unexpected: 1 });
  });

  it('when a receipt is judged before the expectation reached it, then the audit refuses it', () => {
    const list = expectation({ mints: [MINT_A] }, 3);
    const a = new SeqAudit(list, 0);
    expect(() => a.receive(6)).toThrow(/watermark/);
  });

  it('when the subscriber is behind, then what it still owes is pending, and lost only when it finishes', () => {
    const list = expectation({ mints: [MINT_A] });
    const a = new SeqAudit(list, 0);
    a.receive(1);
    a.receive(2);
    expect(a.pending()).toBe(2);
    expect(a.snapshot().lost).toBe(0);
    expect(a.finish().lost).toBe(2);
  });

  it('when the consumed prefix of the expectation is dropped, then later receipts are judged the same and a repeat of a dropped one is a duplicate', () => {
    const list = expectation({ mints: [MINT_A] });
    const a = new SeqAudit(list, 0);
    a.receive(1);
    a.receive(2);
    list.dropBefore(a.lowestNeeded);
    expect(list.start).toBe(2);
    expect(a.receive(1)).toBe('duplicate');
    expect(a.receive(6)).toBe('ok');
    expect(a.receive(7)).toBe('ok');
    expect(a.finish()).toMatchObject({ delivered: 4, duplicated: 1, lost: 0 });
  });

  it('when a native subscriber follows one per-mint subject, then it owes the trades touching that mint and not the WSOL side', () => {
    const owed = STORED.filter((s) => perMintSubjectMints(s.subject, s.trade).includes(MINT_B)).map((s) => s.seq);
    expect(owed).toEqual([3, 4, 5]);
    expect(STORED.some((s) => perMintSubjectMints(s.subject, s.trade).includes('So11111111111111111111111111111111111111112'))).toBe(false);
  });
});
