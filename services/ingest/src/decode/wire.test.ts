import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { parseWireTransaction } from './wire.js';

const key = (n: number): Uint8Array => new Uint8Array(32).fill(n);

/** Builds a v1 (SIMD-0385) transaction with one signature and one instruction. */
function v1(order: 'mask-first' | 'count-first'): Uint8Array {
  const header = [0x81, 1, 0, 1];
  const mask = [0x04, 0, 0, 0]; // bit 2: compute-unit limit, one 4-byte value
  const body: number[] = [];
  if (order === 'mask-first') body.push(...mask, ...key(9), 1, 2);
  else body.push(1, ...mask, ...key(9), 2);
  body.push(...key(1), ...key(2)); // addresses
  body.push(0x40, 0x0d, 0x03, 0x00); // config value: 200000 CU
  body.push(1, 1, 3, 0); // instruction header: program 1, 1 account, 3 data bytes
  body.push(0, 0xaa, 0xbb, 0xcc);
  return Uint8Array.from([...header, ...body, ...new Array<number>(64).fill(7)]);
}

describe('wire parser', () => {
  it('when a v1 transaction is parsed, then signatures come from the end and instructions resolve (either field order)', () => {
    for (const order of ['mask-first', 'count-first'] as const) {
      const tx = parseWireTransaction(v1(order));
      expect(tx.version).toBe(1);
      expect(tx.signatures).toEqual([bs58.encode(new Uint8Array(64).fill(7))]);
      expect(tx.staticAccountKeys).toEqual([bs58.encode(key(1)), bs58.encode(key(2))]);
      expect(tx.instructions).toEqual([{ programIdIndex: 1, accounts: [0], data: Uint8Array.from([0xaa, 0xbb, 0xcc]) }]);
    }
  });

  it('when bytes are truncated or padded, then parsing fails with a reason', () => {
    const good = v1('mask-first');
    expect(() => parseWireTransaction(good.subarray(0, good.length - 1))).toThrow(/v1/);
    expect(() => parseWireTransaction(Uint8Array.from([1, 2, 3]))).toThrow(/end early/);
    expect(() => parseWireTransaction(new Uint8Array())).toThrow(/empty/);
  });
});
