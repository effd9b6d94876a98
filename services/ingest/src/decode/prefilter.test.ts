import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mayTouchPrograms } from './prefilter.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const listJson = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f));
const recorded = listJson(join(root, 'recording'));
const base64File = recorded.find((f) => readFileSync(f, 'utf8').includes('"base64"'));

describe('mayTouchPrograms', () => {
  it('when any recorded trade transaction is given (pretty or compact), then it passes', () => {
    expect(recorded.length).toBeGreaterThan(10);
    for (const f of recorded) {
      const text = readFileSync(f, 'utf8');
      expect(mayTouchPrograms(text), f).toBe(true);
      expect(mayTouchPrograms(JSON.stringify(JSON.parse(text))), f).toBe(true);
    }
  });

  it('when the programs asked for are absent from a json transaction, then it is skipped', () => {
    const other = ['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4'];
    const jsonFile = recorded.find((f) => !readFileSync(f, 'utf8').includes('"base64"') && !readFileSync(f, 'utf8').includes(other[0] ?? ''));
    expect(jsonFile).toBeDefined();
    expect(mayTouchPrograms(readFileSync(jsonFile ?? '', 'utf8'), other)).toBe(false);
  });

  it('when a base64 transaction has no logs, then its static keys in the wire bytes are still found', () => {
    expect(base64File).toBeDefined();
    const tx = JSON.parse(readFileSync(base64File ?? '', 'utf8')) as { meta: { logMessages: unknown; loadedAddresses?: unknown } };
    const programInWire = [
      '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P',
      'LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj',
      'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA',
      'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C',
    ];
    tx.meta.logMessages = null;
    delete tx.meta.loadedAddresses;
    const text = JSON.stringify(tx);
    const present = programInWire.filter((id) => mayTouchPrograms(text, [id]));
    expect(present.length).toBeGreaterThan(0);
    // A program that is nowhere in the transaction is still rejected after reading the wire keys.
    expect(mayTouchPrograms(text, ['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4'])).toBe(false);
  });

  it('when ids are asked for, then each id is found wherever it is, ids are taken literally, and an empty list matches nothing', () => {
    const ids = ['6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C'];
    const json = (keys: string[]): string => JSON.stringify({ transaction: { message: { accountKeys: keys } }, meta: {} });
    expect(mayTouchPrograms(json(['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', ids[1]!]), ids)).toBe(true);
    expect(mayTouchPrograms(json([ids[0]!]), ids)).toBe(true);
    expect(mayTouchPrograms(json(['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4']), ids)).toBe(false);
    // Regex metacharacters in an id are literal: "a.c" must not match "abc".
    expect(mayTouchPrograms(json(['abc']), ['a.c'])).toBe(false);
    expect(mayTouchPrograms(json(['a.c']), ['a.c'])).toBe(true);
    expect(mayTouchPrograms(json(['abc']), [])).toBe(false);
  });
});
