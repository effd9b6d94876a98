import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase58, encodeBase58 } from './base58.js';

describe('decodeBase58', () => {
  it('when random byte strings (with leading zeros) are encoded by bs58, then decoding gives the same bytes', () => {
    for (let len = 0; len <= 600; len += 1 + (len >> 3)) {
      for (let r = 0; r < 5; r++) {
        const bytes = randomBytes(len);
        for (let z = 0; z < Math.min(len, r); z++) bytes[z] = 0;
        const s = bs58.encode(bytes);
        expect(Buffer.from(decodeBase58(s)).equals(bytes), `len ${len} ${s}`).toBe(true);
      }
    }
  });

  it('when known Solana values are decoded, then they match bs58', () => {
    for (const s of ['11111111111111111111111111111111', '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', '1', '', '2', 'z', '1112']) {
      expect(Buffer.from(decodeBase58(s)).equals(Buffer.from(bs58.decode(s))), s).toBe(true);
    }
  });

  it('when a character is outside the alphabet, then it throws naming the position', () => {
    expect(() => decodeBase58('abc0def')).toThrow('position 3');
    expect(() => decodeBase58('abcIdef')).toThrow('position 3');
    expect(() => decodeBase58('ab€')).toThrow('position 2');
  });
});

describe('encodeBase58', () => {
  it('when random byte strings (with leading zeros) are encoded, then the text equals bs58 and decodes back', () => {
    for (let len = 0; len <= 128; len += 1 + (len >> 4)) {
      for (let r = 0; r < 5; r++) {
        const bytes = randomBytes(len);
        for (let z = 0; z < Math.min(len, r); z++) bytes[z] = 0;
        const s = encodeBase58(bytes);
        expect(s, `len ${len}`).toBe(bs58.encode(bytes));
        expect(Buffer.from(decodeBase58(s)).equals(bytes)).toBe(true);
      }
    }
    expect(encodeBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    expect(() => encodeBase58(new Uint8Array(129))).toThrow(RangeError);
  });
});
