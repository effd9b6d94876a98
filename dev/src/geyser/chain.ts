/**
 * The synthetic chain behind the mainnet-shaped Geyser stand-in: a slot every `slotMs`, numbered
 * from `firstSlot`; each slot holds the transactions the rate profile produces during it (recorded
 * transactions in turn, with each pass's own signatures), emitted in small groups as the slot goes
 * on; when it ends, its block time is "now" and it is processed; it is confirmed
 * {@link CONFIRMATION_DEPTH_SLOTS} and finalized {@link FINALIZATION_DEPTH_SLOTS} slots later. It
 * runs whether or not anyone listens, and keeps the recent slots (for replay and for subscribers at
 * confirmed or finalized commitment) in compact form: template index, signature bytes, time.
 *
 * Forks ({@link SyntheticChainOptions.forks}): every `everySlots`-th slot is produced like any other (its
 * transactions streamed at processed) and then left behind, as a slot of a minority fork is on mainnet: the
 * next slot's parent is the fork slot's parent, and the fork slot is never confirmed or finalized. Of kind
 * `abandoned` nothing more is said of it (mainnet's usual case: a reader learns it from the parents of the
 * slots that are rooted); of kind `dead` its end is a SLOT_DEAD status instead of processed (the validator
 * could not replay it: Geyser's `SlotStatus::Dead`, with an error text).
 */
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { SlotStatus } from '@triton-one/yellowstone-grpc';
import { phaseAt, producedBy, passSignatures, type GeyserRateProfile } from './profile.js';
import { SIGNATURE_BYTES } from './wire.js';

/**
 * Slots between a slot being processed and confirmed: 1 (≈ 400 ms), about when a supermajority of
 * stake has voted on it on mainnet (a confirmed block is one that 2/3 of stake voted on; Solana
 * docs, "Commitment Status").
 */
export const CONFIRMATION_DEPTH_SLOTS = 1;

/**
 * Slots between a slot being processed and finalized: 32 (≈ 12.8 s): finalized = rooted, which
 * takes 31 more confirmed votes on top of it (vote program `MAX_LOCKOUT_HISTORY` = 31).
 */
export const FINALIZATION_DEPTH_SLOTS = 32;

/** How a fork slot ends (see the module comment). */
export type ForkKind = 'abandoned' | 'dead';

/** The text a dead fork slot's SLOT_DEAD status carries (`dead_error`), as Agave's replay reports one. */
export const DEAD_SLOT_ERROR = 'tradewind stand-in: fork slot marked dead';

/** How far a slot has come (ordered: open < processed < confirmed < finalized). */
export const SlotProgress = { open: 0, processed: 1, confirmed: 2, finalized: 3 } as const;
/** One of {@link SlotProgress}'s values. */
export type SlotProgress = (typeof SlotProgress)[keyof typeof SlotProgress];

/** A slot's blockhash (base58 of SHA-256 over a label and the slot): made up, stable per slot. */
export function syntheticBlockhash(slot: number): string {
  return bs58.encode(createHash('sha256').update(`tradewind-local-geyser:${slot}`).digest());
}

/** One slot of the chain and its transactions (parallel arrays, `count` of `capacity` filled). */
export class SlotRecord {
  /** Transactions filled so far. */
  count = 0;
  /** Block time, Unix seconds: set when the slot ends. */
  blockTime: number | null = null;
  progress: SlotProgress = SlotProgress.open;
  /** Parent slot: the slot before, or the one before a fork slot that was left behind. */
  parent: number;
  /** Set on a fork slot: how it ends (never confirmed). */
  fork: ForkKind | null = null;
  /** Set when a fork slot of kind `dead` ended (SLOT_DEAD sent instead of processed). */
  dead = false;
  /** Index into the recording of each transaction. */
  readonly templates: Uint16Array;
  /** 64 signature bytes per transaction. */
  readonly signatures: Buffer;
  /** When each transaction was produced, ms since the Unix epoch (its update's `created_at`). */
  readonly createdMs: Float64Array;
  readonly blockhash: string;
  readonly #base58: (string | undefined)[] = [];

  readonly #encodeBase58: (bytes: Uint8Array) => string;

  constructor(
    readonly slot: number,
    /** Transactions this slot will hold. */
    readonly capacity: number,
    /** Slot start and end, ms since the Unix epoch. */
    readonly startMs: number,
    readonly endMs: number,
    /** Base58 encoder of the signatures (ingest's `encodeBase58`: ~30× faster than bs58 on 64 bytes). */
    encodeBase58: (bytes: Uint8Array) => string = bs58.encode,
  ) {
    this.#encodeBase58 = encodeBase58;
    this.parent = slot - 1;
    this.templates = new Uint16Array(capacity);
    this.signatures = Buffer.allocUnsafe(capacity * SIGNATURE_BYTES);
    this.createdMs = new Float64Array(capacity);
    this.blockhash = syntheticBlockhash(slot);
  }

  /** Base58 signature of transaction `i` (computed once, on first use). */
  signature(i: number): string {
    let s = this.#base58[i];
    if (s === undefined) {
      s = this.#encodeBase58(this.signatures.subarray(i * SIGNATURE_BYTES, (i + 1) * SIGNATURE_BYTES));
      this.#base58[i] = s;
    }
    return s;
  }
}

/** What the chain tells its listener, in chain order. */
export interface ChainListener {
  /** A slot began (nothing in it yet). */
  slotStarted(rec: SlotRecord): void;
  /** Transactions `from`..`to` (exclusive) of `rec` were produced. */
  transactions(rec: SlotRecord, from: number, to: number): void;
  /** `rec` ended (all its transactions produced, block time set) and is processed. */
  slotProcessed(rec: SlotRecord): void;
  /** `rec`, a fork slot of kind `dead`, ended: it is dead, not processed. */
  slotDead(rec: SlotRecord): void;
  /** `rec` reached confirmed or finalized. */
  slotCommitted(rec: SlotRecord, status: SlotStatus): void;
}

/** Options of {@link SyntheticChain}. */
export interface SyntheticChainOptions {
  /** Original signature of each recorded transaction, in serving order. */
  originals: readonly Uint8Array[];
  firstSlot: number;
  slotMs: number;
  profile: GeyserRateProfile;
  /** Completed slots kept (≥ FINALIZATION_DEPTH_SLOTS + 1). */
  retainSlots: number;
  /** Period of the timer that emits each group of transactions, ms. */
  sendIntervalMs: number;
  listener: ChainListener;
  /** Clock, ms since the Unix epoch. Default Date.now. */
  now?: () => number;
  /** Forks: every `everySlots`-th slot (≥ 2) is one, ending as `kind` (module comment). Default none. */
  forks?: { everySlots: number; kind: ForkKind };
  /** Base58 encoder of signatures (see SlotRecord). Default bs58's. */
  encodeBase58?: (bytes: Uint8Array) => string;
}

/** The chain; {@link start} starts its clock, {@link stop} stops it. */
export class SyntheticChain {
  readonly #o: SyntheticChainOptions;
  readonly #now: () => number;
  readonly #recent: SlotRecord[] = [];
  #t0 = 0;
  #current: SlotRecord | null = null;
  #pass = 0;
  #position = 0;
  #passSignatures: Buffer;
  #produced = 0;
  #timer: NodeJS.Timeout | null = null;
  #lastProcessed: number;
  #lastConfirmed: number;
  #lastFinalized: number;

  constructor(options: SyntheticChainOptions) {
    if (options.originals.length === 0) throw new Error('the chain needs at least one recorded transaction');
    if (options.originals.length > 0xffff) throw new RangeError('at most 65,535 recorded transactions');
    if (options.forks && !(Number.isInteger(options.forks.everySlots) && options.forks.everySlots >= 2))
      throw new RangeError(`forks.everySlots must be an integer ≥ 2, got ${options.forks.everySlots}`);
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#passSignatures = passSignatures(options.originals, options.firstSlot, 0);
    // The chain existed before the stand-in started: its tip statuses lag as they will later.
    this.#lastProcessed = options.firstSlot - 1;
    this.#lastConfirmed = this.#lastProcessed - CONFIRMATION_DEPTH_SLOTS;
    this.#lastFinalized = this.#lastProcessed - FINALIZATION_DEPTH_SLOTS;
  }

  start(): void {
    if (this.#timer) return;
    this.#t0 = this.#now();
    this.#open(this.#o.firstSlot);
    this.#timer = setInterval(() => this.tick(), this.#o.sendIntervalMs);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Brings the chain up to now: ends every slot whose time is over, then emits what is due in the current one. */
  tick(): void {
    const now = this.#now();
    let rec = this.#current;
    if (!rec) return;
    while (now >= rec.endMs) {
      this.#fill(rec, rec.capacity, now);
      this.#close(rec, now);
      rec = this.#open(rec.slot + 1);
    }
    const due = producedBy(this.#o.profile, now - this.#t0) - this.#firstIndexOf(rec);
    this.#fill(rec, Math.min(rec.capacity, due), now);
  }

  /** The slot being produced. */
  get slot(): number {
    return this.#current?.slot ?? this.#o.firstSlot;
  }

  /** Highest slot at each status. */
  get lastProcessed(): number {
    return this.#lastProcessed;
  }
  get lastConfirmed(): number {
    return this.#lastConfirmed;
  }
  get lastFinalized(): number {
    return this.#lastFinalized;
  }

  /** Transactions produced so far. */
  get produced(): number {
    return this.#produced;
  }

  /** Phase and target rate now. */
  phase(): { phase: 'steady' | 'burst'; txPerSecond: number } {
    return phaseAt(this.#o.profile, Math.max(0, this.#now() - this.#t0));
  }

  /** Kept slots, oldest first; the last is the one being produced. */
  get recent(): readonly SlotRecord[] {
    return this.#recent;
  }

  /** The kept slot `slot`, if any. */
  find(slot: number): SlotRecord | undefined {
    const first = this.#recent[0];
    return first === undefined ? undefined : this.#recent[slot - first.slot];
  }

  #firstIndexOf(rec: SlotRecord): number {
    return producedBy(this.#o.profile, rec.startMs - this.#t0);
  }

  #open(slot: number): SlotRecord {
    const startMs = this.#t0 + (slot - this.#o.firstSlot) * this.#o.slotMs;
    const endMs = startMs + this.#o.slotMs;
    const capacity = producedBy(this.#o.profile, endMs - this.#t0) - producedBy(this.#o.profile, startMs - this.#t0);
    const rec = new SlotRecord(slot, capacity, startMs, endMs, this.#o.encodeBase58);
    // The slot before, unless that one is a fork left behind: then its parent.
    const previous = this.#current;
    if (previous && previous.slot === slot - 1 && previous.fork !== null) rec.parent = previous.parent;
    const forks = this.#o.forks;
    if (forks && (slot - this.#o.firstSlot) % forks.everySlots === forks.everySlots - 1) rec.fork = forks.kind;
    this.#recent.push(rec);
    while (this.#recent.length > this.#o.retainSlots + 1) this.#recent.shift();
    this.#current = rec;
    this.#o.listener.slotStarted(rec);
    return rec;
  }

  #fill(rec: SlotRecord, upTo: number, now: number): void {
    const from = rec.count;
    if (upTo <= from) return;
    const n = this.#o.originals.length;
    for (let i = from; i < upTo; i++) {
      rec.templates[i] = this.#position;
      this.#passSignatures.copy(rec.signatures, i * SIGNATURE_BYTES, this.#position * SIGNATURE_BYTES, (this.#position + 1) * SIGNATURE_BYTES);
      rec.createdMs[i] = now;
      if (++this.#position === n) {
        this.#position = 0;
        this.#passSignatures = passSignatures(this.#o.originals, this.#o.firstSlot, ++this.#pass);
      }
    }
    rec.count = upTo;
    this.#produced += upTo - from;
    this.#o.listener.transactions(rec, from, upTo);
  }

  #close(rec: SlotRecord, now: number): void {
    rec.blockTime = Math.floor(now / 1000);
    if (rec.fork === 'dead') {
      rec.dead = true;
      this.#o.listener.slotDead(rec);
    } else {
      rec.progress = SlotProgress.processed;
      this.#lastProcessed = rec.slot;
      this.#o.listener.slotProcessed(rec);
    }
    // Slots from before the stand-in started have no record; their statuses still move on. A fork slot is
    // never confirmed or finalized, and the highest slot at a status stays at the last one that reached it.
    const confirmed = this.find(rec.slot - CONFIRMATION_DEPTH_SLOTS);
    if (!confirmed || confirmed.fork === null) this.#lastConfirmed = rec.slot - CONFIRMATION_DEPTH_SLOTS;
    if (confirmed && confirmed.fork === null) {
      confirmed.progress = SlotProgress.confirmed;
      this.#o.listener.slotCommitted(confirmed, SlotStatus.SLOT_CONFIRMED);
    }
    const finalized = this.find(rec.slot - FINALIZATION_DEPTH_SLOTS);
    if (!finalized || finalized.fork === null) this.#lastFinalized = rec.slot - FINALIZATION_DEPTH_SLOTS;
    if (finalized && finalized.fork === null) {
      finalized.progress = SlotProgress.finalized;
      this.#o.listener.slotCommitted(finalized, SlotStatus.SLOT_FINALIZED);
    }
  }
}
