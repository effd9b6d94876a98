import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DecodeError, decodeNormalized, decodeTransaction, messageId, subjectOf } from '../src/decode/index.js';
import type { TradeMessage } from '../src/decode/index.js';
import { GET_TRANSACTION_MIN_COMMITMENT, normalizeTransaction } from '../src/decode/transaction.js';
import { COMMITMENTS } from '../src/decode/types.js';
import type { NormalizedTransaction } from '../src/decode/transaction.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const recording = join(root, 'recording');
const files = ['pumpfun', 'launchlab', 'pumpswap', 'raydium-cpmm'].flatMap((d) =>
  readdirSync(join(recording, d))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${d}/${f}`),
);
const load = (rel: string): Record<string, unknown> => JSON.parse(readFileSync(join(recording, rel), 'utf8')) as Record<string, unknown>;
const byPrefix = (p: string): string => {
  const f = files.find((x) => x.startsWith(p));
  if (!f) throw new Error(`no recording ${p}`);
  return f;
};

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const validators = {
  'basic.pumpfun': ajv.compile(JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/basic.pumpfun.schema.json'), 'utf8')) as object),
  'basic.bonk': ajv.compile(JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/basic.bonk.schema.json'), 'utf8')) as object),
  'premium.pumpswap': ajv.compile(JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/premium.pumpswap.schema.json'), 'utf8')) as object),
  'premium.raydium': ajv.compile(JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/premium.raydium.schema.json'), 'utf8')) as object),
};

/** Messages expected per recording file (checked by hand against the explorer-equivalent balances). */
const EXPECTED: Record<string, string[]> = {
  'pumpfun/2ghH': ['BUY'],
  'pumpfun/2m5n': ['BUY'],
  'pumpfun/2s39': ['CREATE', 'BUY'],
  'pumpfun/33LH': ['BUY', 'SELL'],
  'pumpfun/3bYX': ['SELL'],
  'pumpfun/3sWB': ['CREATE', 'BUY'],
  'pumpfun/4U8k': ['BUY'],
  'pumpfun/5839': ['BUY'],
  'pumpfun/5EDH': ['CREATE', 'BUY'],
  // A late `migrate` ("Bonding curve already migrated": no event, nothing moved) → no pump.fun message;
  // the same transaction sells on PumpSwap (instruction 5.0) → one premium.pumpswap SELL.
  'pumpfun/5dnX': ['SELL'],
  'pumpfun/JBnr': ['BUY', 'BUY', 'BUY', 'BUY'],
  'pumpfun/36dH': ['SELL'],
  // migrate_v2 (2026): CompletePumpAmmMigrationEvent, then PumpSwap create_pool by CPI.
  'pumpfun/3gsR': ['MIGRATE', 'CREATE_POOL'],
  // A create that failed on-chain (mint already in use).
  'pumpfun/3zC4': [],
  'pumpfun/ZEu5': ['BUY'],
  'pumpfun/a9ty': ['CREATE', 'BUY'],
  // Creates with a dev buy (2024 legacy; 2025 + ExtendAccount + Buy via the fee program; 2026 CreateV2 + BuyV2).
  'pumpfun/661y': ['CREATE', 'BUY'],
  'pumpfun/3ejA': ['CREATE', 'BUY'],
  'pumpfun/2eVp': ['CREATE', 'BUY'],
  // Creates that failed on-chain: a CreateEvent logged before BuyV2 failed; three duplicate creates of
  // 661y…'s mint; one that failed before pump.fun ran. None may produce a message (or name a token).
  'pumpfun/3Guf': [],
  'pumpfun/2dab': [],
  'pumpfun/3LQK': [],
  'pumpfun/3MRW': [],
  'pumpfun/3QVp': [],
  'launchlab/1Dnj': ['SELL'],
  'launchlab/3USu': ['BUY'],
  'launchlab/mqSG': ['CREATE', 'BUY'],
  'pumpswap/27f6': ['SELL'],
  'pumpswap/2Z6p': ['WITHDRAW'],
  // pump.fun migrate (MIGRATE) CPIs PumpSwap create_pool (CREATE_POOL), then a buy in the new pool.
  'pumpswap/2ffH': ['MIGRATE', 'CREATE_POOL', 'BUY'],
  'pumpswap/59GX': ['BUY'],
  'pumpswap/63PQ': ['DEPOSIT'],
  // A sell that failed with ExceededSlippage.
  'pumpswap/3yWp': [],
  'pumpswap/4Urr': ['BUY'],
  'pumpswap/5FoZ': ['SELL'],
  // Failed on-chain (meta.err: Jupiter slippage): its CPMM SwapEvent log line was reverted → nothing.
  'raydium-cpmm/1tBM': [],
  'raydium-cpmm/2Eaw': ['SWAP'],
  'raydium-cpmm/2LMz': ['SWAP'],
  'raydium-cpmm/2bhr': ['SWAP'],
  // collect_creator_fee: not in the IDL (reported as unknown), no trade → nothing.
  'raydium-cpmm/5PpD': [],
};

function tokenDelta(tx: NormalizedTransaction, owner: string, mint: string): bigint {
  let d = 0n;
  for (const b of tx.postTokenBalances) if (b.owner === owner && b.mint === mint) d += BigInt(b.amount);
  for (const b of tx.preTokenBalances) if (b.owner === owner && b.mint === mint) d -= BigInt(b.amount);
  return d;
}

function accountTokenDelta(tx: NormalizedTransaction, address: string): bigint {
  const i = tx.accountKeys.indexOf(address);
  const at = (list: NormalizedTransaction['preTokenBalances']): bigint => BigInt(list.find((b) => b.accountIndex === i)?.amount ?? '0');
  return at(tx.postTokenBalances) - at(tx.preTokenBalances);
}

function lamportDelta(tx: NormalizedTransaction, address: string): { delta: bigint; pre: bigint } {
  const i = tx.accountKeys.indexOf(address);
  expect(i, `account ${address} in the transaction`).toBeGreaterThanOrEqual(0);
  return { delta: BigInt(tx.postBalances[i] ?? 0) - BigInt(tx.preBalances[i] ?? 0), pre: BigInt(tx.preBalances[i] ?? 0) };
}

const str = (m: TradeMessage, k: string): string => {
  const v = m[k];
  if (typeof v !== 'string') throw new Error(`${k} is ${JSON.stringify(v)}`);
  return v;
};

describe('decodeTransaction on the bundled recording', () => {
  it('when the recording is listed, then it holds exactly the expected files', () => {
    expect(files.map((f) => f.slice(0, f.indexOf('/') + 5)).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const rel of files) {
    it(`when ${rel.slice(0, 20)}… is decoded, then its messages match the expected kinds and validate`, () => {
      const msgs = decodeTransaction(load(rel));
      expect(msgs.map((m) => m.transaction_type)).toEqual(EXPECTED[rel.slice(0, rel.indexOf('/') + 5)]);
      const sig = rel.slice(rel.indexOf('/') + 1, -'.json'.length);
      for (const m of msgs) {
        expect(m.signature).toBe(sig);
        const validate = validators[subjectOf(m)];
        expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
        expect(JSON.parse(JSON.stringify(m))).toEqual(m);
        const suffix = m.transaction_type === 'COMPLETE' ? ':COMPLETE' : '';
        expect(messageId(m)).toBe(`${sig}:${m.instruction_path.join('.')}${suffix}`);
      }
    });
  }
});

describe('commitment', () => {
  const sample = files.filter((f) => decodeTransaction(load(f)).length > 0);

  it('when a getTransaction result is decoded without a commitment, then its messages say confirmed, the least getTransaction serves', () => {
    expect(GET_TRANSACTION_MIN_COMMITMENT).toBe('confirmed');
    for (const rel of sample) for (const m of decodeTransaction(load(rel))) expect(m.commitment, rel).toBe('confirmed');
  });

  it('when normalised at each commitment, then every message carries it right after slot, validates, and differs in nothing else', () => {
    expect(sample.length).toBeGreaterThanOrEqual(20);
    for (const rel of sample) {
      const raw = load(rel);
      const [first, ...others] = COMMITMENTS.map((c) => {
        const msgs = decodeNormalized(normalizeTransaction(raw, c));
        for (const m of msgs) {
          expect(m.commitment, rel).toBe(c);
          expect(Object.keys(m).slice(0, 6), rel).toEqual(['source', 'transaction_type', 'signature', 'slot', 'commitment', 'block_time_ms']);
          const validate = validators[subjectOf(m)];
          expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
        }
        // The serialised message with the field taken out: what it was before the field existed.
        return msgs.map((m) => JSON.stringify(m).replace(`,"commitment":"${c}"`, ''));
      });
      for (const o of others) expect(o, rel).toEqual(first);
      expect(first!.join('\n')).not.toContain('"commitment"');
    }
  });

  it("when the subject schemas are read, then each requires commitment right after slot, with the decoder's levels as its enum", () => {
    for (const subject of Object.keys(validators)) {
      const schema = JSON.parse(readFileSync(join(root, `../../packages/contracts/schemas/${subject}.schema.json`), 'utf8')) as {
        required: string[];
        properties: Record<string, { enum?: string[] }>;
      };
      expect(schema.required.slice(schema.required.indexOf('slot'), schema.required.indexOf('slot') + 3), subject).toEqual([
        'slot',
        'commitment',
        'block_time_ms',
      ]);
      const names = Object.keys(schema.properties);
      expect(names.slice(names.indexOf('slot'), names.indexOf('slot') + 3), subject).toEqual(['slot', 'commitment', 'block_time_ms']);
      expect(schema.properties.commitment?.enum, subject).toEqual([...COMMITMENTS]);
    }
  });

  it('when a message lacks commitment or names another level, then its subject schema rejects it', () => {
    for (const rel of ['pumpfun/JBnr', 'launchlab/mqSG', 'pumpswap/2ffH', 'raydium-cpmm/2Eaw']) {
      for (const m of decodeTransaction(load(byPrefix(rel)))) {
        const validate = validators[subjectOf(m)];
        const { commitment: _c, ...without } = m;
        expect(validate(without), `${rel} without commitment`).toBe(false);
        expect(validate.errors?.some((e) => e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'commitment')).toBe(
          true,
        );
        for (const bad of ['recent', 'max', 'Confirmed', null]) {
          expect(validate({ ...m, commitment: bad }), `${rel} commitment ${String(bad)}`).toBe(false);
        }
      }
    }
  });
});

describe('agreement with the chain balances', () => {
  for (const rel of files.filter((f) => f.startsWith('pumpfun/'))) {
    it(`when ${rel.slice(0, 20)}… is decoded, then token and SOL balance changes equal the trade amounts`, () => {
      const raw = load(rel);
      const tx = normalizeTransaction(raw);
      // pump.fun messages only (pumpfun/5dnX also sells on PumpSwap; AMM agreement: test/decode-amm.test.ts).
      const trades = decodeTransaction(raw).filter((m) => m.source === 'pumpfun' && (m.transaction_type === 'BUY' || m.transaction_type === 'SELL'));
      // Σ signed token_amount per (user, mint) = the user's token-balance change (several trades may touch one user).
      const perUser = new Map<string, bigint>();
      const perCurve = new Map<string, bigint>();
      for (const m of trades) {
        const sign = m.side === 'buy' ? 1n : -1n;
        const k = `${str(m, 'user')}|${str(m, 'mint')}`;
        perUser.set(k, (perUser.get(k) ?? 0n) + sign * BigInt(str(m, 'token_amount')));
        perCurve.set(m.bonding_curve as string, (perCurve.get(m.bonding_curve as string) ?? 0n) + sign * BigInt(str(m, 'sol_amount')));
      }
      for (const [k, v] of perUser) {
        const [user, mint] = k.split('|') as [string, string];
        expect(tokenDelta(tx, user, mint)).toBe(v);
      }
      // The curve's lamports move by exactly Σ signed sol_amount (fees go to other accounts), plus the
      // rent-exempt deposit when this transaction created the curve: (128 + data bytes) × lamports per
      // byte, read off each create's System CreateAccount (+ ExtendAccount transfer): 49/81/115-byte
      // BondingCurve accounts at 6960 in 2024/2025/2026-07, 82 bytes extended to 151 by ExtendAccount
      // (pumpfun/3ejA…, 2025-12), 141 bytes at 5080 (pumpfun/2eVp…, 2026-10, the rate of every account the
      // 2026-10 PumpSwap recordings create).
      for (const [curve, v] of perCurve) {
        const { delta, pre } = lamportDelta(tx, curve);
        const rent = pre === 0n ? delta - v : 0n;
        expect(delta - rent).toBe(v);
        if (pre === 0n)
          expect([(128n + 49n) * 6960n, (128n + 81n) * 6960n, (128n + 115n) * 6960n, (128n + 151n) * 6960n, (128n + 141n) * 5080n]).toContain(rent);
      }
      // 2025 layout: the fee recipient gets exactly `fee`.
      for (const m of trades) {
        if (m.fee !== undefined && m.buyback_fee === undefined) expect(lamportDelta(tx, str(m, 'fee_recipient')).delta).toBe(BigInt(str(m, 'fee')));
      }
    });
  }

  it('when the first trade of each file is checked by hand, then the known amounts come out', () => {
    const first = (p: string): TradeMessage => {
      const m = decodeTransaction(load(byPrefix(p))).find((x) => x.transaction_type !== 'CREATE');
      if (!m) throw new Error(p);
      return m;
    };
    // Values read off meta.pre/postTokenBalances and pre/postBalances of each file.
    expect([first('pumpfun/2ghH').token_amount, first('pumpfun/2ghH').sol_amount]).toEqual(['2878556000000', '129814469']);
    expect([first('pumpfun/3bYX').token_amount, first('pumpfun/3bYX').sol_amount]).toEqual(['592443959000000', '37437283903']);
    expect([first('pumpfun/4U8k').token_amount, first('pumpfun/4U8k').sol_amount]).toEqual(['56716561396327', '3000000000']);
    expect(first('pumpfun/a9ty').fee).toBe('38000000');
    expect(first('pumpfun/2m5n')).toMatchObject({ quote_amount: '3517192', token_amount: '445377137871', quote_amount_ui: 3.517192 });
    expect(first('pumpfun/2m5n').price_sol).toBeUndefined();
    expect(first('launchlab/3USu')).toMatchObject({ sol_amount: '654952192', token_amount: '16967820845269', pool_status: 'Fund' });
    expect(first('launchlab/1Dnj')).toMatchObject({ sol_amount: '910038594', token_amount: '16853904100388', exact_in: true });
  });

  it('when a 2024 pump.fun TradeEvent (121 B) is decoded, then the 2025+ fields are absent, not null', () => {
    const m = decodeTransaction(load(byPrefix('pumpfun/JBnr')))[0];
    expect(m).toBeDefined();
    for (const k of ['fee', 'creator', 'fee_recipient', 'creator_fee', 'ix_name']) expect(m && k in m).toBe(false);
    expect(m?.price_sol).toBeCloseTo(31.886100226 / 1009530791.558799, 18);
  });

  for (const prefix of ['launchlab/3USu', 'launchlab/mqSG', 'launchlab/1Dnj']) {
    it(`when ${prefix} is decoded, then vault and trader balances agree with the TradeEvent`, () => {
      const raw = load(byPrefix(prefix));
      const tx = normalizeTransaction(raw);
      for (const m of decodeTransaction(raw)) {
        if (m.transaction_type === 'CREATE') continue;
        const n = (k: string): bigint => BigInt(m[k] === undefined ? '0' : str(m, k));
        const fees = n('protocol_fee') + n('platform_fee') + n('creator_fee') + n('share_fee');
        const buy = m.side === 'buy';
        // The curve's accounting: real_quote moves by the trader's quote net of every fee.
        expect(n('real_quote_after') - n('real_quote_before')).toBe(buy ? n('amount_in') - fees : -(n('amount_out') + fees));
        // The quote vault: in the 2025 program (130-byte event) all fees stay in the vault until collected;
        // in the 2026 program (139-byte event, creator_fee present) platform and creator fees leave for their fee vaults.
        const leaving = m.creator_fee === undefined ? 0n : n('platform_fee') + n('creator_fee');
        expect(accountTokenDelta(tx, str(m, 'quote_vault'))).toBe((buy ? n('amount_in') : -n('amount_out')) - leaving);
        // The base vault: −token_amount on buy, +token_amount on sell; a create in the same tx mints the supply into it first.
        const minted = prefix === 'launchlab/mqSG' ? 1_000_000_000_000_000n : 0n;
        expect(accountTokenDelta(tx, str(m, 'base_vault'))).toBe(minted + (buy ? -n('token_amount') : n('token_amount')));
        const trader = tokenDelta(tx, str(m, 'payer'), str(m, 'base_mint'));
        if (prefix === 'launchlab/1Dnj') {
          // Token-2022 mint with a 1% transfer fee: the trader sends gross G, the vault receives G − ceil(G/100) = token_amount.
          const gross = -trader;
          expect(gross - (gross + 99n) / 100n).toBe(n('token_amount'));
        } else {
          expect(trader).toBe(buy ? n('token_amount') : -n('token_amount'));
        }
      }
    });
  }

  it('when the 2025 LaunchLab event (130 B) is decoded, then the legacy layout is used: no creator_fee, share_fee and enums read right', () => {
    const m = decodeTransaction(load(byPrefix('launchlab/mqSG')))[1];
    expect(m).toMatchObject({ share_fee: '0', trade_direction: 'Buy', pool_status: 'Fund', protocol_fee: '2500000', platform_fee: '7500000' });
    expect(m && 'creator_fee' in m).toBe(false);
    expect(m && 'exact_in' in m).toBe(false);
  });
});

describe('ordering, encodings, failures and bad input', () => {
  it('when a bundle of 4 pump.fun buys is decoded, then messages come in instruction order with distinct paths', () => {
    const msgs = decodeTransaction(load(byPrefix('pumpfun/JBnr')));
    expect(msgs.map((m) => m.instruction_path)).toEqual([[1], [3], [5], [7]]);
    expect(new Set(msgs.map(messageId)).size).toBe(4);
    expect(msgs.map((m) => m.user)).toEqual([
      'Gh6D6DZcASQLc2XoLpctT74KbRr4nrHF8wNptweckHoA',
      '7SPkzf8DSxdemSKMEEKquRKEYrdDjcuHaQwac5nvnB4b',
      'GdCFP1doq784rQTHJDuvpLchVWoMtJwdAM8MQTCHWTuz',
      '8rL9duqqeBRzZZyiz77xgfzDUdbR99TPjmVk5D1LNHuL',
    ]);
  });

  it('when jsonParsed, base64 legacy, base64 v0 and base64 v1 captures are decoded, then each yields its trade', () => {
    const cases: [string, string, number[]][] = [
      ['pumpfun/33LH', 'jsonParsed', [2]],
      ['pumpfun/2m5n', 'jsonParsed', [2, 0]],
      ['pumpfun/2ghH', 'base64 legacy', [2]],
      ['pumpfun/3sWB', 'base64 v0', [5]],
      ['launchlab/3USu', 'base64 v0 + lookup table', [6]],
      ['launchlab/1Dnj', 'base64 v1 (SIMD-0385)', [1, 0]],
    ];
    for (const [p, what, path] of cases) {
      const msgs = decodeTransaction(load(byPrefix(p)));
      expect(msgs.find((m) => m.transaction_type !== 'CREATE')?.instruction_path, what).toEqual(path);
    }
    const v1 = load(byPrefix('launchlab/1Dnj'));
    expect(v1.version).toBe(1);
    expect(((v1.transaction as string[])[0] ?? '').startsWith('gQ')).toBe(true); // 0x81
    expect(normalizeTransaction(v1).accountKeys).toHaveLength(36);
  });

  it('when a JSON-RPC envelope wraps the result, then it decodes the same', () => {
    const raw = load(byPrefix('pumpfun/4U8k'));
    expect(decodeTransaction({ jsonrpc: '2.0', id: 1, result: raw })).toEqual(decodeTransaction(raw));
  });

  it('when the transaction failed (meta.err set), then no trades are produced', () => {
    const raw = load(byPrefix('pumpfun/JBnr'));
    const failed = { ...raw, meta: { ...(raw.meta as object), err: { InstructionError: [1, { Custom: 6002 }] } } };
    expect(decodeTransaction(raw)).toHaveLength(4);
    expect(decodeTransaction(failed)).toEqual([]);
  });

  it('when logs are missing, then emit_cpi inner instructions still give the trade; when inner events are missing, logs do', () => {
    const raw = load(byPrefix('pumpfun/ZEu5'));
    const meta = raw.meta as Record<string, unknown>;
    const expected = decodeTransaction(raw);
    expect(decodeTransaction({ ...raw, meta: { ...meta, logMessages: null } })).toEqual(expected);
    const stripped = (meta.innerInstructions as { index: number; instructions: { data: string }[] }[]).map((g) => ({
      ...g,
      // Replace each emit_cpi event with a no-op so only the log lines can supply the event.
      instructions: g.instructions.map((ix) => (ix.data.length > 100 ? { ...ix, data: '1' } : ix)),
    }));
    expect(decodeTransaction({ ...raw, meta: { ...meta, innerInstructions: stripped } })).toEqual(expected);
  });

  it('when the input is not a transaction, then DecodeError says why', () => {
    const bad: [unknown, RegExp][] = [
      [[{ signature: 'x' }], /array/],
      [null, /null/],
      ['hello', /string/],
      [{ foo: 1 }, /no "transaction"/],
      [{ transaction: {}, meta: {} }, /message/],
      [{ transaction: ['AAAA', 'base64'], meta: {} }, /not a Solana transaction/],
      [{ transaction: { signatures: ['x'], message: { accountKeys: [], instructions: [] } } }, /meta/],
    ];
    for (const [input, reason] of bad) {
      let err: unknown;
      try {
        decodeTransaction(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DecodeError);
      expect((err as DecodeError).code).toBe('invalid_argument');
      expect((err as Error).message).toMatch(reason);
    }
  });
});
