/**
 * The Yellowstone path of `npm run bench -- decode`: what live ingest pays per streamed
 * transaction, from the gRPC message's protobuf bytes to the JSON text of each trade message.
 *
 * Bytes are built once per recorded transaction with the codec `@triton-one/yellowstone-grpc`
 * itself decodes with (ts-proto `SubscribeUpdate`, on @bufbuild/protobuf's wire writer): the
 * recorded getTransaction JSON is rebuilt into a `SubscribeUpdateTransactionInfo` by
 * `geyserTransactionFromRpc` of @tradewind/dev with ingest's wire parser for base64 captures (the
 * same builder the Geyser test server, services/ingest/test/support/geyser-server.ts, streams to
 * the real client in services/ingest/test/yellowstone.int.test.ts), wrapped in a `SubscribeUpdate`
 * as a Geyser node sends it, and encoded.
 *
 * The measured step ({@link yellowstoneMessages}) is the client's own `SubscribeUpdate.decode(bytes)`
 * (what `ClientDuplexStream` does for every update the native gRPC layer hands it), then ingest's
 * `normalizeYellowstoneTransaction` (what the live source calls), then `decodeNormalized`.
 */
import { SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { decodeNormalized, normalizeYellowstoneTransaction, type Commitment, type TradeMessage } from '@tradewind/ingest';
import { parseWireTransaction } from '@tradewind/ingest/decode';
import { geyserTransactionFromRpc } from '@tradewind/dev';

/**
 * Name of the transactions filter in ingest's SubscribeRequest (`buildSubscribeRequest` in
 * services/ingest/src/live/yellowstone.ts); a node lists the matching filter names in each update.
 */
export const INGEST_TRANSACTIONS_FILTER = 'tradewind';

/** One recorded transaction as the Geyser node would stream it. */
export interface YellowstoneBenchItem {
  /** Encoded `SubscribeUpdate` (oneof `transaction`), as it arrives from the gRPC layer. */
  bytes: Uint8Array;
  /** Block time of the capture in ms (null when it has none); the live source passes the BlockMeta time. */
  blockTimeMs: number | null;
}

/**
 * Encodes one getTransaction result (json, jsonParsed or base64 encoding; `{jsonrpc, result}`
 * envelope unwrapped) as the protobuf bytes of the `SubscribeUpdate` a Yellowstone node streams for
 * it: filters [{@link INGEST_TRANSACTIONS_FILTER}], `transaction` {info, slot}, `createdAt`.
 * `slot` falls back to 0 when the capture has none. Throws Error when the capture cannot be
 * rebuilt faithfully (see `geyserTransactionFromRpc`).
 */
export function subscribeUpdateBytes(rpcJson: unknown, createdAt = new Date(0)): YellowstoneBenchItem {
  const { info, slot, blockTime } = geyserTransactionFromRpc(rpcJson, parseWireTransaction);
  const update = SubscribeUpdate.fromPartial({
    filters: [INGEST_TRANSACTIONS_FILTER],
    transaction: { transaction: info, slot: String(slot ?? 0) },
    createdAt,
  });
  return { bytes: SubscribeUpdate.encode(update).finish(), blockTimeMs: blockTime === null ? null : blockTime * 1000 };
}

/** Baseline: the client's protobuf decode alone (bytes → `SubscribeUpdate` object). */
export function decodeSubscribeUpdate(bytes: Uint8Array): SubscribeUpdate {
  return SubscribeUpdate.decode(bytes);
}

/**
 * The measured path: bytes → `SubscribeUpdate.decode` → `normalizeYellowstoneTransaction`
 * (at `commitment`, with `blockTimeMs`) → `decodeNormalized`. Returns the trade messages
 * (the bench then `JSON.stringify`s each). Throws Error when the bytes hold no transaction
 * update, DecodeError when it cannot be normalised.
 */
export function yellowstoneMessages(item: YellowstoneBenchItem, commitment: Commitment): TradeMessage[] {
  const update = SubscribeUpdate.decode(item.bytes);
  if (update.transaction === undefined) throw new Error('SubscribeUpdate holds no transaction update');
  return decodeNormalized(normalizeYellowstoneTransaction(update.transaction, commitment, item.blockTimeMs));
}
