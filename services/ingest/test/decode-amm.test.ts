/**
 * PumpSwap and Raydium CPMM decoding checked against what the chain recorded:
 * every amount a message states is compared, as an exact integer, with the
 * token / lamport balance changes in the same transaction's meta. Where the
 * two cannot be equal (routers, temporary accounts, tips) the comment says why
 * and the test checks the movement that carries the amount instead.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeTransaction, subjectOf } from '../src/decode/index.js';
import type { TradeMessage } from '../src/decode/index.js';
import { decodeInstructionArgs } from '../src/decode/anchor-values.js';
import { pumpAmmCodec, raydiumCpmmCodec } from '../src/decode/idl.js';
import { account, programCalls, WSOL_MINT } from '../src/decode/program.js';
import type { ProgramCall } from '../src/decode/program.js';
import { pumpswapCodec } from '../src/decode/pumpswap.js';
import { normalizeTransaction } from '../src/decode/transaction.js';
import type { NormalizedTransaction } from '../src/decode/transaction.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const recording = join(root, 'recording');
const list = (d: string): string[] =>
  readdirSync(join(recording, d))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${d}/${f}`);
const byPrefix = (p: string): string => {
  const [dir = '', start = ''] = p.split('/');
  const f = list(dir).find((x) => x.startsWith(`${dir}/${start}`));
  if (!f) throw new Error(`no recording ${p}`);
  return f;
};
const load = (rel: string): Record<string, unknown> => JSON.parse(readFileSync(join(recording, rel), 'utf8')) as Record<string, unknown>;
const isAmm = (m: TradeMessage): boolean => m.source === 'pumpswap' || m.source === 'raydium_cpmm';
/** AMM messages of a recording file, with its normalised transaction. */
function decoded(prefix: string): { tx: NormalizedTransaction; msgs: TradeMessage[] } {
  const raw = load(byPrefix(prefix));
  return { tx: normalizeTransaction(raw), msgs: decodeTransaction(raw).filter(isAmm) };
}

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const validators: Record<string, ReturnType<typeof ajv.compile>> = {
  'premium.pumpswap': ajv.compile(JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/premium.pumpswap.schema.json'), 'utf8')) as object),
  'premium.raydium': ajv.compile(JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/premium.raydium.schema.json'), 'utf8')) as object),
};

/** AMM messages expected per recording file: every pumpswap / raydium-cpmm file, and pumpfun/5dnX, which also sells on PumpSwap. */
const EXPECTED: Record<string, { kinds: string[]; paths: number[][] }> = {
  'pumpswap/27f6': { kinds: ['SELL'], paths: [[3, 5]] }, // CPI from a router
  'pumpswap/2Z6p': { kinds: ['WITHDRAW'], paths: [[3]] },
  'pumpswap/2ffH': { kinds: ['CREATE_POOL', 'BUY'], paths: [[0, 22], [3]] }, // create_pool by CPI from pump.fun migrate
  'pumpswap/59GX': { kinds: ['BUY'], paths: [[4]] },
  'pumpswap/63PQ': { kinds: ['DEPOSIT'], paths: [[6]] },
  'pumpfun/5dnX': { kinds: ['SELL'], paths: [[5, 0]] },
  'pumpfun/3gsR': { kinds: ['CREATE_POOL'], paths: [[2, 22]] }, // 2026 create_pool by CPI from pump.fun migrate_v2
  'pumpswap/3yWp': { kinds: [], paths: [] }, // failed on-chain (ExceededSlippage)
  'pumpswap/4Urr': { kinds: ['BUY'], paths: [[6]] }, // 2026 buy_exact_quote_in
  'pumpswap/5FoZ': { kinds: ['SELL'], paths: [[1]] }, // 2026 sell
  'raydium-cpmm/1tBM': { kinds: [], paths: [] }, // failed on-chain
  'raydium-cpmm/2Eaw': { kinds: ['SWAP'], paths: [[0, 0]] },
  'raydium-cpmm/2LMz': { kinds: ['SWAP'], paths: [[2, 15]] },
  'raydium-cpmm/2bhr': { kinds: ['SWAP'], paths: [[3, 0]] },
  'raydium-cpmm/5PpD': { kinds: [], paths: [] }, // collect_creator_fee only
};

function tokenAmount(list: NormalizedTransaction['preTokenBalances'], i: number): bigint | undefined {
  const b = list.find((x) => x.accountIndex === i);
  return b === undefined ? undefined : BigInt(b.amount);
}
/** Token balance change of one token account (an account absent before or after counts as 0 there). */
function tokenDelta(tx: NormalizedTransaction, address: string): bigint {
  const i = tx.accountKeys.indexOf(address);
  expect(i, `token account ${address} in the transaction`).toBeGreaterThanOrEqual(0);
  return (tokenAmount(tx.postTokenBalances, i) ?? 0n) - (tokenAmount(tx.preTokenBalances, i) ?? 0n);
}
function tokenPre(tx: NormalizedTransaction, address: string): bigint | undefined {
  return tokenAmount(tx.preTokenBalances, tx.accountKeys.indexOf(address));
}
function tokenPost(tx: NormalizedTransaction, address: string): bigint | undefined {
  return tokenAmount(tx.postTokenBalances, tx.accountKeys.indexOf(address));
}
/** Whether the account has a token balance entry at all (temporary accounts created and closed in the tx have none). */
function hasTokenBalance(tx: NormalizedTransaction, address: string): boolean {
  const i = tx.accountKeys.indexOf(address);
  return [...tx.preTokenBalances, ...tx.postTokenBalances].some((b) => b.accountIndex === i);
}
function lamportDelta(tx: NormalizedTransaction, address: string): bigint {
  const i = tx.accountKeys.indexOf(address);
  expect(i, `account ${address} in the transaction`).toBeGreaterThanOrEqual(0);
  return BigInt(tx.postBalances[i] ?? 0) - BigInt(tx.preBalances[i] ?? 0);
}
const n = (m: TradeMessage, k: string): bigint => {
  const v = m[k];
  if (typeof v !== 'string') throw new Error(`${k} is ${JSON.stringify(v)}`);
  return BigInt(v);
};
const s = (m: TradeMessage, k: string): string => {
  const v = m[k];
  if (typeof v !== 'string') throw new Error(`${k} is ${JSON.stringify(v)}`);
  return v;
};

/**
 * Signed change of a PumpSwap pool's base and quote vaults the message implies (the program's transfers).
 * BUY: the quote vault receives quote_amount_in_with_lp_fee (curve input + LP fee) for buy and
 * buy_exact_quote_in alike; the other fees leave the user's account for their own recipients (see
 * the fee checks). Not quote_amount_in + lp_fee: buy_exact_quote_in puts the all-in spend in
 * quote_amount_in (4Urr…: + 1 863 068 + 3 690 would overshoot the vault's + 1 848 310 by 18 448 =
 * lp_fee 3 690 + protocol_fee 923 + coin_creator_fee 13 835).
 */
function pumpswapVaultDeltas(m: TradeMessage): { base: bigint; quote: bigint } {
  switch (m.transaction_type) {
    case 'BUY':
      return { base: -n(m, 'base_amount_out'), quote: n(m, 'quote_amount_in_with_lp_fee') };
    case 'SELL': // base in; quote out net of the LP fee, which stays
      return { base: n(m, 'base_amount_in'), quote: -(n(m, 'quote_amount_out') - n(m, 'lp_fee')) };
    case 'DEPOSIT':
      return { base: n(m, 'base_amount_in'), quote: n(m, 'quote_amount_in') };
    case 'WITHDRAW':
      return { base: -n(m, 'base_amount_out'), quote: -n(m, 'quote_amount_out') };
    case 'CREATE_POOL':
      return { base: n(m, 'pool_base_amount'), quote: n(m, 'pool_quote_amount') };
    default:
      throw new Error(m.transaction_type);
  }
}

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/**
 * The System Program CreateAccount (instruction 0: u32 0, u64 lamports, u64 space, owner) that
 * created `address` in this transaction, top-level or CPI: the lamports it was funded with (its
 * rent-exempt deposit) and its data size.
 */
function createdBy(tx: NormalizedTransaction, address: string): { lamports: bigint; space: bigint } | undefined {
  for (const node of tx.instructions) {
    for (const ix of [node.outer, ...node.inner]) {
      if (ix.programId !== SYSTEM_PROGRAM || ix.data === null || ix.data.length < 52 || ix.accounts[1] !== address) continue;
      const dv = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.length);
      if (dv.getUint32(0, true) !== 0) continue;
      return { lamports: dv.getBigUint64(4, true), space: dv.getBigUint64(12, true) };
    }
  }
  return undefined;
}
/**
 * Rent-exempt deposit per byte (incl. the 128-byte account overhead) the recorded transactions paid:
 * 6960 lamports in the 2025 ones (a 165-byte token account: 293 × 6960 = 2 039 280), 5080 in the
 * 2026-10 ones (293 × 5080 = 1 488 440). Checked on every account created in the PumpSwap
 * recordings (test "rent" below), e.g. 3gsR…: the pool (287 B) 2 108 200, the LP mint (82 B)
 * 1 066 800, Token-2022 accounts (170 B) 1 513 840; 4Urr…: user_volume_accumulator (137 B) 1 346 200.
 */
// When the rate changed is not known (somewhere between the newest 2025 PumpSwap file, 2025-07-29, and the
// oldest 2026-10 one); the PumpSwap recordings have nothing in between, so the year picks the rate.
const rentPerByte = (tx: NormalizedTransaction): bigint => ((tx.blockTimeMs ?? 0) < Date.UTC(2026, 0, 1) ? 6960n : 5080n);
/** Owner recorded for a token account (post balance, else pre). */
function tokenOwner(tx: NormalizedTransaction, address: string): string | null | undefined {
  const i = tx.accountKeys.indexOf(address);
  return (tx.postTokenBalances.find((b) => b.accountIndex === i) ?? tx.preTokenBalances.find((b) => b.accountIndex === i))?.owner;
}
/**
 * The 8 buyback fee recipients, @pump-fun/pump-sdk 2.0.0 src/bondingCurve.ts
 * CURRENT_FEE_RECIPIENTS_FOR_BUYBACK (the same list PumpSwap's global config holds).
 */
const BUYBACK_FEE_RECIPIENTS = [
  '5YxQFdt3Tr9zJLvkFccqXVUwhdTWJQc1fFg2YPbxvxeD',
  '9M4giFFMxmFGXtc3feFzRai56WbBqehoSeRE5GK7gf7',
  'GXPFM2caqTtQYC2cJ5yJRi9VDkpsYZXzYdwYpGnLmtDL',
  '3BpXnfJaUTiwXnJNe7Ej1rcbzqTTQUvLShZaWazebsVR',
  '5cjcW9wExnJJiqgLjq7DEG75Pm6JBgE1hNv4B2vHXUW6',
  'EHAAiTxcdDwQ3U4bU6YcMsQGaekdzLS3B5SmYo46kJtL',
  '5eHhjP8JaYkz83CWwvGU2uMUXefd3AazWGx4gpcuEEYD',
  'A7hAgCzFw14fejgCp387JUJRMNyz4j89JKnhtKU8piqW',
];
/** The InitBoostEvent of an init_boost call, as integers. */
function initBoost(call: ProgramCall): { boost: bigint; vaultAfter: bigint } {
  const ev = call.events.find((e) => e.name === 'InitBoostEvent');
  if (!ev) throw new Error('init_boost without InitBoostEvent');
  return { boost: BigInt(ev.values.virtual_quote_reserves as string), vaultAfter: BigInt(ev.values.real_quote_reserves_after as string) };
}

describe('AMM messages of the bundled recording', () => {
  for (const [prefix, want] of Object.entries(EXPECTED)) {
    it(`when ${prefix}… is decoded, then its AMM messages are ${JSON.stringify(want.kinds)} at ${JSON.stringify(want.paths)} and validate`, () => {
      const { msgs } = decoded(prefix);
      expect(msgs.map((m) => m.transaction_type)).toEqual(want.kinds);
      expect(msgs.map((m) => m.instruction_path)).toEqual(want.paths);
      for (const m of msgs) {
        const validate = validators[subjectOf(m)];
        expect(validate, subjectOf(m)).toBeDefined();
        expect(validate?.(m), JSON.stringify(validate?.errors)).toBe(true);
      }
    });
  }

  it('when every pumpswap / raydium-cpmm file is listed, then each has an expectation', () => {
    const files = [...list('pumpswap'), ...list('raydium-cpmm')].map((f) => f.slice(0, f.indexOf('/') + 5));
    expect(files.sort()).toEqual(
      Object.keys(EXPECTED)
        .filter((k) => !k.startsWith('pumpfun/'))
        .sort(),
    );
  });
});

describe('PumpSwap: decoded amounts equal the chain balance changes', () => {
  const files = [
    'pumpswap/27f6',
    'pumpswap/2Z6p',
    'pumpswap/2ffH',
    'pumpswap/59GX',
    'pumpswap/63PQ',
    'pumpfun/5dnX',
    'pumpswap/4Urr',
    'pumpswap/5FoZ',
    'pumpfun/3gsR',
  ];

  for (const prefix of files) {
    it(`when ${prefix}… is decoded, then the pool vaults move exactly as the events say, before and after match, and fees land where stated`, () => {
      const { tx, msgs } = decoded(prefix);
      expect(msgs.length).toBeGreaterThan(0);
      const calls = programCalls(tx, pumpswapCodec());
      const callOf = (m: TradeMessage): ProgramCall => {
        const c = calls.find((x) => x.ix.path.join('.') === m.instruction_path.join('.'));
        if (!c) throw new Error(`no call at ${m.instruction_path.join('.')}`);
        return c;
      };
      const messageAt = (c: ProgramCall): TradeMessage | undefined => msgs.find((m) => m.instruction_path.join('.') === c.ix.path.join('.'));
      // Walk the messages in execution order, keeping each vault's running balance from
      // meta.preTokenBalances. init_boost yields no message but moves quote out of the vault: a
      // pump.fun migrate_v2 (3gsR…) calls create_pool, which deposits pool_quote_amount
      // (84 990 359 056), then init_boost, which transfers the boost (InitBoostEvent
      // virtual_quote_reserves, 17 584 505 288) from the quote vault to the boost vault and counts it
      // as virtual_quote_reserves instead: the vault ends at 67 405 853 768 (= InitBoostEvent
      // real_quote_reserves_after = meta.postTokenBalances), the effective reserves stay 84 990 359 056.
      const running = new Map<string, bigint>();
      const boosts = new Map<string, bigint>();
      const steps = calls.filter((c) => c.def.name === 'init_boost' || messageAt(c) !== undefined).sort((a, b) => a.order - b.order);
      for (const c of steps) {
        const m = messageAt(c);
        if (!m) {
          const vault = account(c, 'pool_quote_token_account') ?? '';
          const boostVault = account(c, 'boost_vault') ?? '';
          const { boost, vaultAfter } = initBoost(c);
          running.set(vault, (running.get(vault) ?? tokenPre(tx, vault) ?? 0n) - boost);
          expect(running.get(vault), 'init_boost: vault after').toBe(vaultAfter);
          expect(tokenPre(tx, boostVault)).toBeUndefined(); // created by init_boost
          expect(tokenPost(tx, boostVault)).toBe(boost);
          const rent = createdBy(tx, boostVault);
          expect(rent?.space).toBe(165n);
          expect(lamportDelta(tx, boostVault)).toBe(boost + (rent?.lamports ?? -1n)); // WSOL: lamports move with the tokens
          boosts.set(vault, boost);
          continue;
        }
        const baseVault = s(m, 'pool_base_token_account');
        const quoteVault = s(m, 'pool_quote_token_account');
        for (const v of [baseVault, quoteVault]) if (!running.has(v)) running.set(v, tokenPre(tx, v) ?? 0n);
        if (m.transaction_type !== 'CREATE_POOL') {
          // The events' pool_*_token_reserves are the vault balances BEFORE the instruction.
          expect(n(m, 'pool_base_token_reserves')).toBe(running.get(baseVault));
          expect(n(m, 'pool_quote_token_reserves')).toBe(running.get(quoteVault));
        } else {
          expect(running.get(baseVault)).toBe(0n); // the vaults are created by create_pool
        }
        const d = pumpswapVaultDeltas(m);
        running.set(baseVault, (running.get(baseVault) ?? 0n) + d.base);
        running.set(quoteVault, (running.get(quoteVault) ?? 0n) + d.quote);
        expect(n(m, 'pool_base_token_reserves_after')).toBe(running.get(baseVault));
        expect(n(m, 'pool_quote_token_reserves_after')).toBe(running.get(quoteVault));
      }
      for (const [vault, balance] of running) expect(tokenPost(tx, vault), vault).toBe(balance);
      if (prefix === 'pumpfun/3gsR') {
        const c = msgs[0] as TradeMessage;
        expect(boosts.get(s(c, 'pool_quote_token_account'))).toBe(17_584_505_288n);
        expect(tokenPost(tx, s(c, 'pool_quote_token_account'))).toBe(n(c, 'pool_quote_amount') - 17_584_505_288n); // 67 405 853 768
      } else {
        expect(boosts.size).toBe(0);
      }

      // WSOL quote vaults hold the SOL as lamports too: the same change, plus the rent-exempt
      // deposit of the System CreateAccount that made the vault here: (128 + 165) × 6960 =
      // 2 039 280 in 2025 (2ffH…), (128 + 165) × 5080 = 1 488 440 in 2026-10 (3gsR…).
      for (const m of msgs) {
        const q = s(m, 'pool_quote_token_account');
        if (m.quote_mint !== WSOL_MINT) continue;
        let created = 0n;
        if (tokenPre(tx, q) === undefined) {
          const c = createdBy(tx, q);
          expect(c?.space).toBe(165n);
          expect(c?.lamports).toBe(293n * rentPerByte(tx));
          created = c?.lamports ?? 0n;
        }
        expect(lamportDelta(tx, q)).toBe(tokenDelta(tx, q) + created);
      }

      // Fees. The coin creator fee reaches the creator vault ATA (instruction account
      // coin_creator_vault_ata). The protocol fee reaches the protocol fee recipient's token account,
      // except, in 2026 events, its buyback part: buyback_fee = floor(protocol_fee ×
      // buyback_fee_basis_points / 10000) goes to a buyback fee recipient's token account, the
      // instruction's last account (pump-swap-sdk src/sdk/offlinePumpAmm.ts: remaining accounts
      // [cashback ATA][pool-v2 PDA] buyback_fee_recipient, its token account). 4Urr…: protocol_fee
      // 923 = 462 to 94qW… + 461 to CASR… (owner 5eHh…); 5FoZ…: 65 = 33 to Bvtg… + 32 to 6rVk…
      // (owner 3BpX…). Σ per account.
      const perAccount = new Map<string, bigint>();
      const add = (a: string, v: bigint): void => void perAccount.set(a, (perAccount.get(a) ?? 0n) + v);
      for (const m of msgs) {
        if (m.transaction_type !== 'BUY' && m.transaction_type !== 'SELL') continue;
        const call = callOf(m);
        const buyback = m.buyback_fee === undefined ? 0n : n(m, 'buyback_fee');
        add(s(m, 'protocol_fee_recipient_token_account'), n(m, 'protocol_fee') - buyback);
        if (m.buyback_fee !== undefined) {
          expect(buyback).toBe((n(m, 'protocol_fee') * n(m, 'buyback_fee_basis_points')) / 10_000n);
          const [recipient, recipientAta] = call.ix.accounts.slice(-2);
          expect(BUYBACK_FEE_RECIPIENTS).toContain(recipient);
          expect(tokenOwner(tx, recipientAta ?? '')).toBe(recipient);
          add(recipientAta ?? '', buyback);
        }
        const creatorVault = account(call, 'coin_creator_vault_ata');
        if (creatorVault) add(creatorVault, n(m, 'coin_creator_fee'));
        // Cashback and holder rewards would be further payouts; none of the recorded trades has any.
        for (const k of ['cashback', 'holder_rewards']) if (k in m) expect(m[k], k).toBe('0');
        // The event's own arithmetic: what the user paid / got = curve amount ± every fee.
        const fees = n(m, 'lp_fee') + n(m, 'protocol_fee') + n(m, 'coin_creator_fee');
        if (m.transaction_type === 'SELL') {
          expect(n(m, 'quote_amount_out') - fees).toBe(n(m, 'user_quote_amount_out'));
          expect(m.user_quote_amount).toBe(m.user_quote_amount_out);
          continue;
        }
        if (m.ix_name !== undefined) expect(m.ix_name).toBe(call.def.name);
        if (call.def.name === 'buy_exact_quote_in') {
          // buy_exact_quote_in fills the BuyEvent the other way round (4Urr…): quote_amount_in is the
          // all-in spend = the spendable_quote_in argument (1 863 068), user_quote_amount_in the curve
          // input net of all fees (1 844 620; pump-swap-sdk buyQuoteSimulation.spec.ts:
          // internalQuoteWithoutFees). The message's user_quote_amount is the spend.
          const args = decodeInstructionArgs(pumpswapCodec(), call.ix.data ?? new Uint8Array(), call.def.name);
          expect(m.quote_amount_in).toBe(args.spendable_quote_in);
          expect(n(m, 'user_quote_amount_in') + n(m, 'lp_fee')).toBe(n(m, 'quote_amount_in_with_lp_fee'));
          expect(n(m, 'user_quote_amount_in') + fees).toBe(n(m, 'quote_amount_in'));
          expect(m.user_quote_amount).toBe(m.quote_amount_in);
        } else {
          expect(call.def.name).toBe('buy');
          expect(n(m, 'quote_amount_in') + n(m, 'lp_fee')).toBe(n(m, 'quote_amount_in_with_lp_fee'));
          expect(n(m, 'quote_amount_in') + fees).toBe(n(m, 'user_quote_amount_in'));
          expect(m.user_quote_amount).toBe(m.user_quote_amount_in);
        }
      }
      for (const [a, v] of perAccount) expect(tokenDelta(tx, a), a).toBe(v);
    });
  }

  it('when the accounts the 2026 PumpSwap recordings create are checked, then each got (128 + size) × 5080 lamports (the rent the WSOL vault check uses)', () => {
    const cases: [string, string, bigint][] = [
      ['pumpfun/3gsR', 'heUt5ff16SBzPC8R6rfce9RFTyP6VSvwJkHGQZbfSa5', 287n], // pool
      ['pumpfun/3gsR', '2sS748ayxJ6c5nmNgW14mgM8yKprv7Stg8wsajxe5tnv', 82n], // LP mint (Token-2022)
      ['pumpfun/3gsR', '79t53sbB8Ypri5v43ytEeemxrYv8gbfqdfL4UY4C2Xyq', 170n], // base vault (Token-2022)
      ['pumpfun/3gsR', 'FWeMJrSuJE2nJjkKYoLByYhwr1A7NMRDdPSNU3RVnXR4', 165n], // quote vault (WSOL)
      ['pumpfun/3gsR', 'JB4bseEdEJa2nzQYSmC2PVKeG5XUuKfn49mUzgDPDjyK', 165n], // boost vault (WSOL)
      ['pumpswap/4Urr', 'CBJk9CnAPGiFF9wK9aSdDWw8fduH6irXH54jyweJcnAR', 137n], // user_volume_accumulator
      ['pumpswap/4Urr', 'Gap5EMqWmTrBeh5Vbp18msZGKvrQnBhwmaAPcaYN2Kcg', 170n], // buyer's base token account (Token-2022)
      ['pumpswap/5FoZ', '7BQmbHNjJ9m2N3G2uhedKmmx6ouLVuNS32L2FZzZRztC', 165n], // seller's temporary WSOL account
    ];
    for (const [prefix, address, size] of cases) {
      const { tx } = decoded(prefix);
      expect(rentPerByte(tx)).toBe(5080n);
      expect(createdBy(tx, address), `${prefix} ${address}`).toEqual({ lamports: (128n + size) * 5080n, space: size });
    }
    // 2025 (2ffH…): the quote vault at the older rate.
    const old = decoded('pumpswap/2ffH');
    expect(rentPerByte(old.tx)).toBe(6960n);
    expect(createdBy(old.tx, s(old.msgs[0] as TradeMessage, 'pool_quote_token_account'))).toEqual({ lamports: 2_039_280n, space: 165n });
  });

  it('when the pumpswap price is recomputed from the vaults after the trade, then it equals price_sol', () => {
    const close = (a: number | undefined, b: number, what: string): void => expect(Math.abs((a ?? NaN) / b - 1), what).toBeLessThan(1e-12);
    // 2025 events carry no virtual_quote_reserves, so the price is plain vault quote / vault base.
    for (const prefix of ['pumpswap/59GX', 'pumpswap/27f6', 'pumpfun/5dnX', 'pumpswap/63PQ', 'pumpswap/2Z6p']) {
      const { tx, msgs } = decoded(prefix);
      const m = msgs[msgs.length - 1];
      if (!m) throw new Error(prefix);
      const base = tokenPost(tx, s(m, 'pool_base_token_account')) ?? 0n;
      const quote = tokenPost(tx, s(m, 'pool_quote_token_account')) ?? 0n;
      const decimals = tx.postTokenBalances.find((b) => b.mint === m.base_mint)?.decimals ?? -1;
      expect(m.price_sol, prefix).toBeCloseTo(Number(quote) / 1e9 / (Number(base) / 10 ** decimals), 12);
    }
    // 2026: the effective quote reserves = vault + virtual_quote_reserves (NEGATIVE_VIRTUAL_QUOTE_RESERVES.md).
    // A v1 trade pays its fees out, so virtual_quote_reserves is the same before and after it.
    for (const prefix of ['pumpswap/4Urr', 'pumpswap/5FoZ']) {
      const { tx, msgs } = decoded(prefix);
      const m = msgs[0] as TradeMessage;
      const base = tokenPost(tx, s(m, 'pool_base_token_account')) ?? 0n;
      const quote = (tokenPost(tx, s(m, 'pool_quote_token_account')) ?? 0n) + n(m, 'virtual_quote_reserves');
      close(m.price_sol, Number(quote) / 1e9 / (Number(base) / 1e6), prefix);
    }
    // 3gsR CREATE_POOL (no virtual_quote_reserves in CreatePoolEvent): after init_boost the vault holds
    // 67 405 853 768 and the pool's virtual_quote_reserves is the boost, so the effective reserves are
    // pool_quote_amount again and the initial price is unchanged by the boost.
    {
      const { tx, msgs } = decoded('pumpfun/3gsR');
      const c = msgs[0] as TradeMessage;
      const boost = initBoost(programCalls(tx, pumpswapCodec()).find((x) => x.def.name === 'init_boost') as ProgramCall).boost;
      const quote = (tokenPost(tx, s(c, 'pool_quote_token_account')) ?? 0n) + boost;
      expect(quote).toBe(n(c, 'pool_quote_amount'));
      close(c.price_sol, Number(quote) / 1e9 / (Number(tokenPost(tx, s(c, 'pool_base_token_account'))) / 1e6), '3gsR');
    }
  });

  // The user's side. A trader's wallet also pays the transaction fee, tips, bot fees and rent, and
  // routers move tokens on before the wallet sees them, so each case states which other movement
  // explains the difference, and that movement is itself read from the chain.
  it('when a trader or liquidity provider is checked, then their token and SOL changes equal the amounts plus the named other movements', () => {
    const fee = (tx: NormalizedTransaction, who: string): bigint => (tx.accountKeys[0] === who ? BigInt(tx.fee ?? 0) : 0n);

    // 59GX BUY: base arrives in the user's account; SOL leaves the wallet through a WSOL account
    // created, funded and closed in the same transaction (so it has no token balance entry): the
    // wallet pays user_quote_amount_in, the fee, and a separate 55 000-lamport system transfer to
    // ADaUMid9… (instruction 0, a trading-bot fee).
    {
      const { tx, msgs } = decoded('pumpswap/59GX');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(n(m, 'base_amount_out'));
      expect(hasTokenBalance(tx, s(m, 'user_quote_token_account'))).toBe(false);
      const bot = lamportDelta(tx, 'ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49');
      expect(bot).toBe(55_000n);
      expect(lamportDelta(tx, s(m, 'user'))).toBe(-n(m, 'user_quote_amount_in') - fee(tx, s(m, 'user')) - bot);
      expect(m.user_quote_amount).toBe(m.user_quote_amount_in);
    }
    // 2ffH BUY (right after the pool was created): exact, the buyer pays only the fee besides the trade.
    {
      const { tx, msgs } = decoded('pumpswap/2ffH');
      const m = msgs[1] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(n(m, 'base_amount_out'));
      expect(lamportDelta(tx, s(m, 'user'))).toBe(-n(m, 'user_quote_amount_in') - fee(tx, s(m, 'user')));
      // CREATE_POOL: the creator is pump.fun's migration; its base and quote token accounts are
      // temporary (no balance entries). The base came out of the bonding curve's token account,
      // exactly base_amount_in. The quote came out of the curve's lamports together with pump.fun's
      // migration fee and the new accounts' rent, which are pump.fun's amounts, not PumpSwap's, so
      // only the vault side (checked above) is compared for it.
      const c = msgs[0] as TradeMessage;
      expect(hasTokenBalance(tx, s(c, 'user_base_token_account'))).toBe(false);
      expect(tokenDelta(tx, '89EcMVYyX9egKDLCdvuKuUjp7iU8ypgxszfr8RJ53qyP')).toBe(-n(c, 'base_amount_in'));
    }
    // 4Urr BUY (2026-10, buy_exact_quote_in): the base arrives in a token account created here; the
    // SOL leaves the wallet through a WSOL account created, funded (2 794 602) and closed in the
    // transaction. The wallet loses 4 738 108 = the spend quote_amount_in 1 863 068 (= vault
    // + 1 848 310, protocol fee account + 462, buyback account + 461, creator vault + 13 835) + the
    // 15 000 fee + the rent of the two accounts the buy created: its base token account Gap5…
    // (1 513 840) and its user_volume_accumulator CBJk… (1 346 200, created by the program, paid by the user).
    {
      const { tx, msgs } = decoded('pumpswap/4Urr');
      const m = msgs[0] as TradeMessage;
      expect(tokenPre(tx, s(m, 'user_base_token_account'))).toBeUndefined();
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(n(m, 'base_amount_out'));
      expect(hasTokenBalance(tx, s(m, 'user_quote_token_account'))).toBe(false);
      const accumulator = account(programCalls(tx, pumpswapCodec())[0] as ProgramCall, 'user_volume_accumulator') ?? '';
      const rents = [s(m, 'user_base_token_account'), accumulator].map((a) => createdBy(tx, a)?.lamports ?? -1n);
      expect(rents).toEqual([1_513_840n, 1_346_200n]);
      expect(lamportDelta(tx, s(m, 'user'))).toBe(-n(m, 'user_quote_amount') - fee(tx, s(m, 'user')) - (rents[0] ?? 0n) - (rents[1] ?? 0n));
      expect(m.user_quote_amount).toBe('1863068');
      expect(m.sol_amount_ui).toBe(0.001863068);
    }
    // 5FoZ SELL (2026-10): tokens leave the user's account exactly; the SOL arrives through a WSOL
    // account created and closed in the transaction (its rent comes back): the wallet gains
    // user_quote_amount_out 126 879 less the 5 000 fee.
    {
      const { tx, msgs } = decoded('pumpswap/5FoZ');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(-n(m, 'base_amount_in'));
      expect(hasTokenBalance(tx, s(m, 'user_quote_token_account'))).toBe(false);
      expect(lamportDelta(tx, s(m, 'user'))).toBe(n(m, 'user_quote_amount_out') - fee(tx, s(m, 'user')));
    }
    // 27f6 SELL through a router: the router first takes 0.1 % of the user's tokens (to 8pYY…), so
    // the user's account drops by base_amount_in + that cut; the SOL proceeds go from a temporary
    // WSOL account straight into the next hop's pool vault 9RtRq… (SOL → 6AJc…), which receives
    // exactly user_quote_amount_out.
    {
      const { tx, msgs } = decoded('pumpswap/27f6');
      const m = msgs[0] as TradeMessage;
      const cut = tokenDelta(tx, '8pYYaDDTJpe4Ny12FFHT7AWms22BfrhLS5DgVjgkcEF9');
      const before = tokenPre(tx, s(m, 'user_base_token_account')) ?? 0n;
      expect(cut).toBe(before / 1000n);
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(-(n(m, 'base_amount_in') + cut));
      expect(hasTokenBalance(tx, s(m, 'user_quote_token_account'))).toBe(false);
      expect(tokenDelta(tx, '9RtRqztfgQezLwypTy3KQriSENKFKLMorJAVhMeVwfG8')).toBe(n(m, 'user_quote_amount_out'));
    }
    // 5dnX SELL: tokens leave the user's account exactly; the wallet receives user_quote_amount_out
    // less the fee, a 0.03 SOL tip (BNvSMmg7…) and a 1 % fee on the proceeds (AVUCZyuT…,
    // floor(user_quote_amount_out / 100)).
    {
      const { tx, msgs } = decoded('pumpfun/5dnX');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(-n(m, 'base_amount_in'));
      const tip = lamportDelta(tx, 'BNvSMmg7c1jYF9cg8yWFnhab5FoE2VNcqch3SzDpxK2G');
      const botFee = lamportDelta(tx, 'AVUCZyuT35YSuj4RH7fwiyPu82Djn2Hfg7y2ND2XcnZH');
      expect(botFee).toBe(n(m, 'user_quote_amount_out') / 100n);
      expect(lamportDelta(tx, s(m, 'user'))).toBe(n(m, 'user_quote_amount_out') - fee(tx, s(m, 'user')) - tip - botFee);
    }
    // 63PQ DEPOSIT: base and LP tokens exact; the wallet pays quote_amount_in (through a temporary
    // WSOL account), the fee and the rent of the LP token account created here.
    {
      const { tx, msgs } = decoded('pumpswap/63PQ');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(-n(m, 'base_amount_in'));
      expect(tokenDelta(tx, s(m, 'user_pool_token_account'))).toBe(n(m, 'lp_token_amount_out'));
      const lpRent = lamportDelta(tx, s(m, 'user_pool_token_account'));
      expect(tokenPre(tx, s(m, 'user_pool_token_account'))).toBeUndefined();
      expect(lamportDelta(tx, s(m, 'user'))).toBe(-n(m, 'quote_amount_in') - fee(tx, s(m, 'user')) - lpRent);
    }
    // 2Z6p WITHDRAW: base and LP exact; SOL reaches the wallet (temporary WSOL account closed) less the fee.
    {
      const { tx, msgs } = decoded('pumpswap/2Z6p');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'user_base_token_account'))).toBe(n(m, 'base_amount_out'));
      expect(tokenDelta(tx, s(m, 'user_pool_token_account'))).toBe(-n(m, 'lp_token_amount_in'));
      expect(lamportDelta(tx, s(m, 'user'))).toBe(n(m, 'quote_amount_out') - fee(tx, s(m, 'user')));
    }
  });

  it('when a 2026-10 Buy/SellEvent is 8 bytes longer than the installed IDL, then those bytes are creator_fee_unclaimed', () => {
    const { tx, msgs } = decoded('pumpswap/4Urr');
    const buy = msgs[0] as TradeMessage;
    const sell = decoded('pumpswap/5FoZ').msgs[0] as TradeMessage;
    // 496-byte BuyEvent (ix_name "buy_exact_quote_in") and 433-byte SellEvent: the installed IDL
    // (@pump-fun/pump-sdk 2.0.0, ending at holder_rewards) reads 488 / 425 bytes of them.
    const plain = programCalls(tx, pumpAmmCodec())[0]?.events[0];
    expect(plain).toMatchObject({ name: 'BuyEvent', payloadBytes: 496, layout: 'idl' });
    expect(plain && 'creator_fee_unclaimed' in plain.values).toBe(false);
    const full = programCalls(tx, pumpswapCodec())[0]?.events[0];
    expect(full).toMatchObject({ name: 'BuyEvent', payloadBytes: 496, layout: 'idl' });
    expect(buy.creator_fee_unclaimed).toBe('1542686');
    expect(sell.creator_fee_unclaimed).toBe('176826');
    // What the field means, checked on 4Urr's pool: Pool::virtual_quote_reserves = boost −
    // protocol_fees − creator_fees (pump-public-docs VIRTUAL_QUOTE_RESERVES_FEE_ADJUSTMENT.md), and a
    // migrated pool's boost is the 17 584 505 288 that init_boost put in 3gsR…'s pool. 4Urr: 17 582 962 602
    // + 1 542 686 = 17 584 505 288 exactly, i.e. no protocol fee waiting and creator_fee_unclaimed the
    // creator fees waiting in the vault (from earlier v2 trades; this v1 buy paid its own 13 835 out).
    // (5FoZ's pool: 17 584 323 261 + 176 826 = 17 584 505 288 − 5 201, consistent with 5 201 of
    // protocol fees waiting, which no event reports.)
    const boost = initBoost(programCalls(decoded('pumpfun/3gsR').tx, pumpswapCodec()).find((c) => c.def.name === 'init_boost') as ProgramCall).boost;
    expect(n(buy, 'virtual_quote_reserves') + n(buy, 'creator_fee_unclaimed')).toBe(boost);
    expect(buy.can_boost).toBe(true);
  });

  it('when 2025 events (352-byte Buy/SellEvent, 325-byte CreatePoolEvent) are decoded, then the 2026 fields are absent, not null', () => {
    const { msgs } = decoded('pumpswap/2ffH');
    const [create, buy] = msgs;
    for (const k of ['is_mayhem_mode', 'creator_fee_bps', 'can_edit_creator_fee', 'is_holder_reward']) expect(create && k in create, k).toBe(false);
    for (const k of ['track_volume', 'ix_name', 'cashback', 'buyback_fee', 'virtual_quote_reserves', 'min_base_amount_out', 'creator_fee_unclaimed'])
      expect(buy && k in buy, k).toBe(false);
    expect(buy?.coin_creator_fee).toBe('14962564'); // the last field of the 2025 layout is there
    const sell = decoded('pumpswap/27f6').msgs[0];
    for (const k of ['cashback', 'buyback_fee', 'virtual_quote_reserves', 'can_boost', 'creator_fee_unclaimed']) expect(sell && k in sell, k).toBe(false);
  });
});

describe('Raydium CPMM: decoded amounts equal the chain balance changes', () => {
  for (const prefix of ['raydium-cpmm/2Eaw', 'raydium-cpmm/2LMz', 'raydium-cpmm/2bhr']) {
    it(`when ${prefix}… is decoded, then the vaults move by input_amount / output_amount and amount_in / amount_out net the transfer fees`, () => {
      const { tx, msgs } = decoded(prefix);
      const calls = programCalls(tx, raydiumCpmmCodec());
      const perVault = new Map<string, bigint>();
      for (const m of msgs) {
        // The vaults move by the event's amounts; creator, protocol and fund fees stay inside the
        // vault as accrued fees, so they do not show as a movement.
        perVault.set(s(m, 'input_vault'), (perVault.get(s(m, 'input_vault')) ?? 0n) + n(m, 'input_amount'));
        perVault.set(s(m, 'output_vault'), (perVault.get(s(m, 'output_vault')) ?? 0n) - n(m, 'output_amount'));
        // Token-2022 transfer fees are withheld on the way: the user sends input_amount + fee, receives output_amount − fee.
        expect(n(m, 'amount_in')).toBe(n(m, 'input_amount') + n(m, 'input_transfer_fee'));
        expect(n(m, 'amount_out')).toBe(n(m, 'output_amount') - n(m, 'output_transfer_fee'));
        // The side the instruction fixed equals its argument (the program transfers exactly that:
        // raydium-cp-swap swap_base_input.rs / swap_base_output.rs); its own limit is the argument and
        // the other limit, which that instruction does not have, is null (both are always present).
        const call = calls.find((c) => c.ix.path.join('.') === m.instruction_path.join('.'));
        if (!call) throw new Error('no call');
        const args = decodeInstructionArgs(raydiumCpmmCodec(), call.ix.data ?? new Uint8Array(), call.def.name);
        if (m.base_input === true) {
          expect(call.def.name).toBe('swap_base_input');
          expect(m.amount_in).toBe(args.amount_in);
          expect(m.minimum_amount_out).toBe(args.minimum_amount_out);
          expect(m.max_amount_in).toBeNull();
        } else {
          expect(call.def.name).toBe('swap_base_output');
          expect(m.amount_out).toBe(args.amount_out);
          expect(m.max_amount_in).toBe(args.max_amount_in);
          expect(m.minimum_amount_out).toBeNull();
        }
        expect(m.pool_id).toBe(m.pool_state);
      }
      for (const [vault, d] of perVault) expect(tokenDelta(tx, vault), vault).toBe(d);
      for (const m of msgs) {
        for (const [vault, mint] of [
          [s(m, 'input_vault'), m.input_mint],
          [s(m, 'output_vault'), m.output_mint],
        ] as const) {
          if (mint === WSOL_MINT) expect(lamportDelta(tx, vault)).toBe(tokenDelta(tx, vault)); // native SOL moves with WSOL
        }
      }
    });
  }

  it('when the payer side of each swap is checked, then it equals amount_in / amount_out or the router hop that carried it', () => {
    // 2bhr (OKX router, 2024): the payer's input account pays exactly amount_in (358 800, of which
    // 14 352 is the Token-2022 transfer fee the vault never sees). The output account is the
    // router's pass-through: its balance is unchanged because the router forwards the SOL to the
    // next hop's vault 8h2tJb66…, which receives exactly amount_out.
    {
      const { tx, msgs } = decoded('raydium-cpmm/2bhr');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'input_token_account'))).toBe(-n(m, 'amount_in'));
      expect(tokenDelta(tx, s(m, 'output_token_account'))).toBe(0n);
      expect(tokenDelta(tx, '8h2tJb66mwz9sWcnZfFKTyBPWEfzNnqrFFTxT52GoRK8')).toBe(n(m, 'amount_out'));
    }
    // 2Eaw (Raydium route program, 2026): input exact; the output is forwarded to the CLMM vault J7VFaRSX… (next hop).
    {
      const { tx, msgs } = decoded('raydium-cpmm/2Eaw');
      const m = msgs[0] as TradeMessage;
      expect(tokenDelta(tx, s(m, 'input_token_account'))).toBe(-n(m, 'amount_in'));
      expect(tokenDelta(tx, s(m, 'output_token_account'))).toBe(0n);
      expect(tokenDelta(tx, 'J7VFaRSXiT9ge3ySMv44iczqUMawrvcAXAxoDsrJK7Z8')).toBe(n(m, 'amount_out'));
    }
    // 2LMz (DF1ow router after a Whirlpool hop, 2026): the input account is created and closed inside
    // the transaction (no balance entry); the previous hop's vault 935r9veS… paid exactly amount_in
    // into it. The output account receives amount_out = output_amount − 1 % Token-2022 transfer fee.
    {
      const { tx, msgs } = decoded('raydium-cpmm/2LMz');
      const m = msgs[0] as TradeMessage;
      expect(hasTokenBalance(tx, s(m, 'input_token_account'))).toBe(false);
      expect(tokenDelta(tx, '935r9veSt8PkQgLGsmAz8sJsyGLvJTXXZvV5FSCLGGoc')).toBe(-n(m, 'amount_in'));
      expect(tokenDelta(tx, s(m, 'output_token_account'))).toBe(n(m, 'amount_out'));
    }
  });

  it('when the CPMM price is compared with the vault balances after the swap, then it agrees within the accrued fees', () => {
    // price_sol uses the event's fee-excluded reserves; the vault balances also hold protocol and
    // fund fees not yet collected (before this swap: WSOL vault 673 640 085 213 vs output_vault_before
    // 673 588 140 414, token vault 14 702 114 651 765 vs input_vault_before 14 700 939 435 598, both
    // ≈ 0.008 %), so the two prices differ by that share: a relative check here, exact from the event below.
    const { tx, msgs } = decoded('raydium-cpmm/2bhr');
    const m = msgs[0] as TradeMessage;
    expect(m).toMatchObject({ side: 'sell', mint: '7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1', token_amount_ui: 3588, sol_amount_ui: 0.000015742 });
    const sol = Number(tokenPost(tx, s(m, 'output_vault'))) / 1e9;
    const tok = Number(tokenPost(tx, s(m, 'input_vault'))) / 1e2; // 7atg… has 2 decimals
    const fromVaults = sol / tok;
    expect(Math.abs((m.price_sol as number) / fromVaults - 1)).toBeLessThan(1e-3);
    // Exact from the event: (output_vault_before − output_amount) / (input_vault_before + input_amount) (2024 program: no creator fee).
    expect(m.price_sol).toBeCloseTo((673588140414 - 15742) / 1e9 / ((14700939435598 + 344448) / 1e2), 18);
  });

  it('when the 2024 81-byte SwapEvent is decoded, then the 2026 event fields are absent and the mints come from the accounts', () => {
    const m = decoded('raydium-cpmm/2bhr').msgs[0];
    for (const k of ['trade_fee', 'creator_fee', 'creator_fee_on_input']) expect(m && k in m, k).toBe(false);
    expect(m).toMatchObject({ input_mint: '7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1', output_mint: WSOL_MINT });
    const m26 = decoded('raydium-cpmm/2LMz').msgs[0];
    expect(m26).toMatchObject({ trade_fee: '14260', creator_fee: '57037', creator_fee_on_input: true });
  });

  it('when the transaction failed, then its logged SwapEvent yields nothing and no balance moved', () => {
    const raw = load(byPrefix('raydium-cpmm/1tBM'));
    const tx = normalizeTransaction(raw);
    expect(tx.err).not.toBeNull();
    expect((tx.logs ?? []).some((l) => l.startsWith('Program data: QMbN6CYIce'))).toBe(true); // SwapEvent discriminator 40c6cde8…
    expect(decodeTransaction(raw)).toEqual([]);
    for (const vault of ['5C5yKUdpJzgGsFL8yx1ePDcF4MRaJ3B8sQZoS3Lvk1mD', 'AF1mCvV6Ra29kcRwrqVG6R2ks2edq55AnipNZnEMeNdq'])
      expect(tokenDelta(tx, vault)).toBe(0n);
  });

  it('when collect_creator_fee (not in the IDL) runs, then onUnknown reports the instruction and no message is produced', () => {
    const seen: string[] = [];
    const msgs = decodeTransaction(load(byPrefix('raydium-cpmm/5PpD')), {
      onUnknown: (u) => {
        if (u.kind === 'instruction') seen.push(`${u.programId}:${u.name}`);
      },
    });
    expect(msgs).toEqual([]);
    expect(seen).toEqual(['CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C:1416567bc61cdb84']);
  });
});
