import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLED_RECORDING_DIR, decodeTransaction, listJsonFiles } from '@tradewind/ingest';
import type { ParseResult } from 'solana-dex-parser';
import { PEER_CONFIG, PEER_VERSION, peerInput, peerParse, peerResultJson } from './decode-peer.js';

const files = await listJsonFiles(BUNDLED_RECORDING_DIR);

describe('peer in the decode bench', () => {
  it('when every recorded trade is parsed by the peer, then it succeeds with records of our four programs (or a Jupiter route summary)', () => {
    let records = 0;
    for (const f of files) {
      const raw: unknown = JSON.parse(readFileSync(f, 'utf8'));
      const res = peerParse(peerInput(raw));
      expect(res.state, f).toBe(true);
      const ours = decodeTransaction(raw);
      expect(res.signature, f).toBe(ours[0]?.signature ?? res.signature);
      // The peer's Jupiter shortcut runs before its programIds filter: a Jupiter-routed trade comes back as Jupiter's.
      const jupiter = res.trades.filter((t) => !PEER_CONFIG.programIds!.includes(t.programId ?? '')).map((t) => t.programId);
      expect(
        jupiter.every((p) => p?.startsWith('JUP')),
        f,
      ).toBe(true);
      for (const l of res.liquidities) expect(PEER_CONFIG.programIds, f).toContain(l.programId);
      records += res.trades.length - jupiter.length + res.memeEvents.length + res.liquidities.length;
      expect(() => JSON.parse(peerResultJson(res)), f).not.toThrow();
    }
    expect(records).toBeGreaterThan(files.length);
    expect(PEER_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('when a result holds bigints and a Map, then its JSON has them as decimal strings and an object', () => {
    const res = {
      state: true,
      memeEvents: [{ reserve: 12345678901234567890n }],
      tokenBalanceChange: new Map([['mint', { change: '5' }]]),
    } as unknown as ParseResult;
    expect(JSON.parse(peerResultJson(res))).toEqual({
      state: true,
      memeEvents: [{ reserve: '12345678901234567890' }],
      tokenBalanceChange: { mint: { change: '5' } },
    });
  });
});
