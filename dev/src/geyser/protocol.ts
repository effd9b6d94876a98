/**
 * The Yellowstone gRPC protocol as the local Geyser servers speak it: service `geyser.Geyser`
 * (geyser.proto, package `geyser`) over HTTP/2 with @grpc/grpc-js, messages (de)serialised with the
 * codecs `@triton-one/yellowstone-grpc` itself uses, the request-filter rules and the constants of
 * the real server, yellowstone-grpc-geyser (github.com/rpcpool/yellowstone-grpc, read at commit
 * 0c3f357ab526655ea412b15e85893bf274e0fae9: `yellowstone-grpc-geyser/src/grpc.rs`, `src/config.rs`,
 * `src/plugin/filter/filter.rs`).
 */
import bs58 from 'bs58';
import type * as grpc from '@grpc/grpc-js';
import {
  CommitmentLevel,
  GetBlockHeightRequest,
  GetBlockHeightResponse,
  GetLatestBlockhashRequest,
  GetLatestBlockhashResponse,
  GetSlotRequest,
  GetSlotResponse,
  GetVersionRequest,
  GetVersionResponse,
  IsBlockhashValidRequest,
  IsBlockhashValidResponse,
  PingRequest,
  PongResponse,
  SlotStatus,
  SubscribeReplayInfoRequest,
  SubscribeReplayInfoResponse,
  SubscribeRequest,
  SubscribeUpdate,
  type SubscribeRequestFilterTransactions,
} from '@triton-one/yellowstone-grpc';

/**
 * Period of the server's keep-alive ping on every Subscribe stream, ms: grpc.rs spawns a task per
 * subscriber with `tokio::time::interval(Duration::from_secs(10))` (whose first tick is immediate,
 * so a ping also goes out right after Subscribe).
 */
export const GEYSER_PING_INTERVAL_MS = 10_000;

/**
 * Default bound of a subscriber's queue of updates, in updates: config key `grpc.channel_capacity`
 * ("Capacity of the channel per connection"), `ConfigGrpc::channel_capacity_default()` = 250_000 in
 * config.rs (the sample config.json sets "100_000"). When the queue is full the server ends the
 * stream with {@link GEYSER_LAGGED_MESSAGE}.
 */
export const DEFAULT_GEYSER_CHANNEL_CAPACITY = 250_000;

/**
 * Default number of recent slots kept for `fromSlot` replay: config key `grpc.replay_stored_slots`,
 * `ConfigGrpc::default_replay_stored_slots()` = 150 in config.rs. 0 turns replay off.
 */
export const DEFAULT_GEYSER_REPLAY_STORED_SLOTS = 150;

/**
 * Status message (code INTERNAL) with which the real server ends a stream whose per-connection
 * channel is full (grpc.rs client loop: `TrySendError::Full` → `Status::internal("lagged to send an
 * update")`, disconnect reason `client_channel_full`).
 */
export const GEYSER_LAGGED_MESSAGE = 'lagged to send an update';

/** Status message (code INTERNAL) of a `fromSlot` request to a server whose replay is off (grpc.rs). */
export const GEYSER_FROM_SLOT_UNSUPPORTED_MESSAGE = 'from_slot is not supported';

/** Status message (code UNAVAILABLE) the real server ends streams with when it shuts down (grpc.rs). */
export const GEYSER_SHUTDOWN_MESSAGE = 'server is shutting down try again later';

/**
 * Status message of a `fromSlot` older than the oldest stored slot (grpc.rs: `Status::out_of_range`,
 * older releases INTERNAL); ingest's Yellowstone source parses it to resume from `firstAvailable`.
 */
export function geyserSlotUnavailableMessage(fromSlot: number, firstAvailable: number): string {
  return `broadcast from ${fromSlot} is not available, last available: ${firstAvailable}`;
}

/** The slot status a subscription's commitment corresponds to (`filterByCommitment`). */
export const SLOT_STATUS_OF_COMMITMENT: Readonly<Record<number, SlotStatus>> = {
  [CommitmentLevel.PROCESSED]: SlotStatus.SLOT_PROCESSED,
  [CommitmentLevel.CONFIRMED]: SlotStatus.SLOT_CONFIRMED,
  [CommitmentLevel.FINALIZED]: SlotStatus.SLOT_FINALIZED,
};

/**
 * What a Subscribe stream writes: a `SubscribeUpdate` (encoded by the package's codec) or the
 * already-encoded bytes of one (the mainnet-shaped server builds transaction updates itself).
 */
export type SubscribeResponse = SubscribeUpdate | Uint8Array;

function unary<Req, Res>(
  name: string,
  req: { encode(m: Req): { finish(): Uint8Array }; decode(b: Uint8Array): Req },
  res: { encode(m: Res): { finish(): Uint8Array }; decode(b: Uint8Array): Res },
): grpc.MethodDefinition<Req, Res> {
  return {
    path: `/geyser.Geyser/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: Req) => Buffer.from(req.encode(m).finish()),
    requestDeserialize: (b: Buffer) => req.decode(b),
    responseSerialize: (m: Res) => Buffer.from(res.encode(m).finish()),
    responseDeserialize: (b: Buffer) => res.decode(b),
  };
}

/** SubscribeRequest map fields (geyser.proto field number → property) and the default of their value message. */
const REQUEST_MAPS: Record<number, [keyof SubscribeRequest, () => unknown]> = {
  1: ['accounts', () => ({ account: [], owner: [], filters: [] })],
  2: ['slots', () => ({})],
  3: ['transactions', () => ({ accountInclude: [], accountExclude: [], accountRequired: [] })],
  4: ['blocks', () => ({ accountInclude: [] })],
  5: ['blocksMeta', () => ({})],
  8: ['entry', () => ({})],
  10: ['transactionsStatus', () => ({ accountInclude: [], accountExclude: [], accountRequired: [] })],
};

/**
 * Decodes a SubscribeRequest. The client's native layer re-encodes requests with
 * prost, which writes a map entry whose value is an empty message (`blocksMeta:
 * {name: {}}`, `slots: {name: {}}`) without the value field; ts-proto's decoder
 * then drops the entry, while proto3 (and the real server) read it as the
 * default message. Such keys are restored here with their default value.
 * Throws Error on a wire type a SubscribeRequest cannot hold.
 */
export function decodeSubscribeRequest(bytes: Uint8Array): SubscribeRequest {
  const request = SubscribeRequest.decode(bytes);
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  while (pos < bytes.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const len = varint();
      const end = pos + len;
      const map = REQUEST_MAPS[field];
      if (map) {
        let key = '';
        while (pos < end) {
          const t = varint();
          if (t === 10) {
            const l = varint();
            key = Buffer.from(bytes.subarray(pos, pos + l)).toString('utf8');
            pos += l;
          } else if ((t & 7) === 2) {
            const l = varint(); // (not `pos += varint()`: that reads pos before varint() moves it)
            pos += l;
          } else if ((t & 7) === 0) varint();
          else throw new Error(`SubscribeRequest: unexpected wire type in map entry of field ${field}`);
        }
        const target = request[map[0]] as Record<string, unknown>;
        if (!(key in target)) target[key] = map[1]();
      }
      pos = end;
    } else throw new Error(`SubscribeRequest: unsupported wire type ${wire}`);
  }
  return request;
}

/** `m` as the Buffer grpc-js frames: encoded bytes pass through, a `SubscribeUpdate` is encoded. */
function serializeSubscribeResponse(m: SubscribeResponse): Buffer {
  if (m instanceof Uint8Array) return Buffer.isBuffer(m) ? m : Buffer.from(m.buffer, m.byteOffset, m.byteLength);
  return Buffer.from(SubscribeUpdate.encode(m).finish());
}

/** The geyser.Geyser service definition (paths as in geyser.proto, package `geyser`). */
export const GEYSER_SERVICE = {
  Subscribe: {
    path: '/geyser.Geyser/Subscribe',
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
    requestDeserialize: (b: Buffer) => decodeSubscribeRequest(b),
    responseSerialize: serializeSubscribeResponse,
    responseDeserialize: (b: Buffer) => SubscribeUpdate.decode(b),
  } satisfies grpc.MethodDefinition<SubscribeRequest, SubscribeResponse>,
  Ping: unary('Ping', PingRequest, PongResponse),
  GetLatestBlockhash: unary('GetLatestBlockhash', GetLatestBlockhashRequest, GetLatestBlockhashResponse),
  GetBlockHeight: unary('GetBlockHeight', GetBlockHeightRequest, GetBlockHeightResponse),
  GetSlot: unary('GetSlot', GetSlotRequest, GetSlotResponse),
  IsBlockhashValid: unary('IsBlockhashValid', IsBlockhashValidRequest, IsBlockhashValidResponse),
  GetVersion: unary('GetVersion', GetVersionRequest, GetVersionResponse),
  SubscribeReplayInfo: unary('SubscribeReplayInfo', SubscribeReplayInfoRequest, SubscribeReplayInfoResponse),
} satisfies grpc.ServiceDefinition;

const BASE58_PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * The real server's answer (INVALID_ARGUMENT details) to a transactions filter naming something
 * that is not a 32-byte base58 public key, or null when every filter is valid.
 */
export function transactionFilterError(filters: Record<string, SubscribeRequestFilterTransactions>): string | null {
  for (const [name, f] of Object.entries(filters)) {
    for (const k of [...f.accountInclude, ...f.accountExclude, ...f.accountRequired]) {
      if (!BASE58_PUBKEY.test(k) || bs58.decode(k).length !== 32) return `failed to create filter: invalid pubkey ${k} in transactions filter ${name}`;
    }
  }
  return null;
}

/** What a transactions filter looks at: vote and failed flags, the signature (base58) and every account key (base58). */
export interface FilterableTransaction {
  isVote: boolean;
  failed: boolean;
  signature: string;
  keys: ReadonlySet<string>;
}

/**
 * Whether `tx` passes a transactions filter (filter.rs `FilterTransactions`): vote and failed when
 * set, signature when set, at least one of accountInclude (when any), none of accountExclude, all
 * of accountRequired.
 */
export function transactionMatches(f: SubscribeRequestFilterTransactions, tx: FilterableTransaction): boolean {
  if (f.vote !== undefined && f.vote !== tx.isVote) return false;
  if (f.failed !== undefined && f.failed !== tx.failed) return false;
  if (f.signature !== undefined && f.signature !== tx.signature) return false;
  if (f.accountInclude.length > 0 && !f.accountInclude.some((k) => tx.keys.has(k))) return false;
  if (f.accountExclude.some((k) => tx.keys.has(k))) return false;
  if (!f.accountRequired.every((k) => tx.keys.has(k))) return false;
  return true;
}
