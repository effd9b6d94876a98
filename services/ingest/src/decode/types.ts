import type { DecodedValue } from './borsh-tolerant.js';

/**
 * Kinds only the AMMs (PumpSwap, Raydium CPMM) produce: CREATE_POOL (a new pool
 * with its initial liquidity), DEPOSIT / WITHDRAW (liquidity added / removed),
 * SWAP (Raydium CPMM swap; PumpSwap swaps are BUY / SELL of its base token).
 */
export type AmmTransactionType = 'CREATE_POOL' | 'DEPOSIT' | 'WITHDRAW' | 'SWAP';

/**
 * Solana commitment levels, weakest first
 * (https://solana.com/docs/rpc#configuring-state-commitment): `processed` (the
 * node's most recent block; the cluster may still skip it), `confirmed` (voted
 * on by a supermajority of stake), `finalized` (recognised by the cluster as
 * final: never rolled back).
 */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Every {@link Commitment}, weakest first (the `enum` of the message schemas' `commitment`). */
export const COMMITMENTS: readonly Commitment[] = ['processed', 'confirmed', 'finalized'];

/**
 * Version of the trade message format (`schema_version` on every message, `const` in each subject's
 * JSON Schema, packages/contracts/schemas/). 1: messages without the field (before product spec §3's
 * stream-message names were added); 2: + `schema_version`, basic.pumpfun `type` / `data`, the
 * premium.pumpswap `tokenIn` … `fee` fields, premium.raydium SWAP limits as null instead of absent.
 * Fields are only ever added within a version; a change consumers must notice bumps it.
 */
export const TRADE_MESSAGE_SCHEMA_VERSION = 2;

/** Fields every trade message carries (docs/architecture.md §6). */
export interface CommonMessageFields {
  /** Launchpad or AMM the trade happened on. */
  source: 'pumpfun' | 'bonk' | 'pumpswap' | 'raydium_cpmm';
  /**
   * CREATE, BUY, SELL; COMPLETE (pump.fun bonding curve filled, from the same
   * instruction as the completing BUY); MIGRATE (liquidity moved to an AMM).
   */
  transaction_type: 'CREATE' | 'BUY' | 'SELL' | 'COMPLETE' | 'MIGRATE' | AmmTransactionType;
  /** Transaction signature, base58. */
  signature: string;
  /** Slot of the block, or null when the capture lacks it. */
  slot: number | null;
  /**
   * Commitment at which the source that produced the message saw the
   * transaction (= the normalised transaction's `commitment`): Yellowstone →
   * the SubscribeRequest's (YELLOWSTONE_COMMITMENT), RPC → logsSubscribe /
   * getTransaction's (RPC_COMMITMENT), replay → `confirmed` (RECORDING_COMMITMENT).
   */
  commitment: Commitment;
  /** Block time in ms since the Unix epoch (blockTime × 1000), or null. */
  block_time_ms: number | null;
  /** [outer] for a top-level instruction, [outer, inner] for a CPI (inner = index in meta.innerInstructions). */
  instruction_path: number[];
  /** Program id, base58 (= IDL `address`). */
  program_id: string;
  /** {@link TRADE_MESSAGE_SCHEMA_VERSION}. */
  schema_version: typeof TRADE_MESSAGE_SCHEMA_VERSION;
}

/**
 * The `data` object of every basic.pumpfun message: product spec §3 "Pump.fun trade: type, data
 * {symbol, price, volume, side, timestamp, txHash, poolAddress}". A member the message's kind does
 * not have, or the chain does not state, is null (never absent, never a made-up value).
 * Units: see packages/contracts/schemas/basic.pumpfun.schema.json and docs/decoding.md.
 */
export type PumpfunTradeData = {
  /** Token symbol: the CreateEvent's (CREATE), else from a CREATE of the mint (same transaction or earlier: TokenNameCache, token-names.ts); null when unknown. */
  symbol: string | null;
  /** SOL per whole token after the instruction (= price_sol; CREATE: the curve's initial price); null on COMPLETE / MIGRATE and non-SOL curves. */
  price: number | null;
  /** BUY / SELL: SOL into / out of the bonding curve, fees excluded = sol_amount / 1e9; null on other kinds and non-SOL curves. */
  volume: number | null;
  /** BUY / SELL: the side; null on other kinds. */
  side: 'buy' | 'sell' | null;
  /** ms since the Unix epoch: the event's `timestamp` (the slot's clock, whole seconds) × 1000, else block_time_ms; null when neither. */
  timestamp: number | null;
  /** = signature. */
  txHash: string;
  /** = bonding_curve: the pump.fun bonding curve (the token's pool) the instruction used. */
  poolAddress: string;
};

/** `type` of every basic.pumpfun message (product spec §3); the kind is in `transaction_type`. */
export const PUMPFUN_MESSAGE_TYPE = 'trade';

/**
 * A pump.fun message (subject `basic.pumpfun`). Besides the fields typed here it
 * carries every field of the program's TradeEvent / CreateEvent that the event
 * bytes hold (snake_case IDL names; u64/i64/u128 as decimal strings, pubkeys
 * base58). Fields a layout version lacks are absent. See the JSON Schema
 * packages/contracts/schemas/basic.pumpfun.schema.json.
 */
export interface PumpfunMessage extends CommonMessageFields {
  source: 'pumpfun';
  mint: string;
  /** Bonding curve account (pool), from the instruction's `bonding_curve` account. */
  bonding_curve: string;
  side?: 'buy' | 'sell';
  /** SOL per token: (virtual_sol_reserves / 1e9) / (virtual_token_reserves / 1e6); SOL-quoted curves only. */
  price_sol?: number;
  /** sol_amount / 1e9. */
  sol_amount_ui?: number;
  /** token_amount / 1e6 (pump.fun mints have 6 decimals). */
  token_amount_ui?: number;
  /** {@link PUMPFUN_MESSAGE_TYPE}. */
  type: typeof PUMPFUN_MESSAGE_TYPE;
  /** Product spec §3 fields, see {@link PumpfunTradeData}. */
  data: PumpfunTradeData;
  [field: string]: DecodedValue | undefined;
}

/**
 * A LetsBonk.fun / Raydium LaunchLab message (subject `basic.bonk`): instruction
 * accounts by IDL name, the CREATE `base_mint_param`, and the TradeEvent /
 * PoolCreateEvent fields. See packages/contracts/schemas/basic.bonk.schema.json.
 */
export interface BonkMessage extends CommonMessageFields {
  source: 'bonk';
  pool_state: string;
  base_mint: string;
  quote_mint: string;
  side?: 'buy' | 'sell';
  /** Quote (SOL) amount of the trade in lamports, decimal string. */
  sol_amount?: string;
  /** Base token amount of the trade in base units, decimal string. */
  token_amount?: string;
  /** SOL per token after the trade: (virtual_quote + real_quote_after) / (virtual_base − real_base_after) × 10^(base_decimals − 9). */
  price_sol?: number;
  /** LaunchLab PlatformConfig the pool belongs to; null only on migrate_to_amm (no such account passed). */
  platform_config?: string | null;
  /** Whether platform_config is one of the configured LetsBonk.fun platform configs; null when platform_config is. */
  is_letsbonk: boolean | null;
  [field: string]: DecodedValue | undefined;
}

/**
 * A PumpSwap message (subject `premium.pumpswap`): buy* → BUY, sell* → SELL,
 * create_pool → CREATE_POOL, deposit → DEPOSIT, withdraw → WITHDRAW. Carries
 * every field of the program's BuyEvent / SellEvent / CreatePoolEvent /
 * DepositEvent / WithdrawEvent that the event bytes hold (absent when an older
 * layout lacks it), the instruction accounts named here, and derived values.
 * See packages/contracts/schemas/premium.pumpswap.schema.json and docs/decoding.md.
 */
export interface PumpswapMessage extends CommonMessageFields {
  source: 'pumpswap';
  transaction_type: 'BUY' | 'SELL' | 'CREATE_POOL' | 'DEPOSIT' | 'WITHDRAW';
  /** Pool account (instruction account `pool`). */
  pool: string;
  /** Pool base mint (instruction account `base_mint`). */
  base_mint: string;
  /** Pool quote mint (instruction account `quote_mint`), WSOL for SOL pools. */
  quote_mint: string;
  /** The traded token: = base_mint. */
  mint: string;
  side?: 'buy' | 'sell';
  /** SOL per base token after the instruction (constant-product spot price); WSOL-quoted pools only. */
  price_sol?: number;
  /** Quote units per base token after the instruction; pools quoted in another mint. */
  price_quote?: number;
  // Product spec §3 "PumpSwap swap: tokenIn, tokenOut, amountIn, amountOut, timestamp, txHash,
  // poolAddress, fee" (`timestamp` is the event's, below). On CREATE_POOL / DEPOSIT / WITHDRAW, which
  // are not swaps, tokenIn … amountOut and fee are null.
  /** Mint the user paid with: BUY quote_mint, SELL base_mint. */
  tokenIn: string | null;
  /** Mint the user received: BUY base_mint, SELL quote_mint. */
  tokenOut: string | null;
  /** What left the user, fees included, raw base units of tokenIn (BUY = user_quote_amount, SELL = base_amount_in). */
  amountIn: string | null;
  /** What reached the user, fees deducted, raw base units of tokenOut (BUY = base_amount_out, SELL = user_quote_amount_out). */
  amountOut: string | null;
  /** Event timestamp, unix seconds as a decimal string (the field the events always had). */
  timestamp: string;
  /** = signature. */
  txHash: string;
  /** = pool. */
  poolAddress: string;
  /** Every fee of the swap (LP + protocol + coin creator), raw quote base units (lamports for WSOL). */
  fee: string | null;
  [field: string]: DecodedValue | undefined;
}

/**
 * A Raydium CPMM message (subject `premium.raydium`): swap_base_input /
 * swap_base_output → SWAP, initialize → CREATE_POOL, deposit → DEPOSIT,
 * withdraw → WITHDRAW. Instruction accounts by IDL name, the instruction's
 * limits, the SwapEvent / LpChangeEvent fields the event bytes hold, and
 * derived values. See packages/contracts/schemas/premium.raydium.schema.json.
 */
export interface RaydiumCpmmMessage extends CommonMessageFields {
  source: 'raydium_cpmm';
  transaction_type: 'SWAP' | 'CREATE_POOL' | 'DEPOSIT' | 'WITHDRAW';
  /** Pool account (instruction account `pool_state`). */
  pool_state: string;
  /** SWAP: what left the payer's input token account, raw units (= SwapEvent input_amount + input_transfer_fee). */
  amount_in?: string;
  /** SWAP: what reached the payer's output token account, raw units (= SwapEvent output_amount − output_transfer_fee). */
  amount_out?: string;
  /** SWAP: mint of the token sold (instruction account `input_token_mint`). */
  input_mint?: string;
  /** SWAP: mint of the token bought (instruction account `output_token_mint`). */
  output_mint?: string;
  /** SWAP: swap_base_input's limit on amount_out, raw; null for swap_base_output (which has none). */
  minimum_amount_out?: string | null;
  /** SWAP: swap_base_output's limit on amount_in, raw; null for swap_base_input. */
  max_amount_in?: string | null;
  /** SOL per token after the instruction; pools with exactly one WSOL side only. */
  price_sol?: number;
  [field: string]: DecodedValue | undefined;
}

/** One decoded trade: a plain JSON-serialisable object. */
export type TradeMessage = PumpfunMessage | BonkMessage | PumpswapMessage | RaydiumCpmmMessage;
