import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromAnchor } from './anchor-values.js';
import { decodeStructPrefix, readValue, ByteReader, EndOfBuffer } from './borsh-tolerant.js';
import { decodeEvent } from './event-decode.js';
import { collectEvents } from './events.js';
import { launchlabCodec, pumpAmmCodec, pumpCodec, raydiumCpmmCodec } from './idl.js';
import { normalizeTransaction } from './transaction.js';

// A 2026 LaunchLab `Program data:` TradeEvent line (139-byte payload), from
// actionsacclol/kryptoprivate11 test/fixtures/launchlab.json @ 78069a7f (buy, amountIn 36554, amountOut 725708911256).
const LAUNCHLAB_2026 =
  'vdt/007mYe73a6LIRf2ZsRWXHCKhiLD3zolkKZK6pBIYI7C0CZWxgAAAUOzCKxoLqqpqkK6PzQ5VW8yYBgAAAFQ75m0oOPUDPKpSaAIAAADsbYVl0Tj1A4Y2U2gCAAAAyo4AAAAAAACYMp/3qAAAAF0AAAAAAAAAbQEAAAAAAAC2AAAAAAAAAAAAAAAAAAAAAAAB';

describe('tolerant borsh reader', () => {
  it('when a struct is cut mid-field, then that field and all later ones are absent', () => {
    const fields = [
      { name: 'a', type: 'u8' },
      { name: 'b', type: 'u64' },
      { name: 'c', type: 'string' },
    ];
    const bytes = Uint8Array.from([7, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0]);
    const r = decodeStructPrefix(bytes, fields, new Map());
    expect(r.values).toEqual({ a: 7, b: '1' });
    expect(r.missing).toEqual(['c']);
    expect('c' in r.values).toBe(false);
  });

  it('when integers are wide or signed, then they come out as exact decimal strings', () => {
    const r = new ByteReader(Uint8Array.from([...new Array<number>(8).fill(0xff), ...new Array<number>(16).fill(0xff)]));
    expect(readValue(r, 'i64', new Map())).toBe('-1');
    expect(readValue(r, 'u128', new Map())).toBe((2n ** 128n - 1n).toString());
    expect(() => readValue(r, 'u8', new Map())).toThrow(EndOfBuffer);
  });

  it('when a bool byte is not 0/1, then decoding stops instead of misreading', () => {
    const r = decodeStructPrefix(
      Uint8Array.from([1, 2]),
      [
        { name: 'x', type: 'bool' },
        { name: 'y', type: 'bool' },
      ],
      new Map(),
    );
    expect(r.values).toEqual({ x: true });
    expect(r.trailingBytes).toBe(1);
  });

  it('when a complete event is decoded, then the tolerant reader gives the value of the LaunchLab 2026 source', () => {
    const codec = launchlabCodec();
    const ev = decodeEvent(codec, Buffer.from(LAUNCHLAB_2026, 'base64'));
    expect(ev?.layout).toBe('idl');
    expect(ev?.values).toMatchObject({ amount_in: '36554', amount_out: '725708911256', trade_direction: 'Buy', exact_in: true, creator_fee: '182' });
  });

  it("when every complete event in the recording is decoded, then the values equal anchor's BorshEventCoder", () => {
    const recording = fileURLToPath(new URL('../../recording', import.meta.url));
    const codecs = [pumpCodec(), launchlabCodec(), pumpAmmCodec(), raydiumCpmmCodec()];
    let compared = 0;
    for (const f of readdirSync(recording, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.json'))) {
      const tx = normalizeTransaction(JSON.parse(readFileSync(join(recording, f), 'utf8')));
      for (const codec of codecs) {
        const { cpi, log } = collectEvents(tx, codec.programId);
        for (const raw of [...cpi.values(), ...log.values()].flat()) {
          const ev = decodeEvent(codec, raw.bytes);
          if (ev?.layout !== 'idl') continue;
          const viaAnchor = codec.eventCoder.decode(Buffer.from(raw.bytes).toString('base64'));
          expect(viaAnchor?.name, f).toBe(ev.name);
          const data = (viaAnchor?.data ?? {}) as Record<string, unknown>;
          const def = codec.eventsByDisc.get(Buffer.from(raw.bytes.subarray(0, 8)).toString('hex'));
          const expected = Object.fromEntries((def?.fields ?? []).map((fd) => [fd.name, fromAnchor(data[fd.name], fd.type, codec.types)]));
          expect(ev.values, `${f} ${ev.name}`).toEqual(expected);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('when a pump.fun TradeEvent is cut to the 2024 length (121 B), then only the 2024 fields are present', () => {
    const codec = pumpCodec();
    const disc = Buffer.from(codec.idl.events?.find((e) => e.name === 'TradeEvent')?.discriminator ?? []);
    const payload = Buffer.alloc(121);
    payload[48] = 1; // is_buy
    const ev = decodeEvent(codec, Buffer.concat([disc, payload]));
    expect(ev?.layout).toBe('idl-prefix');
    expect(Object.keys(ev?.values ?? {})).toEqual([
      'mint',
      'sol_amount',
      'token_amount',
      'is_buy',
      'user',
      'timestamp',
      'virtual_sol_reserves',
      'virtual_token_reserves',
      'real_sol_reserves',
      'real_token_reserves',
    ]);
  });
});
