/**
 * A mainnet-shaped Yellowstone (Geyser gRPC) stand-in for load and soak runs: the real protocol
 * (service `geyser.Geyser`, ./protocol.ts) serving the bundled recording of real mainnet
 * transactions as an endless synthetic chain (./chain.ts) at a rate profile (./profile.ts), with the
 * real server's keep-alive pings, slot statuses, `fromSlot` replay and per-subscriber back-pressure
 * (./subscriber.ts). Signatures, slots, blockhashes and block times are synthetic: it is a local
 * stand-in, never the chain.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import bs58 from 'bs58';
import * as grpc from '@grpc/grpc-js';
import {
  CommitmentLevel,
  SlotStatus,
  type GetBlockHeightRequest,
  type GetLatestBlockhashRequest,
  type GetSlotRequest,
  type IsBlockhashValidRequest,
  type PingRequest,
  type SubscribeRequest,
} from '@triton-one/yellowstone-grpc';
import { FINALIZATION_DEPTH_SLOTS, SlotProgress, SyntheticChain, syntheticBlockhash, type ChainListener, type ForkKind, type SlotRecord } from './chain.js';
import { DEFAULT_GEYSER_RATE_PROFILE, defaultFirstSlot, validateRateProfile, type GeyserRateProfile } from './profile.js';
import {
  DEFAULT_GEYSER_CHANNEL_CAPACITY,
  DEFAULT_GEYSER_REPLAY_STORED_SLOTS,
  GEYSER_FROM_SLOT_UNSUPPORTED_MESSAGE,
  GEYSER_PING_INTERVAL_MS,
  GEYSER_SERVICE,
  GEYSER_SHUTDOWN_MESSAGE,
  geyserSlotUnavailableMessage,
  type SubscribeResponse,
} from './protocol.js';
import { geyserTransactionFromRpc } from './rpc-transaction.js';
import { compileRequest, GeyserSubscriber, type EndReason, type ServedTemplate } from './subscriber.js';
import { transactionTemplate } from './wire.js';

export { DEFAULT_GEYSER_RATE_PROFILE, type GeyserRateProfile } from './profile.js';

/**
 * Period of the timer that emits each slot's transactions, ms: a slot's transactions go out in
 * small groups every 5 ms (≈ 15 at 3,000 tx/s), spread over the slot as a leader's entries are,
 * so a consumer's latency is measured per group, not per 400 ms slot.
 */
export const DEFAULT_GEYSER_SEND_INTERVAL_MS = 5;

/** `GetVersion`'s package name: says what answers. */
export const MAINNET_GEYSER_PACKAGE = 'tradewind-local-geyser';

/** Options of {@link startMainnetGeyser}. */
export interface MainnetGeyserOptions {
  /** Directory of getTransaction JSON files (read recursively), e.g. ingest's `BUNDLED_RECORDING_DIR`. */
  recordingDir: string;
  /** Port; default 0 = a free port. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** Default {@link DEFAULT_GEYSER_RATE_PROFILE}. */
  profile?: GeyserRateProfile;
  /** Slot duration, ms; default 400 (solana-clock `DEFAULT_MS_PER_SLOT`). */
  slotMs?: number;
  /** First slot; default where mainnet would be now (see `defaultFirstSlot`), above every recorded slot. */
  firstSlot?: number;
  /**
   * Per-subscriber bound of queued updates; a subscriber that overflows it is ended "lagged".
   * Default {@link DEFAULT_GEYSER_CHANNEL_CAPACITY} (the real server's `grpc.channel_capacity`).
   */
  maxQueuedUpdates?: number;
  /** Called once per transaction update written to a subscriber's stream, with the time it was written (Date.now()). */
  onSend?: (sent: { signature: string; slot: number; sentMs: number; subscriber: number }) => void;
  /**
   * Called once per slot status update handed to a subscriber's stream (written at once unless that subscriber's
   * queue is backed up), with the time (Date.now()): what the slot status benchmark measures from.
   */
  onSlotStatus?: (sent: { slot: number; status: 'processed' | 'confirmed' | 'finalized' | 'dead'; sentMs: number; subscriber: number }) => void;
  logger?: { info: (...a: unknown[]) => void; warn: (...a: unknown[]) => void };
  /** Server ping period per stream, ms; default {@link GEYSER_PING_INTERVAL_MS} (the real server's 10 s). */
  pingIntervalMs?: number;
  /**
   * Completed slots kept for `fromSlot` replay; 0 = no replay ("from_slot is not supported").
   * Default {@link DEFAULT_GEYSER_REPLAY_STORED_SLOTS} (the real server's `grpc.replay_stored_slots`).
   */
  replayStoredSlots?: number;
  /** Period of the send timer, ms; default {@link DEFAULT_GEYSER_SEND_INTERVAL_MS}. */
  sendIntervalMs?: number;
  /**
   * Forks: every `everySlots`-th slot (≥ 2) is produced and then left behind, never confirmed, ending as
   * `kind` (chain.ts: `abandoned`, a minority fork; `dead`, SLOT_DEAD with an error). Default none.
   */
  forks?: { everySlots: number; kind: ForkKind };
}

/** A snapshot of what the stand-in serves. */
export interface MainnetGeyserStats {
  /** The slot being produced. */
  slot: number;
  phase: 'steady' | 'burst';
  /** Rate of the current phase, tx/s. */
  targetTxPerSecond: number;
  /** Transaction updates written to subscribers' streams (over all subscribers). */
  transactionsSent: number;
  /** Transactions the chain has produced (whether or not anyone was subscribed). */
  transactionsProduced: number;
  /** Open Subscribe streams. */
  subscribers: number;
  /** Subscribe calls so far. */
  subscribes: number;
  /** Streams that ended for any reason other than stop(): client cancel, error, lagged. */
  disconnects: number;
  /** Of those, ended by the server for overflowing maxQueuedUpdates. */
  lagged: number;
}

/** A running stand-in. */
export interface MainnetGeyserServer {
  /** `http://<host>:<port>` (plaintext HTTP/2), what YELLOWSTONE_ENDPOINT takes. */
  readonly endpoint: string;
  readonly port: number;
  stats(): MainnetGeyserStats;
  /** Stops the chain and ends every stream (UNAVAILABLE "server is shutting down try again later"), then the server. */
  stop(): Promise<void>;
}

/** How long stop() lets ended streams flush their status before closing connections, ms. */
const STOP_GRACE_MS = 1_000;

function positiveInteger(name: string, v: number | undefined, fallback: number, min = 1): number {
  const value = v ?? fallback;
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${String(v)}`);
  return value;
}

/** Recursively lists `*.json` under `dir`, sorted by path. */
async function jsonFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

interface LoadedRecording {
  templates: ServedTemplate[];
  originals: Uint8Array[];
  /** ingest's base58 encoder. */
  encodeBase58: (bytes: Uint8Array) => string;
  /** Newest recorded slot that has a block time, and that time (s). */
  anchor: { slot: number; blockTime: number | null } | null;
  highestSlot: number;
}

/**
 * Loads and encodes the recording once: every getTransaction JSON under `dir`, in recorded slot
 * order (captures without a slot last, by path). @throws Error naming the file it cannot rebuild,
 * or when the directory holds none.
 */
async function loadRecording(dir: string): Promise<LoadedRecording> {
  // Loaded here, not at import: @tradewind/dev's other users do not need ingest's decoder.
  const { parseWireTransaction, encodeBase58 } = await import('@tradewind/ingest/decode');
  const rows: { path: string; slot: number | null; blockTime: number | null; served: ServedTemplate; original: Uint8Array }[] = [];
  for (const path of await jsonFiles(dir)) {
    try {
      const { info, slot, blockTime } = geyserTransactionFromRpc(JSON.parse(await readFile(path, 'utf8')) as unknown, parseWireTransaction);
      const message = info.transaction?.message;
      const keys = new Set(
        [...(message?.accountKeys ?? []), ...(info.meta?.loadedWritableAddresses ?? []), ...(info.meta?.loadedReadonlyAddresses ?? [])].map((k) =>
          bs58.encode(k),
        ),
      );
      const served = { template: transactionTemplate(info), keys, failed: (info.meta?.err?.err.length ?? 0) > 0, isVote: info.isVote };
      rows.push({ path, slot, blockTime, served, original: info.signature });
    } catch (err) {
      throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  if (rows.length === 0) throw new Error(`no getTransaction JSON files under ${dir}`);
  rows.sort((a, b) => (a.slot ?? Number.MAX_SAFE_INTEGER) - (b.slot ?? Number.MAX_SAFE_INTEGER) || a.path.localeCompare(b.path));
  const timed = rows.filter((r) => r.slot !== null && r.blockTime !== null);
  const newest = timed[timed.length - 1];
  return {
    templates: rows.map((r) => r.served),
    originals: rows.map((r) => r.original),
    encodeBase58,
    anchor: newest ? { slot: newest.slot!, blockTime: newest.blockTime } : null,
    highestSlot: Math.max(0, ...rows.map((r) => r.slot ?? 0)),
  };
}

/** The slot statuses {@link MainnetGeyserOptions.onSlotStatus} reports (the interslot ones, created bank and completed, are not). */
const SLOT_STATUS_NAMES: ReadonlyMap<SlotStatus, 'processed' | 'confirmed' | 'finalized' | 'dead'> = new Map([
  [SlotStatus.SLOT_PROCESSED, 'processed'],
  [SlotStatus.SLOT_CONFIRMED, 'confirmed'],
  [SlotStatus.SLOT_FINALIZED, 'finalized'],
  [SlotStatus.SLOT_DEAD, 'dead'],
]);

/**
 * Starts the stand-in (see the module comment) and its chain; resolves once it listens.
 *
 * The chain: a slot every `slotMs` from `firstSlot`, each holding the transactions the profile
 * produces during it — the recording in turn, every pass with fresh signatures (SHA-512 of the
 * original signature, the first slot and the pass number: the trade message id
 * `<signature>:<path>` never repeats) — sent in groups every `sendIntervalMs` while the slot runs;
 * then the slot's BlockMeta (block time = now, blockhash made up) and slot statuses: processed at
 * its end, confirmed one slot and finalized 32 slots later. It runs whether or not anyone is
 * subscribed; a subscriber gets what is produced after its request, or from `fromSlot` (the
 * completed slots still kept: `replayStoredSlots`).
 *
 * Subscribe honours the transaction filters (vote, failed, signature, accountInclude/Exclude/
 * Required; a bad pubkey → INVALID_ARGUMENT), slots (`filterByCommitment`, `interslotUpdates`:
 * created-bank and completed), blocksMeta and commitment (at confirmed/finalized a slot's
 * transactions and BlockMeta go out when it reaches that status); a new request on the stream
 * replaces the filters; a request with `ping` is answered with a pong. Accounts, blocks, entries
 * and transaction-status filters get nothing (the stand-in has no accounts or entries). Unary:
 * Ping, GetSlot, GetBlockHeight (= slot: every synthetic slot has a block), GetLatestBlockhash,
 * IsBlockhashValid, GetVersion (package {@link MAINNET_GEYSER_PACKAGE}), SubscribeReplayInfo.
 *
 * @throws RangeError for a bad option; Error when the recording cannot be loaded or the port bound.
 */
export async function startMainnetGeyser(options: MainnetGeyserOptions): Promise<MainnetGeyserServer> {
  const profile = validateRateProfile({ ...(options.profile ?? DEFAULT_GEYSER_RATE_PROFILE) });
  const slotMs = positiveInteger('slotMs', options.slotMs, 400);
  const maxQueuedUpdates = positiveInteger('maxQueuedUpdates', options.maxQueuedUpdates, DEFAULT_GEYSER_CHANNEL_CAPACITY);
  const pingIntervalMs = positiveInteger('pingIntervalMs', options.pingIntervalMs, GEYSER_PING_INTERVAL_MS);
  const replayStoredSlots = positiveInteger('replayStoredSlots', options.replayStoredSlots, DEFAULT_GEYSER_REPLAY_STORED_SLOTS, 0);
  const sendIntervalMs = positiveInteger('sendIntervalMs', options.sendIntervalMs, DEFAULT_GEYSER_SEND_INTERVAL_MS);
  const port = positiveInteger('port', options.port, 0, 0);
  if (port > 65535) throw new RangeError(`port must be 0-65535, got ${port}`);
  if (options.firstSlot !== undefined) positiveInteger('firstSlot', options.firstSlot, 0, 0);
  const host = options.host ?? '127.0.0.1';
  const log = options.logger;

  const recording = await loadRecording(options.recordingDir);
  const firstSlot = options.firstSlot ?? defaultFirstSlot(recording.anchor, recording.highestSlot, Date.now());
  const subscribers = new Set<GeyserSubscriber>();
  const counts = { subscribes: 0, disconnects: 0, lagged: 0, transactionsSent: 0 };
  const onSend = options.onSend;

  const listener: ChainListener = {
    slotStarted: (rec) => {
      for (const s of subscribers) s.slotStatus(rec, SlotStatus.SLOT_CREATED_BANK);
    },
    transactions: (rec, from, to) => {
      for (const s of subscribers) if (s.commitment === CommitmentLevel.PROCESSED) s.transactions(rec, from, to);
    },
    slotProcessed: (rec) => {
      for (const s of subscribers) {
        s.slotStatus(rec, SlotStatus.SLOT_COMPLETED);
        if (s.commitment === CommitmentLevel.PROCESSED) s.blockMeta(rec);
        s.slotStatus(rec, SlotStatus.SLOT_PROCESSED);
      }
    },
    slotDead: (rec) => {
      for (const s of subscribers) s.slotStatus(rec, SlotStatus.SLOT_DEAD);
    },
    slotCommitted: (rec, status) => {
      const level = status === SlotStatus.SLOT_CONFIRMED ? CommitmentLevel.CONFIRMED : CommitmentLevel.FINALIZED;
      for (const s of subscribers) {
        if (s.commitment === level) {
          s.transactions(rec, 0, rec.count);
          s.blockMeta(rec);
        }
        s.slotStatus(rec, status);
      }
    },
  };
  const chain = new SyntheticChain({
    originals: recording.originals,
    firstSlot,
    slotMs,
    profile,
    retainSlots: Math.max(replayStoredSlots, FINALIZATION_DEPTH_SLOTS + 1),
    sendIntervalMs,
    listener,
    encodeBase58: recording.encodeBase58,
    ...(options.forks ? { forks: options.forks } : {}),
  });

  /** Oldest completed slot `fromSlot` may name, or null when none is kept yet. */
  const firstAvailable = (): number | null => {
    const done = chain.recent.filter((r) => r.progress >= SlotProgress.processed);
    return done.length === 0 ? null : done[Math.max(0, done.length - replayStoredSlots)]!.slot;
  };

  const onEnd = (sub: GeyserSubscriber, reason: EndReason, detail?: string): void => {
    subscribers.delete(sub);
    if (reason === 'stopped') return;
    counts.disconnects++;
    if (reason === 'lagged') {
      counts.lagged++;
      log?.warn(
        { subscriber: sub.id, max_queued_updates: maxQueuedUpdates },
        `subscriber ${sub.id} lagged: queue of ${maxQueuedUpdates} updates full, stream ended`,
      );
    } else log?.info({ subscriber: sub.id, reason, detail }, `subscriber ${sub.id} disconnected (${reason})`);
  };
  const ctx = {
    templates: recording.templates,
    maxQueuedUpdates,
    pingIntervalMs,
    onTransactionWritten: (sub: GeyserSubscriber, rec: SlotRecord, i: number, sentMs: number) => {
      counts.transactionsSent++;
      onSend?.({ signature: rec.signature(i), slot: rec.slot, sentMs, subscriber: sub.id });
    },
    ...(options.onSlotStatus
      ? {
          onSlotStatusSent: (sub: GeyserSubscriber, rec: SlotRecord, status: SlotStatus, sentMs: number) => {
            const name = SLOT_STATUS_NAMES.get(status);
            if (name) options.onSlotStatus!({ slot: rec.slot, status: name, sentMs, subscriber: sub.id });
          },
        }
      : {}),
    onEnd,
  };

  /** Sends the kept, completed slots from `fromSlot` on at the subscriber's commitment; false when refused. */
  const replay = (sub: GeyserSubscriber, fromSlot: number, progress: SlotProgress): boolean => {
    if (replayStoredSlots === 0) {
      sub.fail(grpc.status.INTERNAL, GEYSER_FROM_SLOT_UNSUPPORTED_MESSAGE, 'refused');
      return false;
    }
    const first = firstAvailable();
    if (first !== null && fromSlot < first) {
      sub.fail(grpc.status.OUT_OF_RANGE, geyserSlotUnavailableMessage(fromSlot, first), 'refused');
      return false;
    }
    for (const rec of chain.recent) {
      if (rec.slot < fromSlot) continue;
      if (rec.dead) {
        // A dead fork slot: its transactions went out at processed, then SLOT_DEAD.
        if (progress === SlotProgress.processed) sub.transactions(rec, 0, rec.count);
        sub.slotStatus(rec, SlotStatus.SLOT_DEAD);
        continue;
      }
      if (rec.progress < progress) continue;
      sub.transactions(rec, 0, rec.count);
      sub.blockMeta(rec);
      sub.slotStatus(rec, SlotStatus.SLOT_PROCESSED);
      if (rec.progress >= SlotProgress.confirmed) sub.slotStatus(rec, SlotStatus.SLOT_CONFIRMED);
      if (rec.progress >= SlotProgress.finalized) sub.slotStatus(rec, SlotStatus.SLOT_FINALIZED);
    }
    return true;
  };

  let nextId = 1;
  /** Every stream not closed yet, lagged ones included (stop() ends them all). */
  const streams = new Set<GeyserSubscriber>();
  const subscribe = (call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeResponse>): void => {
    counts.subscribes++;
    const sub = new GeyserSubscriber(nextId++, call, ctx);
    subscribers.add(sub);
    streams.add(sub);
    call.on('close', () => streams.delete(sub));
    log?.info({ subscriber: sub.id }, `subscriber ${sub.id} connected`);
    call.on('data', (request: SubscribeRequest) => {
      if (!sub.open) return;
      if (request.ping) {
        sub.pong(request.ping.id);
        return;
      }
      const compiled = compileRequest(request, recording.templates);
      if (typeof compiled === 'string') {
        sub.fail(grpc.status.INVALID_ARGUMENT, compiled, 'refused');
        return;
      }
      sub.setRequest(compiled);
      if (request.fromSlot !== undefined) replay(sub, Number(request.fromSlot), compiled.progress);
    });
  };

  const slotAt = (commitment: CommitmentLevel | undefined): number =>
    commitment === CommitmentLevel.FINALIZED ? chain.lastFinalized : commitment === CommitmentLevel.CONFIRMED ? chain.lastConfirmed : chain.lastProcessed;
  const unary =
    <Req, Res>(answer: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> =>
    (call, callback) =>
      callback(null, answer(call.request));

  const server = new grpc.Server();
  server.addService(GEYSER_SERVICE, {
    Subscribe: subscribe,
    Ping: unary((r: PingRequest) => ({ count: r.count })),
    GetSlot: unary((r: GetSlotRequest) => ({ slot: String(slotAt(r.commitment)) })),
    GetBlockHeight: unary((r: GetBlockHeightRequest) => ({ blockHeight: String(slotAt(r.commitment)) })),
    GetLatestBlockhash: unary((r: GetLatestBlockhashRequest) => {
      const slot = slotAt(r.commitment);
      // A blockhash stays valid for 150 blocks (solana `MAX_PROCESSING_AGE`).
      return { slot: String(slot), blockhash: syntheticBlockhash(slot), lastValidBlockHeight: String(slot + 150) };
    }),
    IsBlockhashValid: unary((r: IsBlockhashValidRequest) => ({
      slot: String(chain.lastProcessed),
      valid: chain.recent.some((rec) => rec.blockhash === r.blockhash && rec.progress >= SlotProgress.processed && chain.lastProcessed - rec.slot < 150),
    })),
    GetVersion: unary(() => ({
      version: JSON.stringify({
        version: { package: MAINNET_GEYSER_PACKAGE, version: '0.1.0' },
        extra: { note: 'local stand-in replaying recorded mainnet transactions with synthetic signatures and slots, not a Solana node' },
      }),
    })),
    SubscribeReplayInfo: unary(() => ({ firstAvailable: replayStoredSlots === 0 ? undefined : String(firstAvailable() ?? chain.slot) })),
  });

  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  chain.start();
  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  log?.info(
    { endpoint, first_slot: firstSlot, slot_ms: slotMs, profile, transactions: recording.templates.length },
    'local Geyser stand-in: recorded mainnet transactions with synthetic signatures and slots',
  );

  let stopped: Promise<void> | null = null;
  return {
    endpoint,
    port: boundPort,
    stats(): MainnetGeyserStats {
      const { phase, txPerSecond } = chain.phase();
      return {
        slot: chain.slot,
        phase,
        targetTxPerSecond: txPerSecond,
        transactionsSent: counts.transactionsSent,
        transactionsProduced: chain.produced,
        subscribers: subscribers.size,
        subscribes: counts.subscribes,
        disconnects: counts.disconnects,
        lagged: counts.lagged,
      };
    },
    stop(): Promise<void> {
      stopped ??= (async () => {
        chain.stop();
        for (const s of [...streams]) s.fail(grpc.status.UNAVAILABLE, GEYSER_SHUTDOWN_MESSAGE, 'stopped');
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, STOP_GRACE_MS);
          server.tryShutdown(() => {
            clearTimeout(force);
            resolve();
          });
        });
      })();
      return stopped;
    },
  };
}
