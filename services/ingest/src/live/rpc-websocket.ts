/**
 * Live source over a plain Solana RPC node: PubSub `logsSubscribe` (one subscription per
 * trade program, since `mentions` takes a single address) tells which transactions to
 * fetch; HTTP `getTransaction` fetches them; `getSignaturesForAddress` closes the gap left
 * by a dropped connection. Works against any RPC provider, at the price of one HTTP call
 * per transaction (Yellowstone gRPC streams whole transactions instead).
 *
 * Protocol sources (https://solana.com/docs/rpc):
 * - websocket/logssubscribe: `{mentions: [<one pubkey>]}` ("currently supports only one
 *   Pubkey string per method call"), answers a subscription id; notifications are
 *   `{method: "logsNotification", params: {result: {context: {slot}, value: {signature,
 *   err, logs}}, subscription}}`.
 * - websocket/slotsubscribe: `slotNotification` `{parent, root, slot}`, one per processed
 *   slot: the chain tip for slot lag, steady traffic for the idle check, and `root` (the node's
 *   root: rooted slots are never rolled back) for the slot status messages (`updates()`: each slot
 *   this source delivered transactions from is `finalized` once the root reaches it).
 * - http/gettransaction: commitment confirmed or finalized (`processed` is not supported);
 *   `maxSupportedTransactionVersion` must be at least the transaction's version, else
 *   error -32015; answers null when the node does not have the transaction (yet).
 * - http/getsignaturesforaddress: newest first, `limit` 1..1000, `before` / `until`
 *   exclusive. Agave locates `until` by its own slot and position in the block
 *   (ledger/src/blockstore.rs `get_confirmed_signatures_for_address2`), so the last
 *   signature this source saw works as `until` for every program, and the listing within a
 *   slot is reverse block order.
 * - WebSocket URL: the HTTP port + 1 when the URL names a port (validator 8899 → 8900, as
 *   @solana/web3.js `makeWebsocketUrl` does), the same host with ws/wss otherwise
 *   (providers).
 */
import { setMaxListeners } from 'node:events';
import WebSocket from 'ws';
import type { Counter, Gauge, Registry } from 'prom-client';
import { AppError, type ErrorCode } from '@tradewind/contracts';
import { counterOnce, gaugeOnce, type Logger } from '@tradewind/lib';
import { DecodeError } from '../decode/errors.js';
import { normalizeTransaction, type NormalizedTransaction } from '../decode/transaction.js';
import type { SlotUpdate } from './slot-tracker.js';
import {
  backoffDelayMs,
  LagTracker,
  ResumeState,
  sleep,
  TRADE_PROGRAM_IDS,
  type BackoffOptions,
  type SourceMetrics,
  type TransactionSource,
} from './source.js';

/** Defaults of the optional {@link RpcWebSocketSourceOptions}. */
export const RPC_WEBSOCKET_DEFAULTS = {
  /** Retries of a getTransaction that answered null (the HTTP node may trail the PubSub node by a slot or two). */
  getTransactionRetries: 6,
  /** Wait between those retries, ms (about one slot). 6 × 500 ms ≈ 3 s before a transaction is reported missing. */
  getTransactionRetryDelayMs: 500,
  /**
   * Highest transaction version requested. 1: mainnet carries v1 transactions (SIMD-0385)
   * and the base64 wire parser reads them; with 0 a node answers -32015 for each of them.
   */
  maxSupportedTransactionVersion: 1,
  /** getSignaturesForAddress page size (the RPC maximum). */
  signaturesPageLimit: 1000,
  /** WebSocket ping interval, ms. */
  pingIntervalMs: 10_000,
  /** Reconnect when nothing (message or pong) arrived for this long, ms. slotNotification alone arrives every ~400 ms. */
  idleTimeoutMs: 30_000,
  /** Deadline for the WebSocket handshake plus every subscription's answer, ms. */
  connectTimeoutMs: 10_000,
  /** Deadline of one HTTP JSON-RPC request, ms. */
  requestTimeoutMs: 15_000,
  /** Fetch transactions whose notification says they failed (the decoder drops them anyway). */
  includeFailed: false,
} as const;

/** Options of {@link createRpcWebSocketSource}. */
export interface RpcWebSocketSourceOptions {
  /** HTTP JSON-RPC endpoint, e.g. `http://127.0.0.1:8899` or a provider's https URL (may hold an API key: never logged). */
  httpUrl: string;
  /** PubSub endpoint, e.g. `ws://127.0.0.1:8900`; see {@link deriveWebSocketUrl}. */
  wsUrl: string;
  /**
   * Commitment of subscriptions and requests (`processed` is not served by getTransaction;
   * config RPC_COMMITMENT). Every transaction the source yields carries it as `commitment`:
   * it is the commitment its getTransaction result was fetched at.
   */
  commitment: 'confirmed' | 'finalized';
  /** First slot to deliver (inclusive, back-filled with getSignaturesForAddress at start); null = from the tip. */
  fromSlot: number | null;
  /**
   * With `fromSlot`: signature of the last transaction processed before a restart (a
   * checkpoint), in `fromSlot`. The back-fill then starts right after it (it is the
   * getSignaturesForAddress `until`), so neither it nor what precedes it in its block is
   * delivered again. A node that no longer knows it lists the whole of `fromSlot`.
   */
  fromSignature?: string | null;
  /** Reconnect backoff; also paces retries of HTTP failures. */
  backoff: BackoffOptions;
  /** getTransaction requests in flight at most (≥ 1). Transactions are still yielded in notification order. */
  fetchConcurrency: number;
  metrics: SourceMetrics;
  /** From {@link rpcWebSocketMetrics}. */
  rpcMetrics: RpcWebSocketMetrics;
  logger: Logger;
  /** Programs to subscribe to; default {@link TRADE_PROGRAM_IDS}. */
  programIds?: readonly string[];
  // The rest: meaning, unit and default in RPC_WEBSOCKET_DEFAULTS.
  getTransactionRetries?: number;
  getTransactionRetryDelayMs?: number;
  maxSupportedTransactionVersion?: number;
  signaturesPageLimit?: number;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  includeFailed?: boolean;
  /** Clock for the seconds-behind metric, ms since the epoch (tests). */
  now?: () => number;
}

/** Metrics of the RPC source beyond {@link SourceMetrics}; label `source` = `rpc`. */
export interface RpcWebSocketMetrics {
  /** Notified transactions given up on; `reason`: not_found (null after every retry), unsupported_version (-32015), rpc_error, unreadable. */
  missed: Counter<'source' | 'reason'>;
  /** WebSocket messages that were not valid JSON-RPC or not expected; `reason` says which. */
  badMessages: Counter<'source' | 'reason'>;
  /** HTTP JSON-RPC requests that failed and were retried (network, HTTP status, server error); `method`. */
  requestErrors: Counter<'source' | 'method'>;
  /** Transactions found by getSignaturesForAddress after a reconnect (missed live). */
  gapTransactions: Counter<'source'>;
  /** Failed transactions (notification `err` set) not fetched. */
  failedSkipped: Counter<'source'>;
  /** Notified transactions waiting to be yielded. */
  queueLength: Gauge<'source'>;
}

/** Registers (or reuses) the {@link RpcWebSocketMetrics} on `registry`. */
export function rpcWebSocketMetrics(registry: Registry): RpcWebSocketMetrics {
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) => counterOnce(registry, name, help, labelNames);
  return {
    missed: counter('tradewind_ingest_rpc_transactions_missed_total', 'Notified transactions the RPC source gave up fetching', ['source', 'reason']),
    badMessages: counter('tradewind_ingest_rpc_bad_messages_total', 'Unexpected or malformed WebSocket messages from the RPC node', ['source', 'reason']),
    requestErrors: counter('tradewind_ingest_rpc_request_errors_total', 'Failed HTTP JSON-RPC requests (retried)', ['source', 'method']),
    gapTransactions: counter('tradewind_ingest_rpc_gap_transactions_total', 'Transactions recovered with getSignaturesForAddress after a reconnect', [
      'source',
    ]),
    failedSkipped: counter('tradewind_ingest_rpc_failed_skipped_total', 'Failed transactions not fetched', ['source']),
    queueLength: gaugeOnce(registry, 'tradewind_ingest_rpc_queue_length', 'Notified transactions waiting to be yielded', ['source']),
  };
}

/**
 * A failed JSON-RPC call: `rpcCode` is the JSON-RPC error code (-32602 invalid params,
 * -32015 unsupported transaction version, ...) or null for transport failures (network,
 * timeout, HTTP status, unreadable body). Code `unavailable` unless the node rejected the
 * request itself (`invalid_argument`).
 */
export class SolanaRpcError extends AppError {
  readonly method: string;
  readonly rpcCode: number | null;

  constructor(method: string, message: string, options: { rpcCode?: number | null; cause?: unknown } = {}) {
    const rpcCode = options.rpcCode ?? null;
    super(SolanaRpcError.#codeOf(rpcCode), `${method}: ${message}`, { cause: options.cause });
    this.method = method;
    this.rpcCode = rpcCode;
  }

  /** True when retrying the same request cannot help. */
  get permanent(): boolean {
    return this.rpcCode !== null && PERMANENT_RPC_CODES.has(this.rpcCode);
  }

  static #codeOf(rpcCode: number | null): ErrorCode {
    return rpcCode !== null && PERMANENT_RPC_CODES.has(rpcCode) ? 'invalid_argument' : 'unavailable';
  }
}

const UNSUPPORTED_TRANSACTION_VERSION = -32015;
// Invalid request / method not found / invalid params (JSON-RPC 2.0), unsupported version (Agave).
const PERMANENT_RPC_CODES = new Set([-32600, -32601, -32602, UNSUPPORTED_TRANSACTION_VERSION]);

/**
 * The PubSub URL of an HTTP RPC URL: http → ws, https → wss; an explicit port becomes
 * port + 1 (validator convention 8899 → 8900, as @solana/web3.js), otherwise the same host.
 * Throws {@link AppError} `invalid_argument` for other schemes.
 */
export function deriveWebSocketUrl(httpUrl: string): string {
  const url = new URL(httpUrl);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else throw new AppError('invalid_argument', `RPC URL must be http(s), got ${url.protocol}`);
  if (url.port !== '') url.port = String(Number(url.port) + 1);
  return url.toString();
}

/** One getSignaturesForAddress entry (fields this source reads). */
export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
}

/**
 * Merges getSignaturesForAddress listings (each newest first, as the RPC returns them)
 * into one list, oldest first: by slot, and within a slot in an order consistent with
 * every listing (each lists its slot in reverse block order). A signature in several
 * listings (a transaction touching several programs) appears once.
 */
export function mergeSignatureLists(lists: readonly (readonly SignatureInfo[])[]): SignatureInfo[] {
  interface Node {
    info: SignatureInfo;
    seq: number;
    next: Set<string>;
    indegree: number;
  }
  const nodes = new Map<string, Node>();
  let seq = 0;
  for (const list of lists) {
    let prev: Node | null = null;
    for (let i = list.length - 1; i >= 0; i--) {
      const info = list[i]!;
      let node = nodes.get(info.signature);
      if (!node) nodes.set(info.signature, (node = { info, seq: seq++, next: new Set(), indegree: 0 }));
      if (prev && prev.info.slot === node.info.slot && prev !== node && !prev.next.has(info.signature)) {
        prev.next.add(info.signature);
        node.indegree++;
      }
      prev = node;
    }
  }
  const bySlot = new Map<number, Node[]>();
  for (const node of nodes.values()) {
    const group = bySlot.get(node.info.slot);
    if (group) group.push(node);
    else bySlot.set(node.info.slot, [node]);
  }
  const out: SignatureInfo[] = [];
  for (const slot of [...bySlot.keys()].sort((a, b) => a - b)) {
    // Kahn's algorithm within the slot; ties (no constraint) keep first-seen order.
    const group = bySlot.get(slot)!.sort((a, b) => a.seq - b.seq);
    const done = new Set<Node>();
    while (done.size < group.length) {
      const ready = group.find((n) => !done.has(n) && n.indegree === 0) ?? group.find((n) => !done.has(n))!; // a cycle (inconsistent listings) cannot block
      done.add(ready);
      out.push(ready.info);
      for (const sig of ready.next) nodes.get(sig)!.indegree--;
    }
  }
  return out;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSlot = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Host of an endpoint, for logs: provider URLs carry API keys in the path or query. */
function endpointForLog(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unparseable url)';
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(new SolanaRpcError(what, `no answer within ${timeoutMs} ms`))), timeoutMs);
    const onAbort = () => finish(() => reject(new SolanaRpcError(what, 'aborted')));
    function finish(settle: () => void) {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      settle();
    }
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => finish(() => resolve(v)),
      (e: unknown) => finish(() => reject(e)),
    );
  });
}

type LogsNote = SignatureInfo;

/** Resolves with the close reason, or 'stopping' when `signal` aborts first. */
function closedOrAborted(closed: Promise<string>, signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const onAbort = () => resolve('stopping');
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void closed.then((reason) => {
      signal.removeEventListener('abort', onAbort);
      resolve(reason);
    });
  });
}

interface ConnectionEvents {
  onLogs(note: LogsNote): void;
  /** A processed slot; `root` the node's root slot when the notification carried one. */
  onSlot(slot: number, root: number | null): void;
  onBadMessage(reason: string, detail?: Obj): void;
}

/** One PubSub WebSocket: subscriptions, keepalive, message parsing. */
class PubSubConnection {
  readonly #ws: WebSocket;
  readonly #events: ConnectionEvents;
  readonly #pending = new Map<number, { method: string; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #logSubscriptions = new Set<number>();
  #slotSubscription: number | null = null;
  #nextId = 1;
  #lastActivity = Date.now();
  #lastPing = Date.now();
  #keepalive: NodeJS.Timeout | undefined;
  #closeReason: string | null = null;
  /** True once a notification arrived: the connection worked (resets the backoff). */
  deliveredData = false;
  /** Resolves with the reason once the socket is closed, whoever closed it. */
  readonly closed: Promise<string>;
  readonly #opened: Promise<void>;

  constructor(
    url: string,
    private readonly settings: { connectTimeoutMs: number; pingIntervalMs: number; idleTimeoutMs: number },
    events: ConnectionEvents,
  ) {
    this.#events = events;
    this.#ws = new WebSocket(url, { handshakeTimeout: settings.connectTimeoutMs });
    this.#opened = new Promise<void>((resolve, reject) => {
      this.#ws.once('open', () => resolve());
      this.#ws.once('close', () => reject(new SolanaRpcError('connect', this.#closeReason ?? 'closed before opening')));
    });
    this.#opened.catch(() => undefined);
    this.closed = new Promise<string>((resolve) => {
      this.#ws.on('close', (code, reason) => {
        clearInterval(this.#keepalive);
        const why = this.#closeReason ?? `closed by the server (code ${code}${reason.length ? `, ${reason.toString().slice(0, 120)}` : ''})`;
        for (const p of this.#pending.values()) p.reject(new SolanaRpcError(p.method, `connection closed: ${why}`));
        this.#pending.clear();
        resolve(why);
      });
    });
    // 'error' always precedes 'close'; keep its message as the reason.
    this.#ws.on('error', (err) => {
      this.#closeReason ??= err.message;
    });
    this.#ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    this.#ws.on('pong', () => {
      this.#lastActivity = Date.now();
    });
  }

  /** Waits for the handshake, subscribes logs for each program and slots; rejects on failure, timeout or abort. */
  async open(programIds: readonly string[], commitment: string, signal: AbortSignal): Promise<void> {
    const { connectTimeoutMs } = this.settings;
    await abortable(this.#opened, signal, connectTimeoutMs, 'connect');
    this.#lastActivity = Date.now();
    const tick = Math.max(10, Math.min(this.settings.pingIntervalMs, this.settings.idleTimeoutMs / 2));
    this.#keepalive = setInterval(() => this.#checkAlive(), tick);
    const requests = programIds.map((p) => this.#request('logsSubscribe', [{ mentions: [p] }, { commitment }]));
    requests.push(this.#request('slotSubscribe', []));
    await abortable(Promise.all(requests), signal, connectTimeoutMs, 'subscribe');
  }

  /** Closes the socket now (no close handshake wait); `reason` becomes {@link closed}'s value. */
  close(reason: string): void {
    this.#closeReason ??= reason;
    clearInterval(this.#keepalive);
    this.#ws.terminate();
  }

  #checkAlive(): void {
    const now = Date.now();
    if (now - this.#lastActivity >= this.settings.idleTimeoutMs) {
      this.close(`idle: nothing received for ${now - this.#lastActivity} ms`);
      return;
    }
    if (now - this.#lastPing >= this.settings.pingIntervalMs && this.#ws.readyState === WebSocket.OPEN) {
      this.#lastPing = now;
      this.#ws.ping();
    }
  }

  #request(method: string, params: unknown[]): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      this.#ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (err) => {
        if (err) {
          this.#pending.delete(id);
          reject(new SolanaRpcError(method, err.message, { cause: err }));
        }
      });
    });
  }

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    this.#lastActivity = Date.now();
    if (isBinary) return this.#events.onBadMessage('binary');
    let msg: unknown;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      return this.#events.onBadMessage('not_json');
    }
    if (!isObj(msg)) return this.#events.onBadMessage('not_an_object');
    if (typeof msg.id === 'number' && ('result' in msg || 'error' in msg)) return this.#onResponse(msg.id, msg);
    if (msg.method === 'logsNotification') return this.#onLogsNotification(msg.params);
    if (msg.method === 'slotNotification') return this.#onSlotNotification(msg.params);
    if ('error' in msg) return this.#events.onBadMessage('error_response', { error: summarizeError(msg.error) });
    return this.#events.onBadMessage('unknown_method', { method: typeof msg.method === 'string' ? msg.method.slice(0, 60) : null });
  }

  #onResponse(id: number, msg: Obj): void {
    const pending = this.#pending.get(id);
    if (!pending) return this.#events.onBadMessage('unknown_response_id');
    this.#pending.delete(id);
    if ('error' in msg) {
      const e = isObj(msg.error) ? msg.error : {};
      return pending.reject(new SolanaRpcError(pending.method, String(e.message ?? 'error'), { rpcCode: typeof e.code === 'number' ? e.code : null }));
    }
    // Record subscription ids synchronously: a notification may be parsed from the same TCP chunk.
    if (!isSlot(msg.result)) return pending.reject(new SolanaRpcError(pending.method, 'subscription id is not an integer'));
    if (pending.method === 'logsSubscribe') this.#logSubscriptions.add(msg.result);
    else if (pending.method === 'slotSubscribe') this.#slotSubscription = msg.result;
    pending.resolve(msg.result);
  }

  #onLogsNotification(params: unknown): void {
    if (!isObj(params) || !isObj(params.result)) return this.#events.onBadMessage('bad_logs_notification');
    if (typeof params.subscription !== 'number' || !this.#logSubscriptions.has(params.subscription)) return this.#events.onBadMessage('unknown_subscription');
    const { context, value } = params.result;
    if (!isObj(context) || !isSlot(context.slot) || !isObj(value) || typeof value.signature !== 'string' || value.signature.length === 0) {
      return this.#events.onBadMessage('bad_logs_notification');
    }
    this.deliveredData = true;
    this.#events.onLogs({ signature: value.signature, slot: context.slot, err: value.err ?? null });
  }

  #onSlotNotification(params: unknown): void {
    if (!isObj(params) || !isObj(params.result) || !isSlot(params.result.slot)) return this.#events.onBadMessage('bad_slot_notification');
    if (params.subscription !== this.#slotSubscription) return this.#events.onBadMessage('unknown_subscription');
    this.deliveredData = true;
    this.#events.onSlot(params.result.slot, isSlot(params.result.root) ? params.result.root : null);
  }
}

function summarizeError(e: unknown): unknown {
  return isObj(e) ? { code: e.code, message: typeof e.message === 'string' ? e.message.slice(0, 200) : undefined } : String(e).slice(0, 200);
}

type FetchOutcome =
  | { ok: true; tx: NormalizedTransaction }
  | { ok: false; reason: 'not_found' | 'unsupported_version' | 'rpc_error' | 'unreadable' | 'aborted'; error?: unknown };

interface QueueItem {
  signature: string;
  slot: number;
  /** Identity of the fetch in progress; null = not started. A stale fetch's answer is ignored. */
  fetch: object | null;
  outcome?: FetchOutcome;
}

interface Settings {
  readonly httpUrl: string;
  readonly wsUrl: string;
  readonly commitment: 'confirmed' | 'finalized';
  readonly backoff: BackoffOptions;
  readonly fetchConcurrency: number;
  readonly programIds: readonly string[];
  readonly getTransactionRetries: number;
  readonly getTransactionRetryDelayMs: number;
  readonly maxSupportedTransactionVersion: number;
  readonly signaturesPageLimit: number;
  readonly pingIntervalMs: number;
  readonly idleTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly includeFailed: boolean;
}

/**
 * Design: a supervisor task owns the WebSocket (connect, subscribe, catch up, reconnect
 * with backoff) and appends notified signatures to one ordered queue, deduplicated; the
 * first `fetchConcurrency` queue entries are being fetched; the generator yields the queue
 * head once its fetch is done, so output order is notification order whatever order the
 * fetches finish in. The queue survives reconnects.
 */
/**
 * Slots delivered from and not yet rooted that the RPC source keeps for their `finalized` status: 4,096, about
 * 27 minutes of chain at 400 ms a slot (a root that stops moving for longer is a node to replace).
 */
const MAX_UNROOTED_SLOTS = 4_096;

class RpcWebSocketSource implements TransactionSource {
  readonly name = 'rpc';
  /** The commitment of logsSubscribe, getSignaturesForAddress and getTransaction: what every yielded transaction carries. */
  readonly commitment: 'confirmed' | 'finalized';
  readonly #s: Settings;
  readonly #metrics: SourceMetrics;
  readonly #rpcMetrics: RpcWebSocketMetrics;
  readonly #log: Logger;
  readonly #labels = { source: 'rpc' } as const;
  readonly #resume: ResumeState;
  readonly #lag: LagTracker;
  readonly #queue: QueueItem[] = [];
  /** Signatures in the queue or handed to the consumer and not yet recorded in #resume. */
  readonly #pendingSignatures = new Set<string>();
  /** Last signature notified or listed (failed ones included): `until` of the next catch-up. */
  #lastSeen: SignatureInfo | null = null;
  /** Tip slot when a from-the-tip start first subscribed: floor of a catch-up before anything was seen. */
  #startSlot: number | null = null;
  #needsCatchUp: boolean;
  #waiters: (() => void)[] = [];
  #running = false;
  #fetchSignal: AbortSignal = AbortSignal.abort();
  #rpcId = 0;
  /** The node's root slot as last notified (0: none yet). */
  #root = 0;
  /** Slots this source delivered transactions from, not yet reported finalized (oldest first; at most {@link MAX_UNROOTED_SLOTS}). */
  readonly #unrooted = new Set<number>();

  constructor(options: RpcWebSocketSourceOptions) {
    const d = RPC_WEBSOCKET_DEFAULTS;
    this.#s = {
      httpUrl: options.httpUrl,
      wsUrl: options.wsUrl,
      commitment: options.commitment,
      backoff: options.backoff,
      fetchConcurrency: Math.max(1, Math.floor(options.fetchConcurrency)),
      programIds: options.programIds ?? TRADE_PROGRAM_IDS,
      getTransactionRetries: options.getTransactionRetries ?? d.getTransactionRetries,
      getTransactionRetryDelayMs: options.getTransactionRetryDelayMs ?? d.getTransactionRetryDelayMs,
      maxSupportedTransactionVersion: options.maxSupportedTransactionVersion ?? d.maxSupportedTransactionVersion,
      signaturesPageLimit: options.signaturesPageLimit ?? d.signaturesPageLimit,
      pingIntervalMs: options.pingIntervalMs ?? d.pingIntervalMs,
      idleTimeoutMs: options.idleTimeoutMs ?? d.idleTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs ?? d.connectTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? d.requestTimeoutMs,
      includeFailed: options.includeFailed ?? d.includeFailed,
    };
    this.commitment = this.#s.commitment;
    this.#metrics = options.metrics;
    this.#rpcMetrics = options.rpcMetrics;
    this.#log = options.logger.child({ component: 'rpc-websocket-source' });
    this.#resume = new ResumeState(options.fromSlot);
    if (options.fromSlot !== null && options.fromSignature) {
      this.#resume.add(options.fromSlot, options.fromSignature);
      this.#lastSeen = { signature: options.fromSignature, slot: options.fromSlot, err: null };
    }
    this.#needsCatchUp = options.fromSlot !== null;
    this.#lag = new LagTracker(options.metrics, this.name, options.now);
  }

  async *transactions(signal: AbortSignal): AsyncGenerator<NormalizedTransaction, void, undefined> {
    for await (const item of this.#iterate(signal, false)) if (!('kind' in item)) yield item;
  }

  /**
   * The transactions, and after them `finalized` for each slot they came from once the node's root reaches it and
   * no transaction of that slot or an earlier one is still being fetched. The source reads at `confirmed` (or
   * `finalized`): its transactions are confirmed already (their `commitment`), and a confirmed slot is not
   * rolled back in practice, so it reports no `processed`, `confirmed` or `dead`. The parent is not given.
   */
  async *updates(signal: AbortSignal): AsyncGenerator<NormalizedTransaction | SlotUpdate, void, undefined> {
    yield* this.#iterate(signal, true);
  }

  /** Rooted slots delivered from whose transactions are all out, ascending; removed from {@link #unrooted}. */
  #rootedSlots(): SlotUpdate[] {
    if (this.#unrooted.size === 0) return [];
    let pendingFloor = Number.POSITIVE_INFINITY;
    for (const item of this.#queue) if (item.slot < pendingFloor) pendingFloor = item.slot;
    const ready = [...this.#unrooted].filter((slot) => slot <= this.#root && slot < pendingFloor).sort((a, b) => a - b);
    for (const slot of ready) this.#unrooted.delete(slot);
    return ready.map((slot) => ({ kind: 'slot', slot, parent: null, status: 'finalized' }));
  }

  async *#iterate(signal: AbortSignal, withSlots: boolean): AsyncGenerator<NormalizedTransaction | SlotUpdate, void, undefined> {
    if (this.#running) throw new AppError('conflict', 'the RPC WebSocket source is already being iterated');
    this.#running = true;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stop.abort();
    // Each fetch waiting out a retry listens on it; more than Node's default 10 is expected.
    setMaxListeners(this.#s.fetchConcurrency + 16, stop.signal);
    this.#fetchSignal = stop.signal;
    this.#log.info(
      { http: endpointForLog(this.#s.httpUrl), ws: endpointForLog(this.#s.wsUrl), commitment: this.#s.commitment, from_slot: this.#resume.lastSlot },
      'RPC WebSocket source starting',
    );
    const supervisor = this.#supervise(stop.signal).catch((err: unknown) => this.#log.error({ err }, 'RPC WebSocket supervisor stopped on an error'));
    this.#pump();
    let delivered: QueueItem | null = null;
    try {
      while (!stop.signal.aborted) {
        if (withSlots) for (const update of this.#rootedSlots()) yield update;
        const head = this.#queue[0];
        if (!head?.outcome || (!head.outcome.ok && head.outcome.reason === 'aborted')) {
          await this.#changed(stop.signal);
          continue;
        }
        this.#queue.shift();
        this.#pump();
        const outcome = head.outcome;
        if (outcome.ok) {
          delivered = head;
          this.#lag.processed(outcome.tx.slot ?? head.slot, outcome.tx.blockTimeMs);
          this.#metrics.transactions.inc(this.#labels);
          const slot = outcome.tx.slot;
          if (withSlots && slot !== null) {
            this.#unrooted.add(slot);
            if (this.#unrooted.size > MAX_UNROOTED_SLOTS) this.#unrooted.delete(this.#unrooted.values().next().value as number);
          }
          yield outcome.tx;
          delivered = null;
        } else {
          // Never a silent drop: counted by reason and logged with the signature.
          this.#rpcMetrics.missed.inc({ ...this.#labels, reason: outcome.reason });
          this.#log.error(
            { signature: head.signature, slot: head.slot, reason: outcome.reason, err: outcome.error },
            'notified transaction skipped: getTransaction gave no usable result',
          );
        }
        // The consumer asked for the next one: this one is processed.
        this.#done(head);
      }
    } finally {
      if (delivered) this.#done(delivered);
      signal.removeEventListener('abort', onAbort);
      stop.abort();
      await supervisor;
      // Fetches cut short by the stop are redone if the source is iterated again.
      for (const item of this.#queue) {
        if (!item.outcome?.ok) {
          item.fetch = null;
          delete item.outcome;
        }
      }
      this.#running = false;
    }
  }

  #done(item: QueueItem): void {
    this.#resume.add(item.slot, item.signature);
    this.#pendingSignatures.delete(item.signature);
    this.#rpcMetrics.queueLength.set(this.#labels, this.#queue.length);
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  #changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Starts the fetch of each of the first `fetchConcurrency` queue entries not yet started. */
  #pump(): void {
    if (this.#fetchSignal.aborted) return;
    const n = Math.min(this.#queue.length, this.#s.fetchConcurrency);
    for (let i = 0; i < n; i++) {
      const item = this.#queue[i]!;
      if (item.fetch) continue;
      const token = (item.fetch = {});
      void this.#fetch(item.signature, this.#fetchSignal).then((outcome) => {
        if (item.fetch !== token) return;
        item.outcome = outcome;
        this.#wake();
      });
    }
  }

  /** Queues a notified or listed signature unless failed (by default) or already queued / processed. */
  #accept(info: SignatureInfo, origin: 'live' | 'gap'): void {
    this.#lag.tip(info.slot);
    if (this.#lastSeen === null || info.slot >= this.#lastSeen.slot) this.#lastSeen = info;
    if (info.err !== null && info.err !== undefined && !this.#s.includeFailed) {
      this.#rpcMetrics.failedSkipped.inc(this.#labels);
      return;
    }
    if (this.#pendingSignatures.has(info.signature) || this.#resume.has(info.slot, info.signature)) {
      this.#metrics.duplicatesSkipped.inc(this.#labels);
      return;
    }
    this.#pendingSignatures.add(info.signature);
    this.#queue.push({ signature: info.signature, slot: info.slot, fetch: null });
    if (origin === 'gap') this.#rpcMetrics.gapTransactions.inc(this.#labels);
    this.#rpcMetrics.queueLength.set(this.#labels, this.#queue.length);
    this.#pump();
  }

  /** Connect → subscribe → catch up → live, until the connection ends; then backoff and again. */
  async #supervise(signal: AbortSignal): Promise<void> {
    let attempt = 0;
    let first = true;
    while (!signal.aborted) {
      if (!first) {
        const delay = backoffDelayMs(attempt, this.#s.backoff);
        attempt++;
        this.#metrics.reconnects.inc(this.#labels);
        this.#log.info({ delay_ms: delay, attempt }, 'reconnecting to the RPC WebSocket');
        await sleep(delay, signal);
        if (signal.aborted) break;
      }
      first = false;
      // Notifications that arrive while catching up wait here, so the gap comes first.
      let buffered: LogsNote[] | null = [];
      let conn: PubSubConnection | undefined;
      try {
        conn = new PubSubConnection(
          this.#s.wsUrl,
          { connectTimeoutMs: this.#s.connectTimeoutMs, pingIntervalMs: this.#s.pingIntervalMs, idleTimeoutMs: this.#s.idleTimeoutMs },
          {
            onLogs: (note) => {
              if (buffered) buffered.push(note);
              else this.#accept(note, 'live');
              this.#wake();
            },
            onSlot: (slot, root) => {
              this.#lag.tip(slot);
              if (root !== null && root > this.#root) {
                this.#root = root;
                if (this.#unrooted.size > 0) this.#wake();
              }
            },
            onBadMessage: (reason, detail) => {
              this.#rpcMetrics.badMessages.inc({ ...this.#labels, reason });
              this.#log.warn({ reason, ...detail }, 'unexpected message from the RPC WebSocket ignored');
            },
          },
        );
        await conn.open(this.#s.programIds, this.#s.commitment, signal);
        this.#metrics.connected.set(this.#labels, 1);
        await this.#catchUp(signal);
        for (const note of buffered) this.#accept(note, 'live');
        buffered = null;
        // Live from here on: whatever connection comes next must close the gap first.
        this.#needsCatchUp = true;
        this.#wake();
        const reason = await closedOrAborted(conn.closed, signal);
        if (!signal.aborted) this.#log.warn({ reason }, 'RPC WebSocket connection lost');
      } catch (err) {
        if (!signal.aborted) this.#log.warn({ err: err instanceof Error ? err.message : String(err) }, 'RPC WebSocket connection failed');
      } finally {
        conn?.close(signal.aborted ? 'stopping' : 'reconnecting');
        this.#metrics.connected.set(this.#labels, 0);
      }
      if (conn?.deliveredData) attempt = 0;
    }
  }

  /**
   * After (re)subscribing: lists what each program had since the last signature seen
   * (`until`), down to its slot (the floor, in case the node does not know that signature),
   * and queues it oldest first. Subscriptions are already live, so the listing overlaps
   * them; the dedupe in #accept removes the overlap.
   */
  async #catchUp(signal: AbortSignal): Promise<void> {
    if (!this.#needsCatchUp) {
      if (this.#startSlot === null)
        this.#startSlot = await this.#rpc<number>('getSlot', [{ commitment: this.#s.commitment }], signal).then((s) => (isSlot(s) ? s : null));
      return;
    }
    const until = this.#lastSeen?.signature;
    const floor = this.#lastSeen?.slot ?? this.#resume.lastSlot ?? this.#startSlot;
    if (floor === null) return;
    const lists = await Promise.all(this.#s.programIds.map((program) => this.#listSince(program, until, floor, signal)));
    const merged = mergeSignatureLists(lists);
    const before = this.#queue.length;
    for (const info of merged) this.#accept(info, 'gap');
    this.#log.info({ floor_slot: floor, listed: merged.length, queued: this.#queue.length - before }, 'caught up with getSignaturesForAddress');
  }

  async #listSince(program: string, until: string | undefined, floor: number, signal: AbortSignal): Promise<SignatureInfo[]> {
    const out: SignatureInfo[] = [];
    let before: string | undefined;
    for (;;) {
      const config: Obj = { commitment: this.#s.commitment, limit: this.#s.signaturesPageLimit };
      if (until !== undefined) config.until = until;
      if (before !== undefined) config.before = before;
      const page = await this.#rpc<unknown>('getSignaturesForAddress', [program, config], signal);
      if (!Array.isArray(page)) throw new SolanaRpcError('getSignaturesForAddress', 'result is not an array');
      for (const e of page) {
        if (!isObj(e) || typeof e.signature !== 'string' || !isSlot(e.slot)) throw new SolanaRpcError('getSignaturesForAddress', 'entry lacks signature/slot');
        if (e.slot < floor) return out;
        out.push({ signature: e.signature, slot: e.slot, err: e.err ?? null });
      }
      if (page.length < this.#s.signaturesPageLimit) return out;
      before = (page[page.length - 1] as SignatureInfo).signature;
    }
  }

  /**
   * getTransaction with retries: null (not there yet) up to `getTransactionRetries` times;
   * transport and server errors with the backoff, for as long as it takes (an HTTP outage
   * stalls the stream, it does not lose transactions); -32015 and other request errors
   * give up at once.
   */
  async #fetch(signature: string, signal: AbortSignal): Promise<FetchOutcome> {
    let nulls = 0;
    let failures = 0;
    const config = { commitment: this.#s.commitment, encoding: 'base64', maxSupportedTransactionVersion: this.#s.maxSupportedTransactionVersion };
    while (!signal.aborted) {
      let result: unknown;
      try {
        result = await this.#rpc<unknown>('getTransaction', [signature, config], signal);
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof SolanaRpcError && err.permanent) {
          return { ok: false, reason: err.rpcCode === UNSUPPORTED_TRANSACTION_VERSION ? 'unsupported_version' : 'rpc_error', error: err };
        }
        this.#rpcMetrics.requestErrors.inc({ ...this.#labels, method: 'getTransaction' });
        const delay = backoffDelayMs(failures++, this.#s.backoff);
        this.#log.warn({ signature, err: err instanceof Error ? err.message : String(err), retry_in_ms: delay }, 'getTransaction failed; retrying');
        await sleep(delay, signal);
        continue;
      }
      if (result === null) {
        if (nulls >= this.#s.getTransactionRetries) return { ok: false, reason: 'not_found' };
        nulls++;
        await sleep(this.#s.getTransactionRetryDelayMs, signal);
        continue;
      }
      try {
        const tx = normalizeTransaction(result, this.#s.commitment);
        if (tx.signature !== signature) return { ok: false, reason: 'unreadable', error: `answer is for signature ${tx.signature}` };
        return { ok: true, tx };
      } catch (err) {
        return { ok: false, reason: 'unreadable', error: err instanceof DecodeError ? err.message : err };
      }
    }
    return { ok: false, reason: 'aborted' };
  }

  /** One HTTP JSON-RPC call; throws {@link SolanaRpcError}. */
  async #rpc<T>(method: string, params: unknown[], signal: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.#s.httpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#rpcId, method, params }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#s.requestTimeoutMs)]),
      });
    } catch (err) {
      throw new SolanaRpcError(method, err instanceof Error ? err.message : String(err), { cause: err });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new SolanaRpcError(method, `HTTP ${response.status}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (err) {
      throw new SolanaRpcError(method, 'response is not JSON', { cause: err });
    }
    if (!isObj(body)) throw new SolanaRpcError(method, 'response is not a JSON-RPC object');
    if (isObj(body.error)) {
      throw new SolanaRpcError(method, String(body.error.message ?? 'error'), { rpcCode: typeof body.error.code === 'number' ? body.error.code : null });
    }
    if (!('result' in body)) throw new SolanaRpcError(method, 'response has neither result nor error');
    return body.result as T;
  }
}

/**
 * Creates the RPC WebSocket live source (name `rpc`). Nothing connects until
 * `transactions(signal)` is iterated; one iteration at a time (a second concurrent one
 * throws {@link AppError} `conflict`). Throws {@link AppError} `invalid_argument` when a
 * URL is unparseable or of the wrong scheme. Yields each successful transaction mentioning one
 * of the programs once, in notification order (slot order); transactions whose
 * notification reports a failure are not fetched (counted in `failedSkipped`) unless
 * `includeFailed`. Each carries `commitment` = `options.commitment` (also when it was
 * recovered by the gap fill, which lists and fetches at that commitment too); a commitment
 * other than confirmed / finalized throws {@link AppError} `invalid_argument`.
 * Connection problems never end the iteration: it reconnects with
 * {@link backoffDelayMs} and back-fills the outage from getSignaturesForAddress.
 */
export function createRpcWebSocketSource(options: RpcWebSocketSourceOptions): TransactionSource {
  const scheme = (url: string, allowed: string[], what: string) => {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch (err) {
      throw new AppError('invalid_argument', `${what} is not a URL`, { cause: err });
    }
    if (!allowed.includes(protocol)) throw new AppError('invalid_argument', `${what} must use ${allowed.join(' or ')}, got ${protocol}`);
  };
  scheme(options.httpUrl, ['http:', 'https:'], 'httpUrl');
  scheme(options.wsUrl, ['ws:', 'wss:'], 'wsUrl');
  // getTransaction refuses `processed`, and the commitment is stamped on every message: never guess it.
  if (options.commitment !== 'confirmed' && options.commitment !== 'finalized') {
    throw new AppError('invalid_argument', `commitment must be confirmed or finalized, got ${JSON.stringify(options.commitment)}`);
  }
  return new RpcWebSocketSource(options);
}
