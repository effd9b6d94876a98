/**
 * One Subscribe stream of the mainnet-shaped Geyser stand-in: its filters (compiled once per
 * request against the recording), its bounded queue of updates and the stream's flow control.
 *
 * Back-pressure as on the real server (yellowstone-grpc-geyser `grpc.rs`): updates go into a
 * per-subscriber queue bounded by `maxQueuedUpdates` (config `grpc.channel_capacity`) that the
 * HTTP/2 stream drains as fast as the client reads. Here an update is handed to grpc-js at once
 * while its `write()` keeps returning true; after a false the stream waits for `'drain'` and
 * updates queue up meanwhile. An update that finds the queue full makes the subscriber "lagged":
 * nothing more is queued, the updates already queued are still delivered, then the stream ends
 * with INTERNAL "lagged to send an update" (the real server's `TrySendError::Full` path).
 * Queued transaction updates are references into the chain's slots and are encoded when written,
 * so a full default-sized queue holds no encoded bytes.
 */
import * as grpc from '@grpc/grpc-js';
import { CommitmentLevel, SlotStatus, SubscribeUpdate, type SubscribeRequest, type SubscribeRequestFilterTransactions } from '@triton-one/yellowstone-grpc';
import { DEAD_SLOT_ERROR, SlotProgress, syntheticBlockhash, type SlotRecord } from './chain.js';
import { GEYSER_LAGGED_MESSAGE, SLOT_STATUS_OF_COMMITMENT, transactionFilterError, transactionMatches, type SubscribeResponse } from './protocol.js';
import { encodeFilterNames, encodeTransactionUpdate, SIGNATURE_BYTES, type TransactionTemplate } from './wire.js';

/** A recorded transaction as the filters and the encoder see it. */
export interface ServedTemplate {
  template: TransactionTemplate;
  /** Every account key, base58 (static, then loaded). */
  keys: ReadonlySet<string>;
  failed: boolean;
  isVote: boolean;
}

/** Why a stream ended. */
export type EndReason = 'lagged' | 'cancelled' | 'error' | 'client-end' | 'refused' | 'stopped';

/** What a subscriber needs from its server. */
export interface SubscriberContext {
  templates: readonly ServedTemplate[];
  maxQueuedUpdates: number;
  pingIntervalMs: number;
  /** A transaction update was written (see MainnetGeyserOptions.onSend). */
  onTransactionWritten: (sub: GeyserSubscriber, rec: SlotRecord, i: number, sentMs: number) => void;
  /** A slot status update was handed to the stream (see MainnetGeyserOptions.onSlotStatus). */
  onSlotStatusSent?: (sub: GeyserSubscriber, rec: SlotRecord, status: SlotStatus, sentMs: number) => void;
  /** The stream ended (called once). */
  onEnd: (sub: GeyserSubscriber, reason: EndReason, detail?: string) => void;
}

interface CompiledRequest {
  commitment: CommitmentLevel;
  /** Progress a slot needs before its transactions go out at this commitment. */
  progress: SlotProgress;
  /** Per recorded transaction: its encoded filter names, null when no filter takes it (filters without `signature`). */
  byTemplate: (Buffer | null)[];
  /** The transactions filters when one of them names a signature: matched per transaction instead. */
  perTransaction: [string, SubscribeRequestFilterTransactions][] | null;
  blockMeta: string[];
  slots: { name: string; byCommitment: boolean; interslot: boolean }[];
}

/** A queued transaction update: transaction `i` of `rec`, under the encoded filter names `filters`. */
interface TxRef {
  rec: SlotRecord;
  i: number;
  filters: Buffer;
}

const PROGRESS_OF: Record<number, SlotProgress> = {
  [CommitmentLevel.PROCESSED]: SlotProgress.processed,
  [CommitmentLevel.CONFIRMED]: SlotProgress.confirmed,
  [CommitmentLevel.FINALIZED]: SlotProgress.finalized,
};

const COMMITTED: ReadonlySet<SlotStatus> = new Set([SlotStatus.SLOT_PROCESSED, SlotStatus.SLOT_CONFIRMED, SlotStatus.SLOT_FINALIZED]);

/**
 * Compiles a SubscribeRequest against the recording.
 * @returns the compiled request, or the INVALID_ARGUMENT details the real server answers with.
 */
export function compileRequest(request: SubscribeRequest, templates: readonly ServedTemplate[]): CompiledRequest | string {
  const commitment = request.commitment ?? CommitmentLevel.PROCESSED;
  const progress = PROGRESS_OF[commitment];
  if (progress === undefined) return `failed to create filter: invalid commitment ${String(commitment)}`;
  const invalid = transactionFilterError(request.transactions);
  if (invalid) return invalid;
  const filters = Object.entries(request.transactions);
  const bySignature = filters.some(([, f]) => f.signature !== undefined);
  const encoded = new Map<string, Buffer>();
  const byTemplate = templates.map((t) => {
    if (bySignature) return null;
    const names = filters.filter(([, f]) => transactionMatches(f, { ...t, signature: '' })).map(([name]) => name);
    if (names.length === 0) return null;
    const key = names.join('\0');
    const known = encoded.get(key);
    if (known) return known;
    const bytes = encodeFilterNames(names);
    encoded.set(key, bytes);
    return bytes;
  });
  return {
    commitment,
    progress,
    byTemplate,
    perTransaction: bySignature ? filters : null,
    blockMeta: Object.keys(request.blocksMeta),
    slots: Object.entries(request.slots).map(([name, f]) => ({ name, byCommitment: f.filterByCommitment === true, interslot: f.interslotUpdates === true })),
  };
}

/** One Subscribe stream (see the module comment). */
export class GeyserSubscriber {
  readonly #call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeResponse>;
  readonly #ctx: SubscriberContext;
  readonly #pingTimer: NodeJS.Timeout;
  #request: CompiledRequest | null = null;
  #queue: (Buffer | TxRef)[] = [];
  #head = 0;
  #waitingForDrain = false;
  #state: 'open' | 'lagged' | 'ended' = 'open';

  constructor(
    readonly id: number,
    call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeResponse>,
    ctx: SubscriberContext,
  ) {
    this.#call = call;
    this.#ctx = ctx;
    this.#ping();
    this.#pingTimer = setInterval(() => this.#ping(), ctx.pingIntervalMs);
    this.#pingTimer.unref();
    call.on('cancelled', () => this.#ended('cancelled'));
    call.on('error', (err: Error) => this.#ended('error', err.message));
    call.on('end', () => {
      // The client closed its side: the real server takes that as a disconnect.
      if (this.#state !== 'open') return;
      this.#finish('client-end');
      call.end();
    });
    call.on('close', () => this.#ended('cancelled'));
  }

  /** The current request's commitment, null before the first filter. */
  get commitment(): CommitmentLevel | null {
    return this.#request?.commitment ?? null;
  }

  /** True while updates are accepted. */
  get open(): boolean {
    return this.#state === 'open';
  }

  /** Updates waiting in the queue (not yet handed to the HTTP/2 stream). */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Replaces the filters (a new request on the stream does, as on the real server). */
  setRequest(request: CompiledRequest): void {
    this.#request = request;
  }

  /** Answers a client ping. */
  pong(id: number): void {
    this.#enqueue(this.#encode({ pong: { id } }));
  }

  /** Transactions `from`..`to` of `rec`, those the filters take. */
  transactions(rec: SlotRecord, from: number, to: number): void {
    const r = this.#request;
    if (!r || this.#state !== 'open') return;
    for (let i = from; i < to; i++) {
      const filters = r.perTransaction ? this.#matchPerTransaction(r.perTransaction, rec, i) : r.byTemplate[rec.templates[i]!];
      if (filters) this.#enqueue({ rec, i, filters });
    }
  }

  /** The slot's BlockMeta, when a blocksMeta filter asks for it. */
  blockMeta(rec: SlotRecord): void {
    const r = this.#request;
    if (!r || r.blockMeta.length === 0 || this.#state !== 'open') return;
    this.#enqueue(
      this.#encode({
        filters: r.blockMeta,
        blockMeta: {
          slot: String(rec.slot),
          blockhash: rec.blockhash,
          rewards: undefined,
          blockTime: rec.blockTime === null ? undefined : { timestamp: String(rec.blockTime) },
          blockHeight: { blockHeight: String(rec.slot) },
          parentSlot: String(rec.parent),
          parentBlockhash: syntheticBlockhash(rec.parent),
          executedTransactionCount: String(rec.count),
          entriesCount: '0',
        },
      }),
    );
  }

  /**
   * A slot status update, to the slots filters that take it (filter.rs `FilterSlots`: with
   * `filterByCommitment` only the status of the subscription's commitment; the intermediate
   * statuses only with `interslotUpdates`).
   */
  slotStatus(rec: SlotRecord, status: SlotStatus): void {
    const r = this.#request;
    if (!r || r.slots.length === 0 || this.#state !== 'open') return;
    const own = SLOT_STATUS_OF_COMMITMENT[r.commitment];
    const names = r.slots.filter((f) => (!f.byCommitment || status === own) && (f.interslot || COMMITTED.has(status))).map((f) => f.name);
    if (names.length === 0) return;
    this.#enqueue(
      this.#encode({
        filters: names,
        slot: {
          slot: String(rec.slot),
          parent: String(rec.parent),
          status,
          ...(status === SlotStatus.SLOT_DEAD ? { deadError: DEAD_SLOT_ERROR } : {}),
        },
      }),
    );
    this.#ctx.onSlotStatusSent?.(this, rec, status, Date.now());
  }

  /** Ends the stream with a status (not counted as lagged); `reason` says why. */
  fail(code: grpc.status, details: string, reason: EndReason): void {
    if (this.#state === 'ended') return;
    this.#finish(reason, details);
    this.#call.emit('error', { code, details });
  }

  #matchPerTransaction(filters: [string, SubscribeRequestFilterTransactions][], rec: SlotRecord, i: number): Buffer | null {
    const t = this.#ctx.templates[rec.templates[i]!]!;
    const tx = { ...t, signature: rec.signature(i) };
    const names = filters.filter(([, f]) => transactionMatches(f, tx)).map(([name]) => name);
    return names.length === 0 ? null : encodeFilterNames(names);
  }

  #encode(update: Partial<SubscribeUpdate>): Buffer {
    return Buffer.from(SubscribeUpdate.encode(SubscribeUpdate.fromPartial({ filters: [], createdAt: new Date(), ...update })).finish());
  }

  #ping(): void {
    this.#enqueue(this.#encode({ ping: {} }));
  }

  #enqueue(item: Buffer | TxRef): void {
    if (this.#state !== 'open') return;
    if (!this.#waitingForDrain && this.#head === this.#queue.length) {
      this.#write(item);
      return;
    }
    if (this.#queue.length - this.#head >= this.#ctx.maxQueuedUpdates) {
      this.#lagged();
      return;
    }
    this.#queue.push(item);
  }

  #write(item: Buffer | TxRef): void {
    let ok: boolean;
    if (Buffer.isBuffer(item)) ok = this.#call.write(item);
    else {
      const { rec, i, filters } = item;
      const bytes = encodeTransactionUpdate(
        this.#ctx.templates[rec.templates[i]!]!.template,
        rec.signatures,
        i * SIGNATURE_BYTES,
        rec.slot,
        filters,
        rec.createdMs[i]!,
      );
      ok = this.#call.write(bytes);
      this.#ctx.onTransactionWritten(this, rec, i, Date.now());
    }
    if (!ok && !this.#waitingForDrain) {
      this.#waitingForDrain = true;
      this.#call.once('drain', this.#onDrain);
    }
  }

  readonly #onDrain = (): void => {
    this.#waitingForDrain = false;
    if (this.#state === 'ended') return;
    while (this.#head < this.#queue.length && !this.#waitingForDrain) {
      const item = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as unknown as Buffer;
      this.#write(item);
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (this.#state === 'lagged' && this.#head === this.#queue.length && !this.#waitingForDrain) {
      this.#state = 'ended';
      this.#call.emit('error', { code: grpc.status.INTERNAL, details: GEYSER_LAGGED_MESSAGE });
    }
  };

  #lagged(): void {
    // Counted now (the server has given up on this subscriber); the status follows the queued updates.
    this.#state = 'lagged';
    clearInterval(this.#pingTimer);
    this.#ctx.onEnd(this, 'lagged', GEYSER_LAGGED_MESSAGE);
  }

  /** Marks the stream ended by the server (`reason`), once. */
  #finish(reason: EndReason, detail?: string): void {
    const wasOpen = this.#state === 'open';
    this.#state = 'ended';
    clearInterval(this.#pingTimer);
    this.#queue = [];
    this.#head = 0;
    if (wasOpen) this.#ctx.onEnd(this, reason, detail);
  }

  /** The stream ended from the client's side or by an error. */
  #ended(reason: EndReason, detail?: string): void {
    if (this.#state === 'ended') return;
    this.#finish(reason, detail);
  }
}
