/**
 * The slot status messages ingest publishes (src/live/slot-tracker.ts) against their JSON Schema
 * (packages/contracts/schemas/slots.schema.json, from which @tradewind/client's SlotStatusMessage is generated):
 * every status, a fork's dead slots and a node's dead slot validate; a message with a field the schema lacks does not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { SlotTracker, type SlotUpdate } from '../src/live/slot-tracker.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../../packages/contracts/schemas/slots.schema.json'), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
const u = (slot: number, status: SlotUpdate['status'], parent: number | null, deadError?: string): SlotUpdate => ({
  kind: 'slot',
  slot,
  parent,
  status,
  ...(deadError ? { deadError } : {}),
});

describe('slot message schema', () => {
  it('when ingest publishes every kind of slot status, then each message validates against slots.schema.json', () => {
    const t = new SlotTracker({ source: 'yellowstone', commitment: 'processed' });
    const messages = [];
    // 10 ← 11 ← [12 abandoned, with trades]; 11 ← 13; 14's replay fails; a slot without a parent given.
    for (const [slot, parent] of [
      [10, 9],
      [11, 10],
      [12, 11],
      [13, 11],
    ] as const) {
      t.countTrades(slot, ['basic.pumpfun', 'premium.raydium']);
      messages.push(...t.onStatus(u(slot, 'processed', parent)));
    }
    messages.push(...t.onStatus(u(11, 'confirmed', 10)), ...t.onStatus(u(11, 'finalized', 10)), ...t.onStatus(u(13, 'finalized', 11)));
    messages.push(...t.onStatus(u(14, 'dead', 13, 'bank hash mismatch')), ...t.onStatus(u(15, 'processed', null)));
    expect(messages.map((m) => `${m.message.slot}:${m.message.status}${m.message.reason ? `:${m.message.reason}` : ''}`)).toEqual([
      '10:processed',
      '11:processed',
      '12:processed',
      '13:processed',
      '11:confirmed',
      '11:finalized',
      '13:finalized',
      '12:dead:skipped',
      '14:dead:replay_failed',
      '15:processed',
    ]);
    for (const m of messages) {
      const ok = validate(JSON.parse(JSON.stringify(m.message)));
      expect(ok, `${JSON.stringify(m.message)}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // As a WebSocket client receives it: seq and subject first.
    expect(validate({ seq: 42, subject: 'basic.pumpfun', ...messages[4]!.message })).toBe(true);
    // The schema can fail: an unknown field, a status outside the enum, a count for no subject.
    expect(validate({ ...messages[0]!.message, extra: 1 })).toBe(false);
    expect(validate({ ...messages[0]!.message, status: 'rooted' })).toBe(false);
    expect(validate({ ...messages[0]!.message, trades: { slots: 1 } })).toBe(false);
  });
});
