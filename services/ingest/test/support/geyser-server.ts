/**
 * A local Yellowstone ("Dragon's Mouth") Geyser gRPC server for tests: service
 * `geyser.Geyser` over HTTP/2 with @grpc/grpc-js, messages (de)serialised with
 * the codecs `@triton-one/yellowstone-grpc` itself uses (ts-proto generated from
 * geyser.proto / solana-storage.proto on top of @bufbuild/protobuf's wire
 * reader/writer), so the client under test talks to it exactly as to a real node.
 *
 * It serves recorded mainnet transactions (getTransaction JSON, rebuilt into
 * protobuf `SubscribeUpdateTransactionInfo` by {@link geyserTransactionFromRpc})
 * as a short chain: per slot, the matching transaction updates, then the
 * BlockMeta, then the slot status, the order the real server uses at every
 * commitment (yellowstone-grpc-geyser: a bank's transactions stream as they
 * execute; BlockMeta and the slot status follow when the bank is done). It
 * honours the request's transaction filters (vote, failed, signature,
 * accountInclude/Exclude/Required), slots filter (filterByCommitment),
 * blocksMeta, commitment and `fromSlot` (replay from that slot, or INTERNAL
 * "broadcast from N is not available, last available: M" below
 * `firstAvailableSlot`), sends a ping every `pingIntervalMs` and answers client
 * pings with a pong, as the real server does. The protocol pieces (service
 * definition, request decoding, filter rules, the transaction builder) are
 * @tradewind/dev's (dev/src/geyser), shared with the mainnet-shaped stand-in.
 *
 * Clients connect through a TCP relay owned by the server, so a test can cut
 * every connection mid-stream ({@link GeyserTestServer.dropConnections},
 * {@link GeyserTestServer.dropAfterTransactions},
 * {@link GeyserTestServer.dropNextSubscribes}), take the server down
 * ({@link GeyserTestServer.stop}: connections refused) and bring it back on the
 * same port ({@link GeyserTestServer.restart}).
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import bs58 from 'bs58';
import * as grpc from '@grpc/grpc-js';
import {
  CommitmentLevel,
  SlotStatus,
  SubscribeUpdate,
  type PingRequest,
  type SubscribeRequest,
  type SubscribeUpdateTransactionInfo,
} from '@triton-one/yellowstone-grpc';
import {
  encodeTransactionError,
  GEYSER_SERVICE,
  geyserTransactionFromRpc as rebuildFromRpc,
  SLOT_STATUS_OF_COMMITMENT,
  transactionFilterError,
  transactionMatches,
} from '@tradewind/dev';
import { parseWireTransaction } from '../../src/decode/wire.js';
import { listJsonFiles } from '../../src/replay/recording.js';

type TransactionInfo = SubscribeUpdateTransactionInfo;

export { encodeTransactionError };

/**
 * Rebuilds the protobuf `SubscribeUpdateTransactionInfo` a Yellowstone node streams for a
 * transaction from its getTransaction result: `geyserTransactionFromRpc` of @tradewind/dev
 * (dev/src/geyser/rpc-transaction.ts) with ingest's wire parser for base64 captures. Returns the
 * capture's slot and blockTime (seconds) too, null when absent. Throws Error on input it cannot
 * rebuild faithfully.
 */
export function geyserTransactionFromRpc(input: unknown): { info: TransactionInfo; slot: number | null; blockTime: number | null } {
  return rebuildFromRpc(input, parseWireTransaction);
}

/** One transaction the server streams. */
export interface ServedTransaction {
  slot: number;
  /** Block time of the slot, Unix seconds; null = its BlockMeta carries none. */
  blockTime: number | null;
  info: TransactionInfo;
}

/** A recorded file, its parsed JSON and the transaction rebuilt from it. */
export interface RecordedGeyserTransaction extends ServedTransaction {
  path: string;
  raw: unknown;
  /** True when the capture had no slot and {@link ServedTransaction.slot} was made up. */
  syntheticSlot: boolean;
}

/**
 * Loads every getTransaction JSON under `dir` and rebuilds each as a streamed
 * transaction, sorted by slot. Captures without a slot (blockSubscribe copies)
 * get SYNTHETIC slots after the highest real one, one per file in path order,
 * and no block time: their real place on the chain is unknown.
 */
export async function loadRecordedGeyserTransactions(dir: string): Promise<RecordedGeyserTransaction[]> {
  const out: RecordedGeyserTransaction[] = [];
  for (const path of await listJsonFiles(dir)) {
    const raw: unknown = JSON.parse(await readFile(path, 'utf8'));
    const { info, slot, blockTime } = geyserTransactionFromRpc(raw);
    out.push({ path, raw, info, slot: slot ?? -1, blockTime, syntheticSlot: slot === null });
  }
  let next = Math.max(0, ...out.map((t) => t.slot)) + 1;
  for (const t of out) if (t.syntheticSlot) t.slot = next++;
  return out.sort((a, b) => a.slot - b.slot);
}

/** Options of {@link GeyserTestServer}. */
export interface GeyserTestServerOptions {
  /** What the chain holds; served in slot order (stable for equal slots). */
  transactions: readonly ServedTransaction[];
  /** The chain goes on, without trades, up to this slot (slot updates and BlockMetas only). */
  tipSlot?: number;
  /** Server ping period, ms. The real server pings every 10 s. Default 10 000. */
  pingIntervalMs?: number;
  /** Oldest slot `fromSlot` may name; older → INTERNAL "broadcast from N is not available". Default 0. */
  firstAvailableSlot?: number;
  /** Pause between slots, ms. Default 0 (yield to the event loop only). */
  slotIntervalMs?: number;
  /** Block time used for slots with none (Unix seconds); default none. */
  defaultBlockTime?: number;
}

/** One Subscribe call as the server saw it. */
export interface SubscribeCallRecord {
  /** Every request the client wrote on the stream, in order (filters, pings). */
  requests: SubscribeRequest[];
  /** Transaction updates written on this call. */
  transactionsSent: number;
}

interface ChainSlot {
  slot: number;
  blockTime: number | null;
  transactions: { info: TransactionInfo; keys: Set<string>; signature: string; failed: boolean; isVote: boolean }[];
}

/**
 * The test server. `start()` listens on 127.0.0.1 (port 0 → a free port; see
 * {@link endpoint}); `close()` ends everything. Counters and records
 * (`subscribeCalls`, `unaryCalls`, `pingReplies`) let tests assert what the
 * client did.
 */
export class GeyserTestServer {
  /** Every Subscribe call, in arrival order. */
  readonly subscribeCalls: SubscribeCallRecord[] = [];
  /** Names of the unary methods called, in order. */
  readonly unaryCalls: string[] = [];
  /** Ids of the client's ping requests (answers to server pings), in order. */
  readonly pingReplies: number[] = [];

  readonly #chain: ChainSlot[];
  readonly #options: GeyserTestServerOptions;
  readonly #grpc = new grpc.Server();
  readonly #sockets = new Set<net.Socket>();
  readonly #calls = new Set<grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>>();
  #relay: net.Server | null = null;
  #grpcPort = 0;
  #port = 0;
  /** Index in #chain of the first slot the chain has not produced yet ("now"). */
  #head = 0;
  #dropAfter: number | null = null;
  #dropSubscribes = 0;

  constructor(options: GeyserTestServerOptions) {
    this.#options = options;
    const bySlot = new Map<number, ChainSlot>();
    for (const t of [...options.transactions].sort((a, b) => a.slot - b.slot)) {
      let s = bySlot.get(t.slot);
      if (!s) bySlot.set(t.slot, (s = { slot: t.slot, blockTime: t.blockTime ?? options.defaultBlockTime ?? null, transactions: [] }));
      const message = t.info.transaction?.message;
      const keys = new Set(
        [...(message?.accountKeys ?? []), ...(t.info.meta?.loadedWritableAddresses ?? []), ...(t.info.meta?.loadedReadonlyAddresses ?? [])].map((k) =>
          bs58.encode(k),
        ),
      );
      const failed = (t.info.meta?.err?.err.length ?? 0) > 0;
      s.transactions.push({ info: t.info, keys, signature: bs58.encode(t.info.signature), failed, isVote: t.info.isVote });
    }
    const last = Math.max(0, ...bySlot.keys());
    for (let slot = last + 1; options.tipSlot !== undefined && slot <= options.tipSlot; slot++) {
      bySlot.set(slot, { slot, blockTime: options.defaultBlockTime ?? null, transactions: [] });
    }
    this.#chain = [...bySlot.values()].sort((a, b) => a.slot - b.slot);
    this.#grpc.addService(GEYSER_SERVICE, {
      Subscribe: (call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>) => this.#subscribe(call),
      Ping: this.#unary('Ping', (r: PingRequest) => ({ count: r.count })),
      GetLatestBlockhash: this.#unary('GetLatestBlockhash', () => ({
        slot: String(this.#headSlot()),
        blockhash: bs58.encode(Buffer.alloc(32, 1)),
        lastValidBlockHeight: '0',
      })),
      GetBlockHeight: this.#unary('GetBlockHeight', () => ({ blockHeight: String(this.#headSlot()) })),
      GetSlot: this.#unary('GetSlot', () => ({ slot: String(this.#headSlot()) })),
      IsBlockhashValid: this.#unary('IsBlockhashValid', () => ({ slot: String(this.#headSlot()), valid: false })),
      GetVersion: this.#unary('GetVersion', () => ({ version: JSON.stringify({ version: { package: 'tradewind-geyser-test-server' } }) })),
      SubscribeReplayInfo: this.#unary('SubscribeReplayInfo', () => ({ firstAvailable: String(this.#options.firstAvailableSlot ?? 0) })),
    });
  }

  /** `http://127.0.0.1:<port>` (plaintext HTTP/2), valid after {@link start}. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** The relay's port on 127.0.0.1 (kept across {@link stop} / {@link restart}). */
  get port(): number {
    return this.#port;
  }

  /** Transaction updates written so far, over all calls. */
  get transactionsSent(): number {
    return this.subscribeCalls.reduce((n, c) => n + c.transactionsSent, 0);
  }

  /** Binds the gRPC server on a private port and the relay on `port` (0 = any free port). */
  async start(port = 0): Promise<void> {
    this.#grpcPort = await new Promise<number>((resolve, reject) =>
      this.#grpc.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    await this.#listen(port);
  }

  /** Cuts every client connection now (TCP reset of the relayed sockets); the server stays up. */
  dropConnections(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  /** Cuts every connection right after the `n`-th next transaction update is written (once). */
  dropAfterTransactions(n: number): void {
    this.#dropAfter = this.transactionsSent + n;
  }

  /** Cuts every connection as soon as each of the next `n` Subscribe calls has sent its filters (before any update). */
  dropNextSubscribes(n: number): void {
    this.#dropSubscribes = n;
  }

  /** Server down: stops listening (connections are refused) and cuts the open ones. */
  async stop(): Promise<void> {
    const relay = this.#relay;
    this.#relay = null;
    this.dropConnections();
    if (relay) await new Promise<void>((resolve) => relay.close(() => resolve()));
  }

  /** Server back up on the same port. */
  async restart(): Promise<void> {
    await this.#listen(this.#port);
  }

  /** Stops everything. */
  async close(): Promise<void> {
    await this.stop();
    for (const call of this.#calls) call.destroy();
    this.#grpc.forceShutdown();
  }

  async #listen(port: number): Promise<void> {
    const relay = net.createServer((client) => {
      const upstream = net.connect(this.#grpcPort, '127.0.0.1');
      const both = [client, upstream];
      for (const s of both) {
        this.#sockets.add(s);
        s.setNoDelay(true);
        s.on('error', () => undefined);
        s.on('close', () => {
          this.#sockets.delete(s);
          for (const o of both) o.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    relay.listen(port, '127.0.0.1');
    await once(relay, 'listening');
    this.#port = (relay.address() as net.AddressInfo).port;
    this.#relay = relay;
  }

  #headSlot(): number {
    return this.#chain[Math.max(0, Math.min(this.#head, this.#chain.length) - 1)]?.slot ?? 0;
  }

  #unary<Req, Res>(name: string, answer: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      this.unaryCalls.push(name);
      callback(null, answer(call.request));
    };
  }

  #subscribe(call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>): void {
    const record: SubscribeCallRecord = { requests: [], transactionsSent: 0 };
    this.subscribeCalls.push(record);
    this.#calls.add(call);
    let generation = 0;
    let closed = false;
    const send = (u: Partial<SubscribeUpdate>): Promise<void> | void => {
      if (closed) return;
      const ok = call.write(SubscribeUpdate.fromPartial({ filters: [], createdAt: new Date(), ...u }));
      if (!ok) return once(call, 'drain').then(() => undefined);
    };
    const ping = (): void => void send({ ping: {} });
    ping();
    const timer = setInterval(ping, this.#options.pingIntervalMs ?? 10_000);
    const end = (): void => {
      closed = true;
      generation++;
      clearInterval(timer);
      this.#calls.delete(call);
    };
    call.on('cancelled', end);
    call.on('close', end);
    call.on('error', end);
    call.on('data', (request: SubscribeRequest) => {
      record.requests.push(request);
      if (request.ping) {
        this.pingReplies.push(request.ping.id);
        void send({ pong: { id: request.ping.id } });
        return;
      }
      const invalid = transactionFilterError(request.transactions);
      if (invalid) {
        call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: invalid });
        return;
      }
      if (this.#dropSubscribes > 0) {
        this.#dropSubscribes--;
        this.dropConnections();
        return;
      }
      // A new filter replaces the previous one, as on the real server.
      const mine = ++generation;
      void this.#stream(call, record, request, send, () => closed || generation !== mine).catch(() => undefined);
    });
  }

  async #stream(
    call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>,
    record: SubscribeCallRecord,
    request: SubscribeRequest,
    send: (u: Partial<SubscribeUpdate>) => Promise<void> | void,
    stopped: () => boolean,
  ): Promise<void> {
    const commitment = request.commitment ?? CommitmentLevel.PROCESSED;
    const wantsBlockMeta = Object.keys(request.blocksMeta).length > 0;
    const txFilters = Object.entries(request.transactions);
    let idx = this.#head;
    if (request.fromSlot !== undefined) {
      const from = Number(request.fromSlot);
      const first = this.#options.firstAvailableSlot ?? 0;
      if (from < first) {
        const details = `broadcast from ${from} is not available, last available: ${first}`;
        call.emit('error', { code: grpc.status.INTERNAL, details });
        return;
      }
      idx = this.#chain.findIndex((s) => s.slot >= from);
      if (idx < 0) idx = this.#chain.length;
    }
    for (; idx < this.#chain.length; idx++) {
      const s = this.#chain[idx]!;
      for (const tx of s.transactions) {
        if (stopped()) return;
        const names = txFilters.filter(([, f]) => transactionMatches(f, tx)).map(([name]) => name);
        if (names.length === 0) continue;
        await send({ filters: names, transaction: { transaction: tx.info, slot: String(s.slot) } });
        record.transactionsSent++;
        if (this.#dropAfter !== null && this.transactionsSent >= this.#dropAfter) {
          this.#dropAfter = null;
          // Let the written bytes reach the relay before the cut, like a peer that vanishes mid-stream.
          setImmediate(() => this.dropConnections());
          return;
        }
      }
      if (stopped()) return;
      if (wantsBlockMeta) {
        await send({
          filters: Object.keys(request.blocksMeta),
          blockMeta: {
            slot: String(s.slot),
            blockhash: bs58.encode(Buffer.alloc(32, (s.slot % 255) + 1)),
            blockTime: s.blockTime === null ? undefined : { timestamp: String(s.blockTime) },
            blockHeight: { blockHeight: String(s.slot) },
            parentSlot: String(s.slot - 1),
            parentBlockhash: bs58.encode(Buffer.alloc(32, s.slot % 255 || 255)),
            executedTransactionCount: String(s.transactions.length),
            entriesCount: '0',
            rewards: undefined,
          },
        });
      }
      for (const [name, f] of Object.entries(request.slots)) {
        const statuses = f.filterByCommitment
          ? [SLOT_STATUS_OF_COMMITMENT[commitment] ?? SlotStatus.SLOT_PROCESSED]
          : [SlotStatus.SLOT_PROCESSED, SlotStatus.SLOT_CONFIRMED, SlotStatus.SLOT_FINALIZED];
        for (const status of statuses) await send({ filters: [name], slot: { slot: String(s.slot), parent: String(s.slot - 1), status } });
      }
      if (idx >= this.#head) this.#head = idx + 1;
      const pause = this.#options.slotIntervalMs ?? 0;
      await (pause > 0 ? new Promise((r) => setTimeout(r, pause)) : new Promise((r) => setImmediate(r)));
    }
  }
}
