/**
 * The project's borsh reader (borsh-tolerant.ts, compiled from the IDLs) against the IDLs and
 * against anchor's coder, the oracle:
 * - every instruction argument of every real instruction in the recording decodes to the values
 *   anchor's BorshInstructionCoder gives (events: borsh-tolerant.test.ts does the same);
 * - every event field and instruction argument the four program decoders read exists in the IDL
 *   the decoder uses, with the type the decoder expects.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeInstructionArgs, decodeInstructionArgsWithAnchor } from '../src/decode/anchor-values.js';
import type { IdlTypeRef } from '../src/decode/borsh-tolerant.js';
import { launchlabCodec, pumpCodec, raydiumCpmmCodec, type ProgramCodec } from '../src/decode/idl.js';
import { decodeNormalized, normalizeTransaction } from '../src/decode/index.js';
import { isEventCpi } from '../src/decode/events.js';
import { programCalls } from '../src/decode/program.js';
import { pumpswapCodec } from '../src/decode/pumpswap.js';

const recording = fileURLToPath(new URL('../recording', import.meta.url));
const files = readdirSync(recording, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .sort();
const codecs = (): ProgramCodec[] => [pumpCodec(), launchlabCodec(), pumpswapCodec(), raydiumCpmmCodec()];

describe('borsh reader vs anchor (oracle) on the recording', () => {
  it("when every real instruction of the four programs is decoded, then its arguments equal anchor's BorshInstructionCoder wherever anchor reads every argument", () => {
    let compared = 0;
    let older = 0;
    for (const f of files) {
      const tx = normalizeTransaction(JSON.parse(readFileSync(join(recording, f), 'utf8')));
      decodeNormalized(tx);
      for (const codec of codecs()) {
        for (const call of programCalls(tx, codec)) {
          const data = call.ix.data ?? new Uint8Array();
          const ours = decodeInstructionArgs(codec, data, call.def.name);
          const anchor = decodeInstructionArgsWithAnchor(codec, data, call.def.name);
          const present = call.def.args.filter((a) => a.name in ours).length;
          if (present < call.def.args.length) {
            // Data of an older layout (fewer trailing args): absent, never a made-up value; what is
            // there equals anchor's reading of the same bytes when anchor reads them at all.
            older++;
            for (const a of call.def.args.slice(present)) expect(ours, `${f} ${call.def.name}`).not.toHaveProperty(a.name);
            if (anchor) for (const a of call.def.args.slice(0, present)) expect(ours[a.name], `${f} ${call.def.name}.${a.name}`).toEqual(anchor[a.name]);
            continue;
          }
          expect(anchor, `${f} ${call.def.name}: anchor cannot decode`).toBeDefined();
          expect(ours, `${f} ${call.def.name}`).toEqual(anchor);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(30);
    expect(older).toBeGreaterThan(0);
  });
});

describe('old-layout instruction arguments', () => {
  it('when a 2024 pump.fun create (no creator argument yet) is decoded without its CreateEvent, then the CREATE has no creator, where anchor would read the zero key', () => {
    const f = files.find((x) => x.startsWith('pumpfun/2s393P'));
    expect(f).toBeDefined();
    const tx = normalizeTransaction(JSON.parse(readFileSync(join(recording, f ?? ''), 'utf8')));
    const create = programCalls(tx, pumpCodec()).find((c) => c.def.name === 'create');
    expect(create).toBeDefined();
    const data = create?.ix.data ?? new Uint8Array();
    expect(decodeInstructionArgsWithAnchor(pumpCodec(), data, 'create')?.creator).toBe('11111111111111111111111111111111');
    // No CreateEvent (logs cut, emit_cpi inner instructions dropped): the message is built from
    // the instruction's arguments and accounts.
    const fresh = normalizeTransaction(JSON.parse(readFileSync(join(recording, f ?? ''), 'utf8')));
    const instructions = fresh.instructions.map((n) => ({ outer: n.outer, inner: n.inner.filter((ix) => !isEventCpi(ix, pumpCodec().programId)) }));
    const msg = decodeNormalized({ ...fresh, instructions, logs: null }).find((m) => m.transaction_type === 'CREATE');
    expect(msg).toMatchObject({ name: 'MOO DOG', symbol: 'MOODOG' });
    expect(msg).not.toHaveProperty('creator');
  });
});

/** Fields each decoder reads (pumpfun.ts, launchlab.ts, pumpswap.ts, raydium-cpmm.ts), with the IDL types it handles. */
const U64 = ['u64'];
const PUBKEY = ['pubkey'];
const READS: { codec: () => ProgramCodec; kind: 'event' | 'args'; owner: string; fields: Record<string, readonly string[]> }[] = [
  {
    codec: pumpCodec,
    kind: 'event',
    owner: 'CreateEvent',
    fields: {
      mint: PUBKEY,
      name: ['string'],
      symbol: ['string'],
      bonding_curve: PUBKEY,
      timestamp: ['i64'],
      virtual_sol_reserves: U64,
      virtual_token_reserves: U64,
      quote_mint: PUBKEY,
    },
  },
  {
    codec: pumpCodec,
    kind: 'event',
    owner: 'TradeEvent',
    fields: {
      mint: PUBKEY,
      is_buy: ['bool'],
      sol_amount: U64,
      token_amount: U64,
      virtual_sol_reserves: U64,
      virtual_token_reserves: U64,
      timestamp: ['i64'],
      quote_mint: PUBKEY,
      quote_amount: U64,
      virtual_quote_reserves: U64,
    },
  },
  { codec: pumpCodec, kind: 'event', owner: 'CompleteEvent', fields: { mint: PUBKEY, bonding_curve: PUBKEY, timestamp: ['i64'] } },
  { codec: pumpCodec, kind: 'event', owner: 'CompletePumpAmmMigrationEvent', fields: { mint: PUBKEY, sol_amount: U64, timestamp: ['i64'] } },
  { codec: pumpCodec, kind: 'args', owner: 'create', fields: { name: ['string'], symbol: ['string'] } },
  { codec: pumpCodec, kind: 'args', owner: 'create_v2', fields: { name: ['string'], symbol: ['string'] } },
  {
    codec: launchlabCodec,
    kind: 'event',
    owner: 'TradeEvent',
    fields: {
      trade_direction: ['defined:TradeDirection'],
      amount_in: U64,
      amount_out: U64,
      virtual_base: U64,
      virtual_quote: U64,
      real_base_after: U64,
      real_quote_after: U64,
    },
  },
  {
    codec: pumpswapCodec,
    kind: 'event',
    owner: 'BuyEvent',
    fields: {
      timestamp: ['i64'],
      pool_base_token_reserves: U64,
      pool_quote_token_reserves: U64,
      lp_fee: U64,
      base_amount_out: U64,
      quote_amount_in: U64,
      quote_amount_in_with_lp_fee: U64,
      user_quote_amount_in: U64,
      virtual_quote_reserves: ['i128'],
    },
  },
  {
    codec: pumpswapCodec,
    kind: 'event',
    owner: 'SellEvent',
    fields: {
      timestamp: ['i64'],
      pool_base_token_reserves: U64,
      pool_quote_token_reserves: U64,
      lp_fee: U64,
      base_amount_in: U64,
      quote_amount_out: U64,
      user_quote_amount_out: U64,
      virtual_quote_reserves: ['i128'],
    },
  },
  {
    codec: pumpswapCodec,
    kind: 'event',
    owner: 'DepositEvent',
    fields: { timestamp: ['i64'], pool_base_token_reserves: U64, pool_quote_token_reserves: U64, base_amount_in: U64, quote_amount_in: U64 },
  },
  {
    codec: pumpswapCodec,
    kind: 'event',
    owner: 'WithdrawEvent',
    fields: { timestamp: ['i64'], pool_base_token_reserves: U64, pool_quote_token_reserves: U64, base_amount_out: U64, quote_amount_out: U64 },
  },
  {
    codec: pumpswapCodec,
    kind: 'event',
    owner: 'CreatePoolEvent',
    fields: {
      timestamp: ['i64'],
      base_mint: PUBKEY,
      quote_mint: PUBKEY,
      base_mint_decimals: ['u8'],
      quote_mint_decimals: ['u8'],
      base_amount_in: U64,
      quote_amount_in: U64,
      pool_base_amount: U64,
      pool_quote_amount: U64,
    },
  },
  {
    codec: raydiumCpmmCodec,
    kind: 'event',
    owner: 'SwapEvent',
    fields: {
      input_vault_before: U64,
      output_vault_before: U64,
      input_amount: U64,
      output_amount: U64,
      input_transfer_fee: U64,
      output_transfer_fee: U64,
      creator_fee: U64,
      creator_fee_on_input: ['bool'],
    },
  },
  {
    codec: raydiumCpmmCodec,
    kind: 'event',
    owner: 'LpChangeEvent',
    fields: { token_0_vault_before: U64, token_1_vault_before: U64, token_0_amount: U64, token_1_amount: U64 },
  },
  { codec: raydiumCpmmCodec, kind: 'args', owner: 'swap_base_input', fields: { minimum_amount_out: U64 } },
  { codec: raydiumCpmmCodec, kind: 'args', owner: 'swap_base_output', fields: { max_amount_in: U64 } },
  { codec: raydiumCpmmCodec, kind: 'args', owner: 'initialize', fields: { init_amount_0: U64, init_amount_1: U64 } },
];

const typeName = (t: IdlTypeRef): string =>
  typeof t === 'string'
    ? t === 'publicKey'
      ? 'pubkey'
      : t
    : 'defined' in t
      ? `defined:${typeof t.defined === 'string' ? t.defined : t.defined.name}`
      : JSON.stringify(t);

function idlFields(codec: ProgramCodec, kind: 'event' | 'args', owner: string): Map<string, string> | undefined {
  if (kind === 'args') {
    const ix = codec.idl.instructions.find((i) => i.name === owner);
    return ix && new Map(ix.args.map((a) => [a.name, typeName(a.type)]));
  }
  const ev = [...codec.eventsByDisc.values()].find((e) => e.name === owner);
  return ev && new Map(ev.fields.map((f) => [f.name, typeName(f.type)]));
}

describe('decoders vs the IDLs', () => {
  it.each(READS.map((r) => [`${r.codec().idl.metadata.name} ${r.kind} ${r.owner}`, r] as const))(
    'when the decoder reads %s, then each field exists in the IDL with the type it expects',
    (_label, r) => {
      const fields = idlFields(r.codec(), r.kind, r.owner);
      expect(fields, 'owner not in the IDL').toBeDefined();
      for (const [name, types] of Object.entries(r.fields)) expect(types, `${r.owner}.${name}`).toContain(fields?.get(name));
    },
  );
});
