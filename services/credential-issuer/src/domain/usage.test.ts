import { describe, expect, it } from 'vitest';
import { USAGE_DAYS } from '@tradewind/contracts';
import { counterDelta, fillUsageDays, usageDays, utcDay } from './usage.js';

describe('counterDelta (cumulative nats-server counters)', () => {
  it('when a counter is seen for the first time, then all of it is new', () => {
    expect(counterDelta(42, undefined)).toBe(42);
  });

  it('when a counter grew, then the growth is new; when it did not move, nothing', () => {
    expect(counterDelta(50, 42)).toBe(8);
    expect(counterDelta(42, 42)).toBe(0);
  });

  it('when a counter is lower than last seen (the server counted again from zero), then the new value is all new', () => {
    expect(counterDelta(5, 42)).toBe(5);
    expect(counterDelta(0, 42)).toBe(0);
  });
});

describe('usage days', () => {
  it('when the days of a report are listed, then they are 30 UTC days oldest first ending today, across a month end', () => {
    const now = Date.parse('2026-03-01T00:30:00Z');
    const days = usageDays(now);
    expect(days).toHaveLength(USAGE_DAYS);
    expect(days.at(-1)).toBe('2026-03-01');
    expect(days[0]).toBe('2026-01-31');
    expect(days[days.indexOf('2026-03-01') - 1]).toBe('2026-02-28');
    expect(new Set(days).size).toBe(USAGE_DAYS);
    expect(utcDay(Date.parse('2026-02-28T23:59:59.999Z'))).toBe('2026-02-28');
  });

  it('when rows are filled into the days, then missing days are zeros, rows outside are ignored and totals are the sums', () => {
    const days = usageDays(Date.parse('2026-03-01T12:00:00Z'));
    const filled = fillUsageDays(days, [
      { day: '2026-03-01', transport: 'websocket', messages: 3, bytes: 300 },
      { day: '2026-02-10', transport: 'nats', messages: 5, bytes: 50 },
      { day: '2026-02-10', transport: 'websocket', messages: 1, bytes: 10 },
      { day: '2025-12-31', transport: 'nats', messages: 1000, bytes: 1000 },
    ]);
    expect(filled.days).toHaveLength(USAGE_DAYS);
    expect(filled.days.at(-1)).toEqual({ day: '2026-03-01', websocket: { messages: 3, bytes: 300 }, nats: { messages: 0, bytes: 0 } });
    expect(filled.days.find((d) => d.day === '2026-02-10')).toEqual({
      day: '2026-02-10',
      websocket: { messages: 1, bytes: 10 },
      nats: { messages: 5, bytes: 50 },
    });
    expect(filled.days[0]).toEqual({ day: days[0], websocket: { messages: 0, bytes: 0 }, nats: { messages: 0, bytes: 0 } });
    expect(filled.totals).toEqual({ websocket: { messages: 4, bytes: 310 }, nats: { messages: 5, bytes: 50 } });
  });
});
