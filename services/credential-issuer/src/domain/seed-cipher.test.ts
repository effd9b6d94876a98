import { describe, expect, it } from 'vitest';
import { AppError } from '@tradewind/contracts';
import { createSeedCipher, generateSeedKey, parseSeedKey } from './seed-cipher.js';

const SEED = 'SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU';
const USER = '6f1c1a8e-6d0c-4a53-9d0f-9a2b0c3d4e5f';

describe('seed cipher', () => {
  it('when a seed is sealed, then the stored value does not contain it and opens back to it', () => {
    const cipher = createSeedCipher(parseSeedKey(generateSeedKey()));
    const sealed = cipher.seal(SEED, USER);
    expect(sealed).not.toContain(SEED);
    expect(sealed.startsWith(`v1.${cipher.keyId}.`)).toBe(true);
    expect(cipher.open(sealed, USER)).toBe(SEED);
    // A fresh IV each time.
    expect(cipher.seal(SEED, USER)).not.toBe(sealed);
  });

  it('when the value is opened for another user, altered, or with another key, then it is refused', () => {
    const cipher = createSeedCipher(parseSeedKey(generateSeedKey()));
    const sealed = cipher.seal(SEED, USER);
    expect(() => cipher.open(sealed, '00000000-0000-4000-8000-000000000000')).toThrow(/another user/);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('x'.repeat(SEED.length)).toString('base64url');
    expect(() => cipher.open(parts.join('.'), USER)).toThrow(/failed authentication/);
    const other = createSeedCipher(parseSeedKey(generateSeedKey()));
    expect(() => other.open(sealed, USER)).toThrow(/sealed with key/);
  });

  it('when a key is given as hex or base64 of 32 bytes, then it parses; anything else is refused', () => {
    expect(parseSeedKey('ab'.repeat(32)).length).toBe(32);
    expect(parseSeedKey(Buffer.alloc(32, 7).toString('base64')).length).toBe(32);
    expect(() => parseSeedKey('too-short')).toThrow(AppError);
    expect(() => parseSeedKey(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
