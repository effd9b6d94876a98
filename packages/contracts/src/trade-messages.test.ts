import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRADE_MESSAGE_TYPE, isTradeMessage } from './trade-messages.js';

const schema = (name: string) =>
  JSON.parse(readFileSync(new URL(`../schemas/${name}.schema.json`, import.meta.url), 'utf8')) as { properties: Record<string, { const?: unknown }> };

describe('isTradeMessage', () => {
  it('when the type a trade may carry is read from the basic.pumpfun schema, then it is TRADE_MESSAGE_TYPE', () => {
    expect(schema('basic.pumpfun').properties.type?.const).toBe(TRADE_MESSAGE_TYPE);
    // The other subjects' trades have no type at all; slot messages have their own.
    for (const s of ['basic.bonk', 'premium.pumpswap', 'premium.raydium']) expect(schema(s).properties.type).toBeUndefined();
    expect(schema('slots').properties.type?.const).toBe('slot');
  });

  it('when a message has no type or "type": "trade", then it is a trade, whatever else it carries', () => {
    expect(isTradeMessage({ seq: 7, source: 'pumpfun', transaction_type: 'BUY', schema_version: 2, type: 'trade' })).toBe(true);
    expect(isTradeMessage({ seq: 8, source: 'bonk', transaction_type: 'SELL', schema_version: 2 })).toBe(true);
    expect(isTradeMessage({ source: 'pumpfun', transaction_type: 'BUY' })).toBe(true); // schema version 1
  });

  it('when a message is a control or slot message, or not an object, then it is not a trade', () => {
    for (const type of [
      'challenge',
      'authenticated',
      'subscribed',
      'unsubscribed',
      'replay_caught_up',
      'plan_changed',
      'heartbeat',
      'error',
      'slot',
      'TRADE',
      '',
    ])
      expect(isTradeMessage({ type, seq: 1 }), type).toBe(false);
    for (const v of [null, undefined, 'trade', 3, [], [{ type: 'trade' }]]) expect(isTradeMessage(v)).toBe(false);
    expect(isTradeMessage({ type: null })).toBe(false);
  });
});
