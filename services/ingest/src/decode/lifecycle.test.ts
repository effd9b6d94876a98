/**
 * Curve lifecycle messages (COMPLETE, MIGRATE) and LetsBonk classification.
 *
 * The recording has no whole transaction with a CompleteEvent or a LaunchLab
 * migration, so these tests build the instruction tree around event bytes:
 * - the CompletePumpAmmMigrationEvent is REAL (emit_cpi data of mainnet tx
 *   2eCjkZEu…, slot 437957109, from pivox/sol-token-listener
 *   tests/fixtures/pumpswap/migrate-v2-create-pool-mainnet.json @ 3b25128f);
 * - the CompleteEvent is CONSTRUCTED from the IDL layout (no real bytes here);
 * - the LaunchLab migrate_to_cpswap instruction is CONSTRUCTED (discriminator
 *   from the IDL, no args) with vault balances chosen for the test.
 */
import bs58 from 'bs58';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeNormalized, messageId } from './index.js';
import { pumpCodec, launchlabCodec } from './idl.js';
import { normalizeTransaction, type NormalizedInstruction, type NormalizedTransaction } from './transaction.js';

const REAL_MIGRATION_EVENT_CPI = Buffer.from(
  'e445a52e51cb9a1dbde95db95c94ea94a04f4d737ac7608162b8ef24b28b6df500a949f71904c995f25a6eb33812b814f8db2529e4d93a9dc8cc2f22c475eea8647d1f7090b652309eefc6a80409428f000801a92cbc000074f6d1c913000000c1e1e400000000007702deeeaf9052fa86779f13a0fd8e77f4f0e0241d08576a101f515e7d0f274c13e6766a00000000fa14e440391bedfc42041043353cdef929e37b81b21753ec40de147c7cd24d5f0000000000000000000000000000000000000000000000000000000000000000',
  'hex',
);
const EVENT_TAG = Buffer.from('e445a52e51cb9a1d', 'hex');
const PUMP = '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P';
const LAUNCHLAB = 'LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj';

/** Distinct valid base58 addresses for accounts the tests do not look at. */
const key = (i: number): string => bs58.encode(Buffer.alloc(32, i + 1));

function ixFor(
  programId: string,
  names: readonly string[],
  disc: number[],
  over: Record<string, string>,
  path: number[],
  stackHeight: number,
): NormalizedInstruction {
  return { programId, accounts: names.map((n, i) => over[n] ?? key(i)), data: Uint8Array.from(disc), path, stackHeight };
}

function txWith(instructions: NormalizedTransaction['instructions'], extra: Partial<NormalizedTransaction> = {}): NormalizedTransaction {
  return {
    signature: bs58.encode(Buffer.alloc(64, 7)),
    slot: 437957109,
    commitment: 'confirmed',
    blockTimeMs: 1_750_000_000_000,
    accountKeys: [],
    instructions,
    logs: null,
    err: null,
    fee: 5000,
    preBalances: [],
    postBalances: [],
    preTokenBalances: [],
    postTokenBalances: [],
    ...extra,
  };
}

describe('pump.fun MIGRATE', () => {
  const def = pumpCodec().idl.instructions.find((i) => i.name === 'migrate_v2');
  if (!def) throw new Error('migrate_v2 not in the pump IDL');
  const names = def.accounts.map((a) => a.name);
  const event = REAL_MIGRATION_EVENT_CPI.subarray(16);
  const mint = bs58.encode(event.subarray(32, 64));
  const pool = bs58.encode(event.subarray(32 + 32 + 24 + 32 + 8, 32 + 32 + 24 + 32 + 8 + 32));

  it('when migrate_v2 emits the real 2026 CompletePumpAmmMigrationEvent, then one MIGRATE carries the event and the pool', () => {
    const outer = ixFor(PUMP, names, def.discriminator, { base_mint: mint, pool }, [1], 1);
    const emit: NormalizedInstruction = { programId: PUMP, accounts: [key(40)], data: REAL_MIGRATION_EVENT_CPI, path: [1, 0], stackHeight: 2 };
    const [m, ...rest] = decodeNormalized(txWith([{ outer, inner: [emit] }]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ source: 'pumpfun', transaction_type: 'MIGRATE', instruction_path: [1], mint, pool, sol_amount_ui: Number(m?.sol_amount) / 1e9 });
    expect(m?.mint_amount).toMatch(/^[1-9][0-9]*$/);
    expect(m?.pool_migration_fee).toMatch(/^[0-9]+$/);
  });

  it('when migrate runs without its event (curve already migrated), then no message is produced', () => {
    const outer = ixFor(PUMP, names, def.discriminator, {}, [0], 1);
    expect(decodeNormalized(txWith([{ outer, inner: [] }]))).toEqual([]);
  });
});

describe('pump.fun COMPLETE', () => {
  const recording = fileURLToPath(new URL('../../recording/pumpfun/', import.meta.url));
  const raw = JSON.parse(
    readFileSync(`${recording}2ghHZXwyU6K1Q8KMJbLJg37ktmyctKmdzzZKGDvHk1MR865dDYyo8SfrKvmvijT43P6hdu6ozPtATiMeg2STszhc.json`, 'utf8'),
  ) as unknown;

  it('when the completing buy also emits CompleteEvent, then COMPLETE follows its BUY with a distinct message id', () => {
    const [buy] = decodeNormalized(normalizeTransaction(raw));
    const tx = normalizeTransaction(raw); // a fresh tree: flatten() memoises per tree
    tx.logs = null; // the event is added as emit_cpi only: without logs the decoder reads the CPI form
    expect(buy?.transaction_type).toBe('BUY');
    const disc = pumpCodec().idl.events?.find((e) => e.name === 'CompleteEvent')?.discriminator ?? [];
    // CompleteEvent {user, mint, bonding_curve, timestamp i64} (the 2024–25 layout, without the 2026 quote_mint).
    const ts = Buffer.alloc(8);
    ts.writeBigInt64LE(1_753_800_000n);
    const payload = Buffer.concat([bs58.decode(String(buy?.user)), bs58.decode(String(buy?.mint)), bs58.decode(String(buy?.bonding_curve)), ts]);
    const [outerPath] = buy?.instruction_path ?? [];
    const node = tx.instructions[outerPath ?? -1];
    if (!node) throw new Error('buy instruction not found');
    const stackHeight = (buy?.instruction_path.length === 1 ? 1 : 2) + 1;
    node.inner.push({
      programId: PUMP,
      accounts: [key(50)],
      data: Buffer.concat([EVENT_TAG, Buffer.from(disc), payload]),
      path: [outerPath ?? 0, node.inner.length],
      stackHeight,
    });
    const msgs = decodeNormalized(tx);
    expect(msgs.map((m) => m.transaction_type)).toEqual(['BUY', 'COMPLETE']);
    const complete = msgs[1];
    expect(complete).toMatchObject({
      mint: buy?.mint,
      user: buy?.user,
      bonding_curve: buy?.bonding_curve,
      timestamp: '1753800000',
      instruction_path: buy?.instruction_path,
    });
    expect(complete && 'quote_mint' in complete).toBe(false);
    expect(new Set(msgs.map(messageId)).size).toBe(2);
  });
});

describe('LaunchLab MIGRATE and LetsBonk classification', () => {
  const def = launchlabCodec().idl.instructions.find((i) => i.name === 'migrate_to_cpswap');
  if (!def) throw new Error('migrate_to_cpswap not in the LaunchLab IDL');
  const names = def.accounts.map((a) => a.name);
  const LETSBONK = 'FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1';
  const baseVault = key(60);
  const quoteVault = key(61);
  const tokenBalances = (base: string, quote: string) => [
    { accountIndex: 0, mint: key(62), owner: key(63), amount: base, decimals: 6 },
    { accountIndex: 1, mint: 'So11111111111111111111111111111111111111112', owner: key(63), amount: quote, decimals: 9 },
  ];
  const build = (platform: string) =>
    txWith(
      [{ outer: ixFor(LAUNCHLAB, names, def.discriminator, { platform_config: platform, base_vault: baseVault, quote_vault: quoteVault }, [2], 1), inner: [] }],
      {
        accountKeys: [baseVault, quoteVault],
        preTokenBalances: tokenBalances('206900000000000', '85000000000'),
        postTokenBalances: tokenBalances('0', '0'),
      },
    );

  it('when a LetsBonk pool migrates to CPMM, then MIGRATE names the new pool, the vault outflows and is_letsbonk', () => {
    const [m] = decodeNormalized(build(LETSBONK));
    expect(m).toMatchObject({
      source: 'bonk',
      transaction_type: 'MIGRATE',
      migrate_to: 'raydium_cpmm',
      platform_config: LETSBONK,
      is_letsbonk: true,
      amm_pool: key(names.indexOf('cpswap_pool')),
      base_amount: '206900000000000',
      quote_amount: '85000000000',
    });
  });

  it('when the platform config is not a configured LetsBonk one, then is_letsbonk is false; configuration can add it', () => {
    const other = '4Bu96XjU84XjPDSpveTVf6LYGCkfW5FK7SNkREWcEfV4';
    expect(decodeNormalized(build(other))[0]?.is_letsbonk).toBe(false);
    expect(decodeNormalized(build(other), { letsbonkPlatformConfigs: new Set([other]) })[0]?.is_letsbonk).toBe(true);
  });

  it('when a LaunchLab instruction is not in the IDL, then it is reported and skipped', () => {
    const seen: string[] = [];
    const unknown: NormalizedInstruction = {
      programId: LAUNCHLAB,
      accounts: [],
      data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]),
      path: [0],
      stackHeight: 1,
    };
    expect(
      decodeNormalized(txWith([{ outer: unknown, inner: [] }]), {
        onUnknown: (u) => {
          if (u.kind === 'instruction') seen.push(`${u.programId}:${u.name}`);
        },
      }),
    ).toEqual([]);
    expect(seen).toEqual([`${LAUNCHLAB}:0102030405060708`]);
  });
});
