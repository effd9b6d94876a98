/**
 * The last step of decoding: a message is only published when the transaction backs it (issue 24,
 * found by fuzzing the recording: a changed byte in a `Program data:` event or an emit_cpi
 * instruction was published as a trade of a wrong amount). Two checks, both on what the
 * transaction itself states:
 *
 * 1. **Complete**: every field its subject's JSON Schema requires for its kind is present (a
 *    truncated event stops the tolerant reader early, leaving e.g. a BUY without its reserves).
 * 2. **Chain agreement**: the amounts equal the balance changes they caused, the relations the
 *    recording's tests hold exactly (docs/decoding.md "Chain agreement"):
 *    - pump.fun BUY/SELL: per bonding curve, Σ signed `sol_amount` = the curve's lamport change (+ its
 *      rent-exempt deposit, (128 + size) × 6960 | 5080 lamports, when this transaction created it;
 *      whose `quote_amount`, when present, = `sol_amount` on SOL-quoted curves); curves quoted in another
 *      mint: per curve, also Σ signed `quote_amount` = the change of the curve's tokens of that mint; per
 *      (user, mint), Σ signed `token_amount` = the user's token-balance change.
 *    - pump.fun MIGRATE: with a PumpSwap CREATE_POOL of its mint in the same transaction, that is its
 *      pool (same address) and `sol_amount` / `mint_amount` = its `pool_quote_amount` / `pool_base_amount`
 *      (the MIGRATE is refused with it); else `mint_amount` = what left the curve's token account.
 *    - LaunchLab BUY/SELL: `sol_amount` = `amount_in` (buy) / `amount_out` (sell); per quote vault,
 *      Σ (buy `amount_in`, sell −`amount_out`) − the fees that leave it (2026 layout: platform +
 *      creator fee) = its token change; per base vault, Σ ∓`token_amount` (+ the curve's supply
 *      when this transaction created the pool) = its token change.
 *    - PumpSwap: per pool vault, Σ of each message's transfer (BUY −`base_amount_out` /
 *      +`quote_amount_in_with_lp_fee`, SELL +`base_amount_in` / −(`quote_amount_out` − `lp_fee`),
 *      DEPOSIT +, WITHDRAW −, CREATE_POOL +`pool_*_amount`) = its token change (quote vaults of a
 *      transaction that runs init_boost, which moves quote too, are not compared).
 *    - Raydium CPMM SWAP: per vault, Σ (+`input_amount` in, −`output_amount` out) = its token change;
 *      where a Token-2022 transfer fee is charged (withheld between payer and vault, so no vault shows
 *      it), the payer's token account moves by exactly `amount_in` / `amount_out`; exactly one of
 *      `minimum_amount_out` / `max_amount_in` is a string.
 *      BUY/SELL: `fee` = `lp_fee` + `protocol_fee` + `coin_creator_fee` (ties the user's amounts to the
 *      vault-checked ones), SELL `quote_amount_out_without_lp_fee` = `quote_amount_out` − `lp_fee`;
 *      walking each vault from its balance before the transaction in execution order, every event's
 *      `pool_*_token_reserves` = the vault's balance before the instruction and `pool_*_token_reserves_after`
 *      = after it; DEPOSIT / WITHDRAW: the provider's LP tokens move by `lp_token_amount_out` / −`lp_token_amount_in`;
 *      CREATE_POOL: the creator's `base_amount_in` / `quote_amount_in` = the pool's `pool_base_amount` /
 *      `pool_quote_amount` (no transfer-fee mint seen on PumpSwap) and `lp_token_amount_out` =
 *      ⌊√(pool_base_amount × pool_quote_amount)⌋ − 100 (the LP account is not in the token balances).
 *    - pump.fun SOL-quoted trades: the curve moved no token but its own (an event cut before
 *      `quote_mint` would otherwise pass as a SOL trade of 0).
 *
 * Sums over an account that a trade instruction without a message also used (its event was lost, e.g.
 * `Log truncated`; `unverifiable`) are not compared: that instruction's amounts are unknown.
 *
 * A message that fails is dropped (with every message of the failing group) and reported through
 * `onUnknown` as kind `refused` (ingest's `tradewind_ingest_decode_unknown_total{kind="refused"}`).
 * When the transaction carries no token balances at all (a capture without them) the token checks
 * cannot be made and are skipped. Raydium CPMM DEPOSIT/WITHDRAW and pump.fun COMPLETE have
 * no recorded example to hold a relation against and are only checked for completeness.
 */
import type { UnknownItem } from './program.js';
import type { NormalizedTransaction } from './transaction.js';
import type { TradeMessage } from './types.js';

/** pump.fun BUY and SELL: one `then` for both in basic.pumpfun.schema.json. */
const PUMPFUN_TRADE = [
  'side',
  'is_buy',
  'sol_amount',
  'token_amount',
  'user',
  'timestamp',
  'virtual_sol_reserves',
  'virtual_token_reserves',
  'real_sol_reserves',
  'real_token_reserves',
  'sol_amount_ui',
  'token_amount_ui',
] as const;

/** LaunchLab BUY and SELL: one `then` for both in basic.bonk.schema.json (plus payer / platform_config / is_letsbonk, required on CREATE, BUY and SELL). */
const LAUNCHLAB_TRADE = [
  'payer',
  'platform_config',
  'is_letsbonk',
  'side',
  'sol_amount',
  'token_amount',
  'amount_in',
  'amount_out',
  'protocol_fee',
  'platform_fee',
  'share_fee',
  'trade_direction',
  'pool_status',
  'real_base_after',
  'real_quote_after',
  'base_vault',
  'quote_vault',
] as const;

/**
 * Fields each subject's JSON Schema (packages/contracts/schemas) requires per kind and never allows to
 * be null, beyond those every message has: source → transaction_type (or `*`, every kind) → fields.
 * A message missing one (absent or null) is refused. Held equal to the schemas by
 * services/ingest/test/chain-check-required.test.ts.
 */
export const REQUIRED_FIELDS: Record<string, Record<string, readonly string[]>> = {
  pumpfun: {
    '*': ['mint', 'bonding_curve'],
    CREATE: ['name', 'symbol', 'uri', 'user'],
    BUY: PUMPFUN_TRADE,
    SELL: PUMPFUN_TRADE,
    COMPLETE: ['user', 'timestamp'],
    MIGRATE: ['pool', 'user', 'mint_amount', 'sol_amount', 'timestamp'],
  },
  bonk: {
    '*': ['pool_state', 'base_mint', 'quote_mint', 'global_config'],
    CREATE: ['base_mint_param', 'creator', 'payer', 'platform_config', 'is_letsbonk'],
    BUY: LAUNCHLAB_TRADE,
    SELL: LAUNCHLAB_TRADE,
    MIGRATE: ['payer', 'migrate_to', 'amm_pool'],
  },
  pumpswap: {
    '*': ['pool', 'base_mint', 'quote_mint', 'mint', 'timestamp'],
    BUY: [
      'side',
      'user',
      'base_amount_out',
      'quote_amount_in',
      'user_quote_amount_in',
      'lp_fee',
      'protocol_fee',
      'pool_base_token_reserves',
      'pool_quote_token_reserves',
      'tokenIn',
      'tokenOut',
      'amountIn',
      'amountOut',
      'fee',
    ],
    SELL: [
      'side',
      'user',
      'base_amount_in',
      'quote_amount_out',
      'user_quote_amount_out',
      'lp_fee',
      'protocol_fee',
      'pool_base_token_reserves',
      'pool_quote_token_reserves',
      'tokenIn',
      'tokenOut',
      'amountIn',
      'amountOut',
      'fee',
    ],
    CREATE_POOL: ['creator', 'lp_mint', 'base_amount_in', 'quote_amount_in', 'pool_base_amount', 'pool_quote_amount', 'lp_token_amount_out'],
    DEPOSIT: ['user', 'lp_mint', 'base_amount_in', 'quote_amount_in', 'lp_token_amount_out'],
    WITHDRAW: ['user', 'lp_mint', 'base_amount_out', 'quote_amount_out', 'lp_token_amount_in'],
  },
  raydium_cpmm: {
    '*': ['pool_state'],
    SWAP: [
      'amount_in',
      'amount_out',
      'payer',
      'authority',
      'amm_config',
      'input_mint',
      'output_mint',
      'input_vault',
      'output_vault',
      'pool_id',
      'input_amount',
      'output_amount',
      'input_transfer_fee',
      'output_transfer_fee',
      'base_input',
    ],
    CREATE_POOL: [
      'creator',
      'amm_config',
      'token_0_mint',
      'token_1_mint',
      'lp_mint',
      'token_0_vault',
      'token_1_vault',
      'init_amount_0',
      'init_amount_1',
      'open_time',
    ],
    DEPOSIT: [
      'owner',
      'lp_mint',
      'token_0_vault',
      'token_1_vault',
      'vault_0_mint',
      'vault_1_mint',
      'lp_token_amount',
      'pool_id',
      'token_0_amount',
      'token_1_amount',
      'change_type',
      'maximum_token_0_amount',
      'maximum_token_1_amount',
    ],
    WITHDRAW: [
      'owner',
      'lp_mint',
      'token_0_vault',
      'token_1_vault',
      'vault_0_mint',
      'vault_1_mint',
      'lp_token_amount',
      'pool_id',
      'token_0_amount',
      'token_1_amount',
      'change_type',
      'minimum_token_0_amount',
      'minimum_token_1_amount',
    ],
  },
};

/** Amount fields (u64 decimal strings in the schemas) that must hold a non-negative integer, per source and kind. */
const AMOUNTS: Record<string, Record<string, readonly string[]>> = {
  pumpswap: { BUY: ['amountIn', 'amountOut', 'fee'], SELL: ['amountIn', 'amountOut', 'fee'] },
  raydium_cpmm: { SWAP: ['amount_in', 'amount_out', 'input_amount', 'output_amount', 'input_transfer_fee', 'output_transfer_fee'] },
};

const WSOL = 'So11111111111111111111111111111111111111112';
const SOL_QUOTES = new Set(['11111111111111111111111111111111', WSOL]);
const DECIMAL = /^\d{1,39}$/;

/** The message's field as a non-negative integer; undefined when absent or not a decimal string. */
function int(m: TradeMessage, field: string): bigint | undefined {
  const v = m[field];
  return typeof v === 'string' && DECIMAL.test(v) ? BigInt(v) : undefined;
}

/** Why `m` lacks a field its kind requires, or undefined. */
function missing(m: TradeMessage): string | undefined {
  const spec = REQUIRED_FIELDS[m.source];
  if (!spec) return `unknown source ${String(m.source)}`;
  const all = spec['*'];
  const kind = spec[m.transaction_type];
  if (all) for (const f of all) if (m[f] === undefined || m[f] === null) return `missing ${f}`;
  if (kind) for (const f of kind) if (m[f] === undefined || m[f] === null) return `missing ${f}`;
  const amounts = AMOUNTS[m.source]?.[m.transaction_type];
  if (amounts) for (const f of amounts) if (int(m, f) === undefined) return `${f} is not a non-negative integer`;
  if (m.source === 'raydium_cpmm' && m.transaction_type === 'SWAP' && (typeof m.minimum_amount_out === 'string') === (typeof m.max_amount_in === 'string'))
    return 'not exactly one swap limit';
  if (
    m.source === 'pumpswap' &&
    m.transaction_type === 'CREATE_POOL' &&
    (int(m, 'base_amount_in') !== int(m, 'pool_base_amount') || int(m, 'quote_amount_in') !== int(m, 'pool_quote_amount'))
  ) {
    return "the creator's amounts are not the pool's";
  }
  return undefined;
}

/** Balance changes of one transaction, computed once per use. */
class Deltas {
  readonly hasTokenBalances: boolean;
  constructor(readonly tx: NormalizedTransaction) {
    this.hasTokenBalances = tx.preTokenBalances.length + tx.postTokenBalances.length > 0;
  }
  #indexOf(address: string): number {
    return this.tx.accountKeys.indexOf(address);
  }
  /** Lamport change and pre-balance of `address`; undefined when it is not in the transaction. */
  lamports(address: string): { delta: bigint; pre: bigint } | undefined {
    const i = this.#indexOf(address);
    const pre = this.tx.preBalances[i];
    const post = this.tx.postBalances[i];
    if (i < 0 || pre === undefined || post === undefined) return undefined;
    return { delta: BigInt(post) - BigInt(pre), pre: BigInt(pre) };
  }
  /** Token balance of the token account `address` before the transaction (absent = 0). */
  pre(address: string): bigint {
    const i = this.#indexOf(address);
    const b = this.tx.preTokenBalances.find((x) => x.accountIndex === i);
    return b && DECIMAL.test(b.amount) ? BigInt(b.amount) : 0n;
  }
  /** Token-balance change of the token account `address` (absent balance = 0). */
  account(address: string): bigint {
    const i = this.#indexOf(address);
    const at = (list: NormalizedTransaction['preTokenBalances']) => {
      const b = list.find((x) => x.accountIndex === i);
      return b && DECIMAL.test(b.amount) ? BigInt(b.amount) : 0n;
    };
    return at(this.tx.postTokenBalances) - at(this.tx.preTokenBalances);
  }
  /** Whether a token account of `owner` of a mint other than `mint` changed balance. */
  ownsOtherTokenChange(owner: string, mint: string): boolean {
    const mints = new Set<string>();
    for (const b of this.tx.postTokenBalances) if (b.owner === owner && b.mint !== mint) mints.add(b.mint);
    for (const b of this.tx.preTokenBalances) if (b.owner === owner && b.mint !== mint) mints.add(b.mint);
    for (const other of mints) if (this.owner(owner, other) !== 0n) return true;
    return false;
  }
  /** Token-balance change of every account of `mint` owned by `owner`. */
  owner(owner: string, mint: string): bigint {
    let d = 0n;
    for (const b of this.tx.postTokenBalances) if (b.owner === owner && b.mint === mint && DECIMAL.test(b.amount)) d += BigInt(b.amount);
    for (const b of this.tx.preTokenBalances) if (b.owner === owner && b.mint === mint && DECIMAL.test(b.amount)) d -= BigInt(b.amount);
    return d;
  }
}

/** Integer square root (floor). */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/** LP tokens PumpSwap's create_pool mints to the creator: ⌊√(base × quote)⌋ − 100 (the locked minimum liquidity). */
function initialLp(base: bigint | undefined, quote: bigint | undefined): bigint | undefined {
  return base === undefined || quote === undefined ? undefined : isqrt(base * quote) - 100n;
}

/** A rent-exempt deposit: (128 + data bytes) × 6960 or × 5080 lamports (the two rates mainnet has charged), data ≤ 10 KiB. */
function isRentDeposit(lamports: bigint): boolean {
  for (const rate of [6960n, 5080n]) {
    if (lamports % rate === 0n && lamports / rate >= 128n && lamports / rate <= 128n + 10_240n) return true;
  }
  return false;
}

/** What a sum is compared with: see the checks in {@link backedByChain}. */
type GroupKind = 'curve' | 'user' | 'vault' | 'bonkBase' | 'payer' | 'curveQuote' | 'lp';
/** A sum of signed amounts over one key (`a` = an account, `b` = a mint or pool), with the messages that contributed. */
interface Group {
  kind: GroupKind;
  a: string;
  b: string;
  /** undefined once a message lacked a needed amount (the group then fails). */
  sum: bigint | undefined;
  messages: TradeMessage[];
}

/** Adds `amount` to the group of (kind, a, b), creating it. */
function addTo(groups: Map<string, Group>, kind: GroupKind, a: string, b: string, m: TradeMessage, amount: bigint | undefined): void {
  const key = `${kind}|${a}|${b}`;
  let g = groups.get(key);
  if (!g) {
    g = { kind, a, b, sum: 0n, messages: [] };
    groups.set(key, g);
  }
  g.sum = g.sum === undefined || amount === undefined ? undefined : g.sum + amount;
  g.messages.push(m);
}

/** The signed amount of a pump.fun trade field: + on a buy, − on a sell. */
function signed(m: TradeMessage, field: string): bigint | undefined {
  return m.side === 'buy' ? int(m, field) : neg(int(m, field));
}

const neg = (x: bigint | undefined) => (x === undefined ? undefined : -x);
const add = (a: bigint | undefined, b: bigint | undefined) => (a === undefined || b === undefined ? undefined : a + b);
const sub = (a: bigint | undefined, b: bigint | undefined) => (a === undefined || b === undefined ? undefined : a - b);

/**
 * `messages` without those the transaction does not back (see the module comment); `unverifiable`:
 * accounts of trade instructions that yielded no message (their sums are not compared). Each one
 * dropped is reported to `onUnknown` as `{kind: 'refused', name: '<KIND>: <reason>'}`. Order kept.
 */
export function backedByChain(
  tx: NormalizedTransaction,
  messages: TradeMessage[],
  onUnknown?: (item: UnknownItem) => void,
  unverifiable?: ReadonlySet<string>,
): TradeMessage[] {
  if (messages.length === 0) return messages;
  const refused = new Map<TradeMessage, string>();
  const complete: TradeMessage[] = [];
  for (const m of messages) {
    const why = missing(m);
    if (why) refused.set(m, why);
    else complete.push(m);
  }
  const d = new Deltas(tx);
  const tokens = d.hasTokenBalances;
  // Lamport checks (pump.fun curves) and token checks (vaults, users), each a sum per key.
  const groups = new Map<string, Group>();
  let running: Map<string, bigint> | undefined;
  let migrations: Map<TradeMessage, TradeMessage> | undefined;
  let created: Map<string, bigint | undefined> | undefined;
  let boosted: boolean | undefined;
  for (const m of complete) {
    if (m.source === 'bonk' && m.transaction_type === 'CREATE') {
      const curve = (m.curve_param as { data?: { supply?: unknown } } | undefined)?.data?.supply;
      created ??= new Map();
      created.set(String(m.pool_state), typeof curve === 'string' && DECIMAL.test(curve) ? BigInt(curve) : undefined);
    }
  }
  for (const m of complete) {
    const kind = m.transaction_type;
    if (m.source === 'pumpfun' && (kind === 'BUY' || kind === 'SELL')) {
      const quote = typeof m.quote_mint === 'string' ? m.quote_mint : undefined;
      if (quote === undefined || SOL_QUOTES.has(quote)) {
        if (tokens && d.ownsOtherTokenChange(String(m.bonding_curve), String(m.mint))) {
          // An event cut before its quote_mint reads as SOL-quoted; the curve's quote tokens moved.
          refused.set(m, 'the curve moved quote tokens but the event names no quote mint');
          continue;
        }
        addTo(groups, 'curve', String(m.bonding_curve), '', m, signed(m, 'sol_amount'));
        if (m.quote_amount !== undefined && int(m, 'quote_amount') !== int(m, 'sol_amount')) {
          refused.set(m, 'quote_amount is not sol_amount on a SOL curve');
          continue;
        }
      } else {
        // Quoted in another mint: no SOL moves (sol_amount 0, the curve's lamports unchanged).
        addTo(groups, 'curve', String(m.bonding_curve), '', m, signed(m, 'sol_amount'));
        if (tokens) addTo(groups, 'curveQuote', String(m.bonding_curve), quote, m, signed(m, 'quote_amount'));
      }
      if (tokens) addTo(groups, 'user', String(m.user), String(m.mint), m, signed(m, 'token_amount'));
    } else if (m.source === 'pumpfun' && kind === 'MIGRATE') {
      // The pool it migrated into: create_pool took exactly what the curve handed over.
      const pool = messages.find((p) => p.source === 'pumpswap' && p.transaction_type === 'CREATE_POOL' && p.base_mint === m.mint);
      if (pool) {
        if (pool.pool !== m.pool || int(m, 'sol_amount') !== int(pool, 'pool_quote_amount') || int(m, 'mint_amount') !== int(pool, 'pool_base_amount'))
          refused.set(m, "amounts are not the new pool's");
        else {
          migrations ??= new Map();
          migrations.set(m, pool);
        }
      } else if (tokens && d.owner(String(m.bonding_curve), String(m.mint)) !== neg(int(m, 'mint_amount'))) {
        refused.set(m, 'mint_amount disagrees with the bonding curve token balance');
      }
    } else if (m.source === 'bonk' && (kind === 'BUY' || kind === 'SELL')) {
      const buy = m.side === 'buy';
      const sol = int(m, 'sol_amount');
      if (sol === undefined || sol !== int(m, buy ? 'amount_in' : 'amount_out')) {
        refused.set(m, 'sol_amount is not the trade amount');
        continue;
      }
      if (!tokens) continue;
      const leaving = m.creator_fee === undefined ? 0n : add(int(m, 'platform_fee'), int(m, 'creator_fee'));
      addTo(groups, 'vault', String(m.quote_vault), '', m, sub(buy ? int(m, 'amount_in') : neg(int(m, 'amount_out')), leaving));
      addTo(groups, 'bonkBase', String(m.base_vault), String(m.pool_state), m, buy ? neg(int(m, 'token_amount')) : int(m, 'token_amount'));
    } else if (
      m.source === 'pumpswap' &&
      (kind === 'BUY' || kind === 'SELL') &&
      int(m, 'fee') !== add(add(int(m, 'lp_fee'), int(m, 'protocol_fee')), int(m, 'coin_creator_fee') ?? 0n)
    ) {
      refused.set(m, 'fee is not lp_fee + protocol_fee + coin_creator_fee');
    } else if (
      m.source === 'pumpswap' &&
      kind === 'SELL' &&
      m.quote_amount_out_without_lp_fee !== undefined &&
      int(m, 'quote_amount_out_without_lp_fee') !== sub(int(m, 'quote_amount_out'), int(m, 'lp_fee'))
    ) {
      refused.set(m, 'quote_amount_out_without_lp_fee is not quote_amount_out − lp_fee');
    } else if (
      m.source === 'pumpswap' &&
      kind === 'CREATE_POOL' &&
      int(m, 'lp_token_amount_out') !== initialLp(int(m, 'pool_base_amount'), int(m, 'pool_quote_amount'))
    ) {
      refused.set(m, 'lp_token_amount_out is not √(base × quote) − 100');
    } else if (m.source === 'pumpswap' && tokens) {
      if (kind === 'DEPOSIT') addTo(groups, 'lp', String(m.user), String(m.lp_mint), m, int(m, 'lp_token_amount_out'));
      if (kind === 'WITHDRAW') addTo(groups, 'lp', String(m.user), String(m.lp_mint), m, neg(int(m, 'lp_token_amount_in')));
      const base = String(m.pool_base_token_account);
      const quote = String(m.pool_quote_token_account);
      if (m.pool_base_token_account === undefined || m.pool_quote_token_account === undefined) continue;
      const [b, q] =
        kind === 'BUY'
          ? [neg(int(m, 'base_amount_out')), int(m, 'quote_amount_in_with_lp_fee') ?? int(m, 'quote_amount_in')]
          : kind === 'SELL'
            ? [int(m, 'base_amount_in'), neg(sub(int(m, 'quote_amount_out'), int(m, 'lp_fee')))]
            : kind === 'DEPOSIT'
              ? [int(m, 'base_amount_in'), int(m, 'quote_amount_in')]
              : kind === 'WITHDRAW'
                ? [neg(int(m, 'base_amount_out')), neg(int(m, 'quote_amount_out'))]
                : [int(m, 'pool_base_amount'), int(m, 'pool_quote_amount')];
      // init_boost (pump.fun migrate_v2) moves quote out of the vault with no message of its own.
      boosted ??= tx.logs?.includes('Program log: Instruction: InitBoost') ?? false;
      running ??= new Map();
      addTo(groups, 'vault', base, '', m, b);
      if (!boosted) addTo(groups, 'vault', quote, '', m, q);
      // The event's reserves are the vaults' balances before the instruction, its *_after ones after
      // (the price is computed from them): walk each vault from its balance before the transaction.
      for (const [vault, delta, side] of [
        [base, b, 'base'],
        [quote, q, 'quote'],
      ] as const) {
        if ((side === 'quote' && boosted) || unverifiable?.has(vault)) continue;
        const before = running.get(vault) ?? d.pre(vault);
        const after = delta === undefined ? undefined : before + delta;
        running.set(vault, after ?? before);
        const stated = int(m, `pool_${side}_token_reserves`);
        if (
          (kind !== 'CREATE_POOL' && stated !== before) ||
          (m[`pool_${side}_token_reserves_after`] !== undefined && int(m, `pool_${side}_token_reserves_after`) !== after)
        ) {
          refused.set(m, `pool_${side}_token_reserves disagree with the vault balance`);
        }
      }
    } else if (m.source === 'raydium_cpmm' && kind === 'SWAP' && tokens) {
      addTo(groups, 'vault', String(m.input_vault), '', m, int(m, 'input_amount'));
      addTo(groups, 'vault', String(m.output_vault), '', m, neg(int(m, 'output_amount')));
      // A Token-2022 transfer fee is withheld between the payer and the vault, so only the payer's
      // account shows it: when one is charged, that account moves by exactly amount_in / amount_out.
      if (int(m, 'input_transfer_fee') !== 0n) addTo(groups, 'payer', String(m.input_token_account), '', m, neg(int(m, 'amount_in')));
      if (int(m, 'output_transfer_fee') !== 0n) addTo(groups, 'payer', String(m.output_token_account), '', m, int(m, 'amount_out'));
    }
  }
  for (const g of groups.values()) {
    // Sums over an account a message-less trade instruction also used cannot be compared.
    if (unverifiable && (unverifiable.has(g.a) || unverifiable.has(g.b))) continue;
    const why = groupFailure(g, d, created);
    if (why) for (const m of g.messages) if (!refused.has(m)) refused.set(m, why);
  }
  // A migration checked against its pool's CREATE_POOL stands or falls with it.
  if (migrations) for (const [m, pool] of migrations) if (refused.has(pool) && !refused.has(m)) refused.set(m, "its pool's CREATE_POOL is refused");
  if (refused.size === 0) return messages;
  for (const [m, why] of refused) onUnknown?.({ programId: m.program_id, kind: 'refused', name: `${m.transaction_type}: ${why}`, signature: tx.signature });
  return messages.filter((m) => !refused.has(m));
}

/** Why group `g`'s sum is not what the chain shows, or undefined when it is. */
function groupFailure(g: Group, d: Deltas, created: ReadonlyMap<string, bigint | undefined> | undefined): string | undefined {
  const sum = g.sum;
  switch (g.kind) {
    case 'curve': {
      const l = d.lamports(g.a);
      if (sum === undefined || l === undefined) return 'bonding curve not in the transaction';
      return l.delta === sum || (l.pre === 0n && isRentDeposit(l.delta - sum)) ? undefined : 'sol_amount disagrees with the bonding curve lamports';
    }
    case 'user':
      return sum !== undefined && d.owner(g.a, g.b) === sum ? undefined : 'token_amount disagrees with the user token balance';
    case 'curveQuote':
      return sum !== undefined && d.owner(g.a, g.b) === sum ? undefined : 'quote_amount disagrees with the bonding curve quote balance';
    case 'lp':
      return sum !== undefined && d.owner(g.a, g.b) === sum ? undefined : 'LP amount disagrees with the provider LP token balance';
    case 'vault':
      return sum !== undefined && d.account(g.a) === sum ? undefined : 'amounts disagree with the pool vault balance';
    case 'payer':
      return sum !== undefined && d.account(g.a) === sum ? undefined : 'transfer fee disagrees with the payer token balance';
    case 'bonkBase': {
      const change = d.account(g.a);
      const minted = created?.get(g.b);
      const ok = sum !== undefined && (created?.has(g.b) ? minted !== undefined && change - sum === minted : change === sum);
      return ok ? undefined : 'token_amount disagrees with the base vault balance';
    }
  }
}
