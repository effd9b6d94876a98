import { describe, expect, it } from 'vitest';
import { decodeNormalized, type TradeMessage } from '@tradewind/ingest/decode';
import { DECODER_CLASSES, loadDecoderCorpus, runDecoderClass, runDecoderFuzz, tradeSchemaValidators } from './fuzz/decoder.js';
import { fuzzSeed } from './report.js';

const SEED = fuzzSeed(2024);

describe('decoder fuzz', () => {
  it('when every decoder class runs at test size, then each is tried with nothing crashed, hung, invalid or wrong', async () => {
    const rows = await runDecoderFuzz('test', SEED);
    expect(rows).toHaveLength(DECODER_CLASSES.length);
    for (const row of rows) {
      expect(row.tried, row.name).toBeGreaterThan(0);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toMatchObject({
        lost: 0,
        duplicated: 0,
        crashed: 0,
      });
    }
  }, 60_000);
});

describe('decoder fuzz detectors (negative controls)', () => {
  const corpus = loadDecoderCorpus();
  const validators = tradeSchemaValidators();
  const eventEdits = DECODER_CLASSES[1]!;

  it('when the decoder throws a TypeError, then every input counts as a crash', () => {
    const r = runDecoderClass(eventEdits, corpus, validators, 20, SEED, () => {
      throw new TypeError('boom');
    });
    expect(r.crashed).toBe(20);
  });

  it('when the decoder doubles an amount, then it is counted as a wrong amount', () => {
    const doubled = (tx: Parameters<typeof decodeNormalized>[0]): TradeMessage[] =>
      decodeNormalized(tx).map((m) => (typeof m.token_amount === 'string' ? ({ ...m, token_amount: String(BigInt(m.token_amount) * 2n) } as TradeMessage) : m));
    // Truncated instruction data rarely changes a message: most inputs decode as the original.
    const r = runDecoderClass(DECODER_CLASSES[4]!, corpus, validators, 50, SEED, doubled);
    expect(r.wrongAmounts).toBeGreaterThan(0);
  });

  it('when the decoder emits a message without its signature, then it is counted as schema-invalid', () => {
    const r = runDecoderClass(DECODER_CLASSES[4]!, corpus, validators, 50, SEED, (tx) =>
      decodeNormalized(tx).map((m) => ({ ...m, signature: 'not base58!' }) as TradeMessage),
    );
    expect(r.invalid).toBeGreaterThan(0);
  });
});
