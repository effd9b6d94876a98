import type { DecodedValue } from './borsh-tolerant.js';

/** Fields every trade message carries (ARCHITECTURE §6). */
export interface CommonMessageFields {
  /** Launchpad the trade happened on. */
  source: 'pumpfun' | 'bonk';
  transaction_type: 'CREATE' | 'BUY' | 'SELL';
  /** Transaction signature, base58. */
  signature: string;
  /** Slot of the block, or null when the capture lacks it. */
  slot: number | null;
  /** Block time in ms since the Unix epoch (blockTime × 1000), or null. */
  block_time_ms: number | null;
  /** [outer] for a top-level instruction, [outer, inner] for a CPI (inner = index in meta.innerInstructions). */
  instruction_path: number[];
  /** Program id, base58 (= IDL `address`). */
  program_id: string;
}

/**
 * A pump.fun message (subject `basic.pumpfun`). Besides the fields typed here it
 * carries every field of the program's TradeEvent / CreateEvent that the event
 * bytes hold (snake_case IDL names; u64/i64/u128 as decimal strings, pubkeys
 * base58). Fields a layout version lacks are absent. See the JSON Schema
 * services/ingest/schemas/basic.pumpfun.schema.json.
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
  [field: string]: DecodedValue | undefined;
}

/**
 * A LetsBonk.fun / Raydium LaunchLab message (subject `basic.bonk`): instruction
 * accounts by IDL name, the CREATE `base_mint_param`, and the TradeEvent /
 * PoolCreateEvent fields. See services/ingest/schemas/basic.bonk.schema.json.
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
  [field: string]: DecodedValue | undefined;
}

/** One decoded trade: a plain JSON-serialisable object. */
export type TradeMessage = PumpfunMessage | BonkMessage;
