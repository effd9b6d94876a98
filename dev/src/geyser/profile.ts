/**
 * The synthetic chain's clock: the rate profile (steady, then a burst, repeating), how many
 * transactions the chain has produced by a given time, the default first slot and the per-pass
 * signatures.
 */
import { createHash } from 'node:crypto';

/** Transactions per second over time: `steadyTxPerSecond` for `steadyMs`, then `burstTxPerSecond` for `burstMs`, repeating. */
export interface GeyserRateProfile {
  /** Rate of the steady phase, transactions per second. */
  steadyTxPerSecond: number;
  /** Rate of the burst phase, transactions per second. */
  burstTxPerSecond: number;
  /** Length of the steady phase, ms. */
  steadyMs: number;
  /** Length of the burst phase, ms. */
  burstMs: number;
}

/**
 * 300 tx/s for 60 s, then 3,000 tx/s for 30 s, repeating: the load profile Tradewind's soak runs
 * use (a steady flow of launchpad trades and a burst ten times it, as around a token launch); a
 * chosen load, not a measurement of mainnet.
 */
export const DEFAULT_GEYSER_RATE_PROFILE: GeyserRateProfile = Object.freeze({
  steadyTxPerSecond: 300,
  burstTxPerSecond: 3_000,
  steadyMs: 60_000,
  burstMs: 30_000,
});

/** Solana's target slot duration, ms (solana-clock `DEFAULT_MS_PER_SLOT`). */
export const SOLANA_MS_PER_SLOT = 400;

/**
 * Checks a profile. @throws RangeError naming the bad field: rates must be finite and ≥ 0,
 * durations finite and ≥ 0 with a positive sum.
 */
export function validateRateProfile(p: GeyserRateProfile): GeyserRateProfile {
  for (const key of ['steadyTxPerSecond', 'burstTxPerSecond', 'steadyMs', 'burstMs'] as const) {
    const v = p[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`profile.${key} must be a finite number ≥ 0, got ${String(v)}`);
  }
  if (p.steadyMs + p.burstMs <= 0) throw new RangeError('profile.steadyMs + profile.burstMs must be > 0');
  return p;
}

/** The phase at `elapsedMs` since the chain started, and its rate (tx/s). */
export function phaseAt(p: GeyserRateProfile, elapsedMs: number): { phase: 'steady' | 'burst'; txPerSecond: number } {
  const r = elapsedMs % (p.steadyMs + p.burstMs);
  return r < p.steadyMs ? { phase: 'steady', txPerSecond: p.steadyTxPerSecond } : { phase: 'burst', txPerSecond: p.burstTxPerSecond };
}

/**
 * Transactions the chain has produced `elapsedMs` after it started: the integral of the profile's
 * rate, rounded down. The chain emits exactly this many by then, whatever its timer's jitter.
 */
export function producedBy(p: GeyserRateProfile, elapsedMs: number): number {
  if (elapsedMs <= 0) return 0;
  const cycle = p.steadyMs + p.burstMs;
  const cycles = Math.floor(elapsedMs / cycle);
  const r = elapsedMs - cycles * cycle;
  const partial = r <= p.steadyMs ? p.steadyTxPerSecond * r : p.steadyTxPerSecond * p.steadyMs + p.burstTxPerSecond * (r - p.steadyMs);
  return Math.floor((cycles * (p.steadyTxPerSecond * p.steadyMs + p.burstTxPerSecond * p.burstMs) + partial) / 1000 + 1e-9);
}

/**
 * Default first slot: where mainnet would be at `nowMs` had it kept {@link SOLANA_MS_PER_SLOT} per
 * slot since the newest recorded transaction (`anchor`: its slot and block time, s), and at least
 * one above the highest recorded slot. It follows the clock, so a restarted stand-in never goes
 * back below a slot a consumer checkpointed in an earlier run.
 */
export function defaultFirstSlot(anchor: { slot: number; blockTime: number | null } | null, highestSlot: number, nowMs: number): number {
  const byClock = anchor?.blockTime == null ? 0 : anchor.slot + Math.floor((nowMs - anchor.blockTime * 1000) / SOLANA_MS_PER_SLOT);
  return Math.max(highestSlot + 1, byClock);
}

/**
 * The 64-byte signatures of pass `pass` over the recording, one per template in order, in one
 * buffer: SHA-512(original signature ‖ "tradewind-local-geyser" ‖ u64 LE `seed` ‖ u64 LE `pass`).
 * Deterministic, different for every pass and seed (the server's first slot, which follows the
 * clock by default, so a restarted stand-in does not repeat the signatures of an earlier run inside
 * the TRADES duplicate window). Not Ed25519 signatures of anything: no consumer verifies them.
 */
export function passSignatures(originals: readonly Uint8Array[], seed: number, pass: number): Buffer {
  const suffix = Buffer.alloc(16);
  suffix.writeBigUInt64LE(BigInt(seed), 0);
  suffix.writeBigUInt64LE(BigInt(pass), 8);
  const out = Buffer.allocUnsafe(originals.length * 64);
  originals.forEach((sig, i) => {
    createHash('sha512')
      .update(sig)
      .update('tradewind-local-geyser')
      .update(suffix)
      .digest()
      .copy(out, i * 64);
  });
  return out;
}
