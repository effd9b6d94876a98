import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { CommitmentLevel, SubscribeUpdateTransactionInfo, type SubscribeUpdateTransaction } from '@triton-one/yellowstone-grpc';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { decodeNormalized, decodeTransaction } from '../src/decode/index.js';
import { COMMITMENTS } from '../src/decode/types.js';
import { DecodeError } from '../src/decode/errors.js';
import { normalizeTransaction, type NormalizedTransaction } from '../src/decode/transaction.js';
import { encodeTransactionError, loadRecordedGeyserTransactions, type RecordedGeyserTransaction } from './support/geyser-server.js';
import { backoffDelayMs, DEFAULT_BACKOFF, TRADE_PROGRAM_IDS } from '../src/live/source.js';
import { buildSubscribeRequest } from '../src/live/yellowstone.js';
import { addressToBase58, encodeBase58 } from '../src/decode/base58.js';
import { normalizeYellowstoneTransaction } from '../src/live/yellowstone-normalize.js';

let recorded: RecordedGeyserTransaction[];
beforeAll(async () => {
  recorded = await loadRecordedGeyserTransactions(BUNDLED_RECORDING_DIR);
});

const update = (t: { info: SubscribeUpdateTransactionInfo; slot: number }): SubscribeUpdateTransaction => ({ transaction: t.info, slot: String(t.slot) });

/** Comparable form: instruction data as hex (Buffer vs Uint8Array views). */
function comparable(tx: NormalizedTransaction): unknown {
  const ix = (i: NormalizedTransaction['instructions'][number]['outer']) => ({ ...i, data: i.data === null ? null : Buffer.from(i.data).toString('hex') });
  return { ...tx, instructions: tx.instructions.map((n) => ({ outer: ix(n.outer), inner: n.inner.map(ix) })) };
}

describe('encodeBase58', () => {
  it('when given addresses, signatures and odd lengths with leading zeros, then it matches bs58', () => {
    for (let t = 0; t < 5000; t++) {
      const len = [32, 64, 0, 1, 2, 3, 31, 33, 65][t % 9]!;
      const b = new Uint8Array(randomBytes(len));
      if (t % 4 === 0) b.fill(0, 0, Math.min(len, t % 6));
      if (t % 17 === 0) b.fill(0);
      if (t % 19 === 0) b.fill(255);
      expect(encodeBase58(b)).toBe(bs58.encode(b));
    }
  });

  it('when two keys share a cache slot, then each still encodes to its own base58', () => {
    const a = new Uint8Array(randomBytes(32));
    const b = Uint8Array.from(a);
    b[10] = (b[10]! + 1) & 0xff; // same bytes 0, 1, 30, 31 → same slot
    for (let i = 0; i < 3; i++) {
      expect(addressToBase58(a)).toBe(bs58.encode(a));
      expect(addressToBase58(b)).toBe(bs58.encode(b));
    }
    expect(addressToBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
  });
});

describe('normalizeYellowstoneTransaction', () => {
  it('when given each recorded transaction rebuilt as a Yellowstone update, then it equals the getTransaction normalisation, at the commitment it was given', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(15);
    let trades = 0;
    for (const [i, t] of recorded.entries()) {
      const commitment = COMMITMENTS[i % COMMITMENTS.length]!;
      const ours = normalizeYellowstoneTransaction(update(t), commitment, t.blockTime === null ? null : t.blockTime * 1000);
      expect(ours.commitment).toBe(commitment);
      const rpc = normalizeTransaction(t.raw);
      // jsonParsed captures lost the bytes of System/Token instructions (data null, no accounts);
      // the rebuilt update carries them, so compare those positions on programId and path only.
      rpc.instructions.forEach((node, i) => {
        const mine = ours.instructions[i]!;
        [node.outer, ...node.inner].forEach((ix, j) => {
          if (ix.data !== null) return;
          const m = j === 0 ? mine.outer : mine.inner[j - 1]!;
          expect(m.data?.length).toBeGreaterThan(0);
          Object.assign(m, { data: null, accounts: [] });
        });
      });
      expect(comparable(ours), t.path).toEqual(comparable({ ...rpc, slot: t.slot, commitment }));
      const messages = decodeNormalized(ours);
      expect(messages, t.path).toEqual(decodeTransaction(t.raw).map((m) => ({ ...m, slot: t.slot, commitment })));
      trades += messages.length;
    }
    expect(trades).toBeGreaterThanOrEqual(15);
  });

  it('when meta.err holds a bincode InstructionError, then err is the decoded error and no trade is decoded', () => {
    const t = recorded.find((r) => decodeTransaction(r.raw).length > 0)!;
    const info = SubscribeUpdateTransactionInfo.fromPartial({
      ...t.info,
      meta: { ...t.info.meta!, err: { err: encodeTransactionError({ InstructionError: [2, { Custom: 6003 }] }) } },
    });
    const tx = normalizeYellowstoneTransaction({ transaction: info, slot: '5' }, 'processed');
    expect(tx.err).toEqual({ InstructionError: [2, { Custom: 6003 }] });
    expect(decodeNormalized(tx)).toEqual([]);
  });

  it('when logMessagesNone / innerInstructionsNone are set, then logs are null and there are no inner instructions', () => {
    const t = recorded[0]!;
    const info = SubscribeUpdateTransactionInfo.fromPartial({
      ...t.info,
      meta: { ...t.info.meta!, logMessages: [], logMessagesNone: true, innerInstructions: [], innerInstructionsNone: true },
    });
    const tx = normalizeYellowstoneTransaction({ transaction: info, slot: '7' }, 'processed');
    expect(tx.logs).toBeNull();
    expect(tx.instructions.every((n) => n.inner.length === 0)).toBe(true);
    expect(tx.slot).toBe(7);
    expect(tx.blockTimeMs).toBeNull();
  });

  it('when the update lacks meta or an index is out of range, then it throws DecodeError', () => {
    const t = recorded[0]!;
    expect(() => normalizeYellowstoneTransaction({ transaction: { ...t.info, meta: undefined }, slot: '1' }, 'processed')).toThrow(DecodeError);
    const message = t.info.transaction!.message!;
    const bad = {
      ...t.info,
      transaction: {
        ...t.info.transaction!,
        message: { ...message, instructions: [{ programIdIndex: 250, accounts: new Uint8Array(), data: new Uint8Array() }] },
      },
    };
    expect(() => normalizeYellowstoneTransaction({ transaction: bad, slot: '1' }, 'processed')).toThrow(/program account 250/);
  });
});

describe('buildSubscribeRequest', () => {
  it('when built with defaults, then it filters the four programs, no votes, no failed, at processed, without fromSlot', () => {
    const r = buildSubscribeRequest({ commitment: 'processed', programIds: TRADE_PROGRAM_IDS, includeFailed: false, fromSlot: null });
    expect(r.transactions).toEqual({
      tradewind: { vote: false, failed: false, accountInclude: [...TRADE_PROGRAM_IDS], accountExclude: [], accountRequired: [] },
    });
    expect(r.slots).toEqual({ tip: { filterByCommitment: true }, slot_status: { filterByCommitment: false, interslotUpdates: true } });
    expect(Object.keys(r.blocksMeta)).toEqual(['block_time']);
    expect(r.commitment).toBe(CommitmentLevel.PROCESSED);
    expect(r.fromSlot).toBeUndefined();
  });

  it('when resuming at confirmed with failed included, then fromSlot is the slot as a string and failed is unset', () => {
    const r = buildSubscribeRequest({ commitment: 'confirmed', programIds: TRADE_PROGRAM_IDS, includeFailed: true, fromSlot: 123_456_789 });
    expect(r.commitment).toBe(CommitmentLevel.CONFIRMED);
    expect(r.fromSlot).toBe('123456789');
    expect(r.transactions.tradewind!.failed).toBeUndefined();
  });
});

describe('backoffDelayMs', () => {
  it('when using the default policy, then delays are 1 s doubling to a 30 s cap', () => {
    expect(DEFAULT_BACKOFF).toEqual({ initialMs: 1000, maxMs: 30_000 });
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((a) => backoffDelayMs(a))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });
});
