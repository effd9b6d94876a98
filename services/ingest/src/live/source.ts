/**
 * What every live Solana source (Yellowstone gRPC, RPC WebSocket) shares: the
 * iteration contract, reconnect backoff, resume bookkeeping and lag metrics.
 *
 * Contract: `source.transactions(signal)` is an async iterable of
 * {@link NormalizedTransaction}s, each one yielded once. The consumer decodes a
 * transaction and hands its trades to the ordered publish window (src/publisher.ts,
 * which publishes them in order and retries until they are acknowledged) before it
 * asks for the next one, so when the source is asked for transaction N+1 it knows N
 * was processed; that is what "last processed slot" means for resuming after a
 * dropped connection. While the window is full the consumer does not ask
 * (back-pressure). A source reconnects by itself and only ends when `signal` aborts.
 */
import type { Counter, Gauge, Registry } from 'prom-client';
import { counterOnce, gaugeOnce } from '@tradewind/lib';
import type { NormalizedTransaction } from '../decode/transaction.js';
import type { Commitment } from '../decode/types.js';
import type { SlotUpdate } from './slot-tracker.js';

/** The four program ids ingest decodes (defined beside the prefilter that uses them). */
export { TRADE_PROGRAM_IDS } from '../decode/prefilter.js';

/** Solana commitment levels (defined beside the message types that carry one). */
export type { Commitment } from '../decode/types.js';

/** A live source of transactions touching the trade programs. */
export interface TransactionSource {
  /** `yellowstone` or `rpc`: used as the `source` metric label and in logs. */
  readonly name: string;
  /**
   * Commitment of the subscription / requests the source makes; every transaction it
   * yields carries it as `commitment` (and so does every message decoded from it).
   */
  readonly commitment: Commitment;
  /**
   * Transactions in the order the chain delivered them (slot order), each at most
   * once. A source may leave out failed transactions (it is told to filter them
   * server-side where the protocol allows); the decoder drops any that arrive. Reconnects with
   * {@link backoffDelayMs} on any connection error and resumes after the last
   * transaction the consumer took. Ends (returns) only when `signal` aborts.
   */
  transactions(signal: AbortSignal): AsyncIterable<NormalizedTransaction>;
  /**
   * The same transactions with the source's slot updates among them, in the order the source delivered them
   * (a slot's status after its transactions), for the slot messages (./slot-tracker.ts). A source without
   * slot updates leaves it out; `transactions` is then what ingest reads.
   */
  updates?(signal: AbortSignal): AsyncIterable<NormalizedTransaction | SlotUpdate>;
}

/** Reconnect policy: exponential, 1 s doubling to a 30 s cap by default (issue 3 §6). */
export interface BackoffOptions {
  /** First delay, ms. Default 1000. */
  initialMs: number;
  /** Largest delay, ms. Default 30000. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 30_000 };

/**
 * Delay before reconnect attempt `attempt` (0-based: the first retry waits
 * `initialMs`, then 2×, 4×, … capped at `maxMs`). A connection that delivered
 * data resets the attempt count to 0.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const exp = Math.min(attempt, 30);
  return Math.min(options.maxMs, options.initialMs * 2 ** exp);
}

/** Resolves after `ms` or when `signal` aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Resume bookkeeping: the last processed slot and the signatures already
 * processed in recent slots, so that a reconnect that replays from the last
 * processed slot (inclusive) yields no duplicates and no gaps.
 *
 * `windowSlots`: how many slots below the newest processed slot keep their
 * signatures (default 150 ≈ 60 s at 400 ms per slot). Older entries are dropped.
 */
export class ResumeState {
  #lastSlot: number | null;
  #lastSignature: string | null = null;
  readonly #seen = new Map<number, Set<string>>();
  readonly #windowSlots: number;

  /** `fromSlot`: where a fresh start begins (null = the chain tip). */
  constructor(fromSlot: number | null = null, windowSlots = 150) {
    this.#lastSlot = fromSlot;
    this.#windowSlots = windowSlots;
  }

  /** Highest slot of a processed transaction (or the configured start slot), null before any. */
  get lastSlot(): number | null {
    return this.#lastSlot;
  }

  /** Signature of the last processed transaction, null before any. */
  get lastSignature(): string | null {
    return this.#lastSignature;
  }

  /** True when `signature` in `slot` was already processed (a replay after reconnect). */
  has(slot: number, signature: string): boolean {
    return this.#seen.get(slot)?.has(signature) ?? false;
  }

  /** Records a processed transaction. */
  add(slot: number, signature: string): void {
    let set = this.#seen.get(slot);
    if (!set) this.#seen.set(slot, (set = new Set()));
    set.add(signature);
    this.#lastSignature = signature;
    if (this.#lastSlot === null || slot > this.#lastSlot) {
      this.#lastSlot = slot;
      const floor = slot - this.#windowSlots;
      for (const s of this.#seen.keys()) if (s < floor) this.#seen.delete(s);
    }
  }
}

/** Prometheus metrics of a live source; label `source` = {@link TransactionSource.name}. */
export interface SourceMetrics {
  /** Chain tip slot seen by the source minus the slot of the last processed transaction. */
  slotLag: Gauge<'source'>;
  /** Now minus the block time of the last processed transaction, seconds. */
  secondsBehind: Gauge<'source'>;
  /** Highest slot the source has seen (tip). */
  tipSlot: Gauge<'source'>;
  /** 1 while connected and streaming, else 0. */
  connected: Gauge<'source'>;
  reconnects: Counter<'source'>;
  transactions: Counter<'source'>;
  /** Transactions delivered again after a reconnect and skipped. */
  duplicatesSkipped: Counter<'source'>;
}

/** Registers (or reuses) the source metrics on `registry`. */
export function sourceMetrics(registry: Registry): SourceMetrics {
  const gauge = (name: string, help: string) => gaugeOnce(registry, name, help, ['source']);
  const counter = (name: string, help: string) => counterOnce(registry, name, help, ['source']);
  return {
    slotLag: gauge('tradewind_ingest_source_slot_lag', 'Chain tip slot minus the slot of the last processed transaction'),
    secondsBehind: gauge('tradewind_ingest_source_seconds_behind', 'Now minus the block time of the last processed transaction, seconds'),
    tipSlot: gauge('tradewind_ingest_source_tip_slot', 'Highest slot the live source has seen'),
    connected: gauge('tradewind_ingest_source_connected', '1 while the live source is connected and streaming'),
    reconnects: counter('tradewind_ingest_source_reconnects_total', 'Reconnect attempts of the live source'),
    transactions: counter('tradewind_ingest_source_transactions_total', 'Transactions taken from the live source'),
    duplicatesSkipped: counter('tradewind_ingest_source_duplicates_skipped_total', 'Transactions delivered again after a reconnect and skipped'),
  };
}

/**
 * Lag tracking shared by sources: call `tip(slot)` whenever the source learns of
 * a newer chain slot and `processed(slot, blockTimeMs)` for each transaction
 * handed to the consumer.
 */
export class LagTracker {
  #tip = 0;
  #last: number | null = null;
  constructor(
    private readonly metrics: SourceMetrics,
    private readonly source: string,
    private readonly now: () => number = Date.now,
  ) {}

  tip(slot: number): void {
    if (slot <= this.#tip) return;
    this.#tip = slot;
    this.metrics.tipSlot.set({ source: this.source }, slot);
    if (this.#last !== null) this.metrics.slotLag.set({ source: this.source }, Math.max(0, this.#tip - this.#last));
  }

  processed(slot: number, blockTimeMs: number | null): void {
    this.#last = slot;
    this.tip(slot);
    this.metrics.slotLag.set({ source: this.source }, Math.max(0, this.#tip - slot));
    if (blockTimeMs !== null) this.metrics.secondsBehind.set({ source: this.source }, Math.max(0, (this.now() - blockTimeMs) / 1000));
  }
}
