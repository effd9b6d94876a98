import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { BUNDLED_RECORDING_DIR, decodeNormalized, listJsonFiles, normalizeTransaction } from '@tradewind/ingest';
import { INGEST_TRANSACTIONS_FILTER, decodeSubscribeUpdate, subscribeUpdateBytes, yellowstoneMessages } from './decode-yellowstone.js';

const files = await listJsonFiles(BUNDLED_RECORDING_DIR);
const raws = files.map((f) => ({ file: f, raw: JSON.parse(readFileSync(f, 'utf8')) as { slot?: number; blockTime?: number | null; transaction: unknown } }));

describe('Yellowstone bench bytes', () => {
  it('when a recorded transaction is encoded, then the bytes decode to a transaction update of it', () => {
    const { file, raw } = raws[0]!;
    const { bytes } = subscribeUpdateBytes(raw);
    const u = decodeSubscribeUpdate(bytes);
    expect(u.filters).toEqual([INGEST_TRANSACTIONS_FILTER]);
    expect(u.transaction?.slot).toBe(String(raw.slot ?? 0));
    // Recording files are named <program>/<signature>.json.
    expect(`${bs58.encode(u.transaction!.transaction!.signature)}.json`).toBe(basename(file));
  });

  it('when every recorded trade goes bytes → decode → normalise → decode, then it gives the messages of its JSON form', () => {
    let messages = 0;
    for (const { file, raw } of raws) {
      const item = subscribeUpdateBytes(raw);
      expect(item.blockTimeMs, file).toBe(typeof raw.blockTime === 'number' ? raw.blockTime * 1000 : null);
      const fromJson = decodeNormalized(normalizeTransaction(raw, 'processed'));
      const fromBytes = yellowstoneMessages(item, 'processed');
      // A Yellowstone update always has a slot; captures without one are streamed at slot 0.
      const expected = raw.slot === undefined ? fromJson.map((m) => ({ ...m, slot: 0 })) : fromJson;
      expect(JSON.parse(JSON.stringify(fromBytes)), file).toEqual(JSON.parse(JSON.stringify(expected)));
      messages += fromBytes.length;
    }
    expect(files.length).toBeGreaterThanOrEqual(40);
    expect(messages).toBeGreaterThan(files.length);
  });

  it('when the bytes hold no transaction update, then the path fails with a clear error', () => {
    const bytes = SubscribeUpdate.encode(SubscribeUpdate.fromPartial({ filters: ['x'], ping: {} })).finish();
    expect(() => yellowstoneMessages({ bytes, blockTimeMs: null }, 'processed')).toThrow('SubscribeUpdate holds no transaction update');
  });
});
