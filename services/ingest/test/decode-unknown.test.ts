/**
 * Program upgrades never stop the stream: an instruction, event or event field a program's IDL
 * lacks is reported (metric + one log line per kind with the signature) and the rest of the
 * transaction is still decoded. Checked on the real 2026 transactions of the recording, which
 * hold newer layouts (pump.fun TradeEvents longer than the installed IDL, Raydium CPMM's
 * collect_creator_fee), and on a real transaction with one foreign event line added.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { decodeNormalized, normalizeTransaction, type UnknownItem } from '../src/decode/index.js';
import { createUnknownReporter, DECODE_UNKNOWN_METRIC } from '../src/decode/unknown-report.js';
import type { GoldenSnapshot } from './fixtures/golden.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const golden = JSON.parse(readFileSync(new URL('./fixtures/golden-messages.json', import.meta.url), 'utf8')) as GoldenSnapshot;
const file = (dir: string, prefix: string): string => {
  const f = readdirSync(join(root, 'recording', dir)).find((x) => x.startsWith(prefix));
  if (!f) throw new Error(`no recording ${dir}/${prefix}`);
  return `recording/${dir}/${f}`;
};
const load = (rel: string) => normalizeTransaction(JSON.parse(readFileSync(join(root, rel), 'utf8')));
const PUMP = '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P';
const CPMM = 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C';

describe('decoding what the IDL lacks', () => {
  it('when a real 2026 pump.fun TradeEvent carries fields newer than the IDL, then event_fields is reported with the signature and the messages are the golden ones', () => {
    const rel = file('pumpfun', '2eVpZN');
    const tx = load(rel);
    const seen: UnknownItem[] = [];
    const messages = decodeNormalized(tx, { onUnknown: (u) => seen.push(u) });
    expect(seen).toContainEqual({ programId: PUMP, kind: 'event_fields', name: 'TradeEvent', signature: tx.signature });
    expect(messages.map((m) => JSON.stringify(m))).toEqual(golden.perFile[rel]);
    expect(messages.length).toBeGreaterThan(0);
  });

  it('when a real transaction runs a Raydium CPMM instruction newer than the IDL (collect_creator_fee), then it is reported as instruction with its discriminator and the signature', () => {
    const tx = load(file('raydium-cpmm', '5PpDgb'));
    const seen: UnknownItem[] = [];
    decodeNormalized(tx, { onUnknown: (u) => seen.push(u) });
    expect(seen).toEqual([{ programId: CPMM, kind: 'instruction', name: '1416567bc61cdb84', signature: tx.signature }]);
  });

  it('when a known instruction also logs an event the IDL does not know, then kind event is reported and every message is still decoded, unchanged', () => {
    const rel = file('pumpfun', '2eVpZN');
    const tx = load(rel);
    const logs = [...(tx.logs ?? [])];
    const at = logs.findIndex((l) => l.startsWith('Program data: '));
    expect(at).toBeGreaterThan(0);
    const foreign = Buffer.concat([Buffer.from('0102030405060708', 'hex'), Buffer.alloc(40, 9)]).toString('base64');
    logs.splice(at, 0, `Program data: ${foreign}`);
    const seen: UnknownItem[] = [];
    const messages = decodeNormalized({ ...tx, logs }, { onUnknown: (u) => seen.push(u) });
    expect(seen).toContainEqual({ programId: PUMP, kind: 'event', name: '0102030405060708', signature: tx.signature });
    expect(messages.map((m) => JSON.stringify(m))).toEqual(golden.perFile[rel]);
  });

  it('when the reporter gets items, then tradewind_ingest_decode_unknown_total counts each by program and kind and the log has one line per kind, with the signature', async () => {
    const registry = new Registry();
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const report = createUnknownReporter(registry, createLogger({ service: 'ingest', destination }));
    const rel = file('pumpfun', '2eVpZN');
    const tx = load(rel);
    decodeNormalized(tx, { onUnknown: report });
    for (let i = 0; i < 2; i++) decodeNormalized(load(rel), { onUnknown: report });
    decodeNormalized(load(file('raydium-cpmm', '5PpDgb')), { onUnknown: report });
    const metric = await registry.getSingleMetric(DECODE_UNKNOWN_METRIC)?.get();
    const count = (program: string, kind: string): number => metric?.values.find((v) => v.labels.program === program && v.labels.kind === kind)?.value ?? 0;
    expect(count('pumpfun', 'event_fields')).toBe(3);
    expect(count('raydium_cpmm', 'instruction')).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.program, l.kind, l.signature])).toEqual([
      ['pumpfun', 'event_fields', tx.signature],
      ['raydium_cpmm', 'instruction', expect.any(String)],
    ]);
  });
});
