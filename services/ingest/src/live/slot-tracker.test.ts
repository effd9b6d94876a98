import { describe, expect, it } from 'vitest';
import { SlotTracker, type SlotUpdate } from './slot-tracker.js';

const at = 1_800_000_000_000;
const tracker = (commitment: 'processed' | 'confirmed' | 'finalized' = 'processed', maxSlots?: number) =>
  new SlotTracker({ source: 'yellowstone', commitment, now: () => at, ...(maxSlots ? { maxSlots } : {}) });
const u = (slot: number, status: SlotUpdate['status'], parent: number | null = slot - 1, deadError?: string): SlotUpdate => ({
  kind: 'slot',
  slot,
  parent,
  status,
  ...(deadError ? { deadError } : {}),
});
const summary = (t: SlotTracker, update: SlotUpdate) =>
  t.onStatus(update).map((m) => `${m.message.slot}:${m.message.status}${m.message.reason ? `:${m.message.reason}` : ''}`);

describe('SlotTracker', () => {
  it('when a slot is processed, confirmed and finalized, then each status is one message with the trades counted so far, its id and parent', () => {
    const t = tracker();
    t.countTrades(100, ['basic.pumpfun', 'basic.pumpfun', 'premium.pumpswap']);
    const [processed] = t.onStatus(u(100, 'processed', 99));
    expect(processed).toEqual({
      subject: 'slots',
      msgId: 'slot:100:processed',
      message: {
        type: 'slot',
        slot: 100,
        parent: 99,
        status: 'processed',
        trades: { 'basic.pumpfun': 2, 'premium.pumpswap': 1 },
        source: 'yellowstone',
        observed_at_ms: at,
        schema_version: 1,
      },
    });
    t.countTrades(100, ['basic.bonk']);
    expect(t.onStatus(u(100, 'confirmed'))[0]!.message.trades).toEqual({ 'basic.pumpfun': 2, 'premium.pumpswap': 1, 'basic.bonk': 1 });
    expect(summary(t, u(100, 'finalized'))).toEqual(['100:finalized']);
    expect(t.onStatus(u(101, 'processed'))[0]!.message.trades).toEqual({});
  });

  it('when a status repeats (a reconnect that replays), then it is published once', () => {
    const t = tracker();
    expect(summary(t, u(5, 'processed'))).toEqual(['5:processed']);
    expect(summary(t, u(5, 'processed'))).toEqual([]);
    expect(summary(t, u(5, 'confirmed'))).toEqual(['5:confirmed']);
    expect(summary(t, u(5, 'confirmed'))).toEqual([]);
  });

  it('when the source reads at confirmed, then processed statuses (which come before the transactions) are dropped', () => {
    const t = tracker('confirmed');
    expect(summary(t, u(7, 'processed'))).toEqual([]);
    expect(summary(t, u(7, 'confirmed'))).toEqual(['7:confirmed']);
    expect(summary(tracker('finalized'), u(7, 'confirmed'))).toEqual([]);
  });

  it('when the source says a slot is dead, then it is dead (replay_failed, with the error) and nothing more is published for it', () => {
    const t = tracker();
    t.countTrades(9, ['basic.pumpfun']);
    const [dead] = t.onStatus(u(9, 'dead', 8, 'bank hash mismatch'));
    expect(dead!.msgId).toBe('slot:9:dead');
    expect(dead!.message).toMatchObject({ status: 'dead', reason: 'replay_failed', dead_error: 'bank hash mismatch', trades: { 'basic.pumpfun': 1 } });
    expect(summary(t, u(9, 'processed'))).toEqual([]);
    expect(summary(t, u(9, 'confirmed'))).toEqual([]);
  });

  it('when a finalized slot descends from a fork point, then the processed slots it skipped since the previous finalized one are dead (skipped), in slot order', () => {
    const t = tracker();
    // 10 ← 11 ← [12 abandoned] ; 11 ← 13 ← [14 abandoned] ; 13 ← 15
    for (const [slot, parent] of [
      [10, 9],
      [11, 10],
      [12, 11],
      [13, 11],
      [14, 13],
      [15, 13],
    ] as const) {
      t.countTrades(slot, ['basic.pumpfun']);
      t.onStatus(u(slot, 'processed', parent));
    }
    expect(summary(t, u(10, 'finalized'))).toEqual(['10:finalized']);
    expect(summary(t, u(11, 'finalized'))).toEqual(['11:finalized']);
    expect(summary(t, u(13, 'finalized'))).toEqual(['13:finalized', '12:dead:skipped']);
    expect(summary(t, u(15, 'finalized'))).toEqual(['15:finalized', '14:dead:skipped']);
    // Said once: a late status of a skipped slot publishes nothing.
    expect(summary(t, u(12, 'confirmed'))).toEqual([]);
  });

  it('when a parent on the walk from the finalized slot is unknown, then nothing is called dead', () => {
    const t = tracker();
    t.onStatus(u(20, 'processed', 19));
    t.onStatus(u(20, 'finalized', 19));
    t.onStatus(u(21, 'processed', 20));
    // 22 is never reported; 23 hangs off it; 24 off 23.
    t.onStatus(u(23, 'processed', 22));
    t.onStatus(u(24, 'processed', 23));
    expect(summary(t, u(24, 'finalized', 23))).toEqual(['24:finalized']);
  });

  it('when more slots than the bound are seen, then the oldest are forgotten and the size stays bounded', () => {
    const t = tracker('processed', 8);
    for (let s = 1; s <= 50; s++) t.onStatus(u(s, 'processed'));
    expect(t.size).toBe(8);
    expect(() => new SlotTracker({ source: 'rpc', commitment: 'processed', maxSlots: 0 })).toThrow(RangeError);
  });

  it('when slots are finalized, then those behind the newest finalized one that ended are forgotten', () => {
    const t = tracker();
    for (let s = 1; s <= 40; s++) t.onStatus(u(s, 'processed'));
    for (let s = 1; s <= 30; s++) t.onStatus(u(s, 'finalized'));
    expect(t.size).toBe(11);
  });
});
