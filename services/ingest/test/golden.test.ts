/**
 * Byte-for-byte guard of the decoder's output: every real transaction bundled with ingest must
 * decode to exactly the messages in fixtures/golden-messages.json (made by fixtures/make-golden.ts
 * before the decoder's single-pass rewrite, issue 22).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { goldenSnapshot, type GoldenSnapshot } from './fixtures/golden.js';

const golden = JSON.parse(readFileSync(new URL('./fixtures/golden-messages.json', import.meta.url), 'utf8')) as GoldenSnapshot;

describe('decoder golden output', () => {
  it('when every bundled real transaction is decoded, then each file yields exactly the golden messages, byte for byte', async () => {
    const now = await goldenSnapshot();
    expect(Object.keys(now.perFile)).toEqual(Object.keys(golden.perFile));
    expect(Object.values(golden.perFile).flat().length).toBeGreaterThan(40);
    for (const [file, messages] of Object.entries(golden.perFile)) expect(now.perFile[file], file).toEqual(messages);
  });

  it('when the recording is replayed through one token-name cache, then the messages equal the golden replay, byte for byte', async () => {
    const now = await goldenSnapshot();
    expect(now.replay).toEqual(golden.replay);
  });
});
