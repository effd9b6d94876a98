import { describe, expect, it } from 'vitest';
import { SlotWatch, slotMessageFacts, tradeSlot } from './slot-watch.js';

const msg = (slot: number, status: 'processed' | 'confirmed' | 'finalized' | 'dead', trades: Record<string, number> = { 'basic.pumpfun': 1 }) => ({
  slot,
  status,
  trades,
});

describe('SlotWatch', () => {
  it('when a trade of a slot was sent, then its confirmed, finalized and dead statuses are admitted and processed is not', () => {
    const w = new SlotWatch('basic.pumpfun', null);
    w.noteTrade(10);
    expect(w.admit(msg(10, 'processed'))).toBe(false);
    expect(w.admit(msg(10, 'confirmed'))).toBe(true);
    expect(w.admit(msg(10, 'finalized'))).toBe(true);
    // Terminal: forgotten, a repeat is not sent again.
    expect(w.admit(msg(10, 'finalized'))).toBe(false);
    w.noteTrade(11);
    expect(w.admit(msg(11, 'dead'))).toBe(true);
    expect(w.size).toBe(0);
  });

  it('when no trade of a slot was sent (all filtered out), then none of its statuses is admitted', () => {
    const w = new SlotWatch('basic.pumpfun', null);
    w.noteTrade(10);
    expect(w.admit(msg(12, 'confirmed', { 'basic.pumpfun': 5 }))).toBe(false);
  });

  it('after a resume, then statuses of slots up to the resume slot with trades of the subject are admitted, later ones only when a trade was sent', () => {
    const w = new SlotWatch('basic.pumpfun', 100);
    expect(w.admit(msg(99, 'confirmed', { 'basic.pumpfun': 2 }))).toBe(true);
    expect(w.admit(msg(100, 'finalized', { 'basic.pumpfun': 1 }))).toBe(true);
    expect(w.admit(msg(98, 'confirmed', { 'basic.bonk': 3 }))).toBe(false);
    expect(w.admit(msg(101, 'confirmed', { 'basic.pumpfun': 1 }))).toBe(false);
    w.noteTrade(101);
    expect(w.admit(msg(101, 'confirmed', { 'basic.pumpfun': 1 }))).toBe(true);
  });

  it('when more slots than maxSlots are noted, then the oldest is forgotten first', () => {
    const w = new SlotWatch('basic.pumpfun', null, 2);
    w.noteTrade(1);
    w.noteTrade(2);
    w.noteTrade(3);
    expect(w.size).toBe(2);
    expect(w.admit(msg(1, 'confirmed'))).toBe(false);
    expect(w.admit(msg(2, 'confirmed'))).toBe(true);
    expect(w.admit(msg(3, 'confirmed'))).toBe(true);
  });
});

describe('slotMessageFacts / tradeSlot', () => {
  it('when the bytes are a slot message, then its slot, status and counts are read; anything else is null', () => {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v));
    expect(slotMessageFacts(enc({ type: 'slot', slot: 5, parent: 4, status: 'dead', trades: { 'basic.bonk': 1 } }))).toEqual({
      slot: 5,
      status: 'dead',
      trades: { 'basic.bonk': 1 },
    });
    expect(slotMessageFacts(enc({ type: 'trade', slot: 5, status: 'dead' }))).toBeNull();
    expect(slotMessageFacts(enc({ type: 'slot', slot: 5, status: 'rooted' }))).toBeNull();
    expect(slotMessageFacts(Buffer.from('{not json'))).toBeNull();
    expect(tradeSlot({ slot: 7 })).toBe(7);
    expect(tradeSlot({ slot: '7' })).toBeNull();
    expect(tradeSlot(null)).toBeNull();
  });
});
