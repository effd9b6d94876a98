/**
 * A local Solana JSON-RPC node for tests: HTTP JSON-RPC 2.0 (`getTransaction`,
 * `getSignaturesForAddress`, `getSlot`) and the PubSub WebSocket (`logsSubscribe`,
 * `logsUnsubscribe`, `slotSubscribe`, `slotUnsubscribe`) on a second port, as a validator
 * serves them on 8899 / 8900. It serves the REAL recorded mainnet transactions under
 * services/ingest/recording/** (getTransaction results, as stored), which a test
 * "produces" block by block with `emit` / `emitAll`.
 *
 * Protocol as documented at https://solana.com/docs/rpc (http/gettransaction,
 * http/getsignaturesforaddress, http/getslot, websocket/logssubscribe,
 * websocket/slotsubscribe); behaviour the pages leave open follows Agave
 * (rpc/src/rpc.rs, ledger/src/blockstore.rs `get_confirmed_signatures_for_address2`):
 * - getSignaturesForAddress lists newest first in ledger order (slot, then position in the
 *   block); `before` and `until` are exclusive and are located by their own slot, so any
 *   signature works, even one not mentioning the address; an unknown `before` gives [], an
 *   unknown `until` sets no lower bound; `limit` 1..1000 (default 1000).
 * - getTransaction answers null until the transaction's block is produced, rejects
 *   commitment `processed`, and answers -32015 when the stored version is higher than
 *   `maxSupportedTransactionVersion` (or versioned while the parameter is absent).
 * - logsSubscribe `mentions` takes exactly one address; a transaction matches when its
 *   account keys (static keys plus meta.loadedAddresses) include it.
 * Simplifications: one fork, everything produced is at once confirmed and finalized (the
 * commitment is validated, not simulated); the stored encoding is returned whatever
 * `encoding` asks for (json / jsonParsed / base64 captures are mixed in the recording and
 * cannot be re-encoded here; every one of them is a real getTransaction answer).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bs58 from 'bs58';
import { WebSocketServer, type WebSocket } from 'ws';
import { normalizeTransaction } from '../../src/decode/transaction.js';

/** services/ingest/recording: one getTransaction result per file. */
export const RECORDING_DIR = fileURLToPath(new URL('../../recording', import.meta.url));

/** One recorded transaction as the server holds it. */
export interface RecordedTransaction {
  /** Path of the recorded file. */
  readonly file: string;
  readonly signature: string;
  /** The recorded slot, or a synthetic one (see {@link RecordedTransaction.syntheticSlot}). */
  readonly slot: number;
  /**
   * True for captures without a slot (blockSubscribe captures): they get a synthetic slot
   * after the highest recorded one, in file order, so they can be produced and listed like
   * the others. Their blockTime stays null (unknown), which the protocol allows.
   */
  readonly syntheticSlot: boolean;
  /** Unix seconds, or null. */
  readonly blockTime: number | null;
  /** `version` of the stored result: 'legacy', 0, 1, or null when the capture lacks it. */
  readonly version: 'legacy' | number | null;
  /** meta.err. */
  readonly err: unknown;
  readonly logs: readonly string[];
  /** Static keys then meta.loadedAddresses (writable, readonly), as the runtime sees them. */
  readonly accountKeys: readonly string[];
  /** The getTransaction result served: the file's object (envelope unwrapped), plus slot/blockTime when synthetic. */
  readonly result: Readonly<Record<string, unknown>>;
  /** The parsed file, untouched. */
  readonly raw: unknown;
}

/**
 * Reads every `*.json` under `dir` that is a transaction, ordered by slot (synthetic slots
 * last, in path order). Files that are not transactions are returned in `skipped`.
 */
export function loadRecordedTransactions(dir: string = RECORDING_DIR): { transactions: RecordedTransaction[]; skipped: string[] } {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f))
    .sort();
  const parsed: { file: string; raw: unknown; result: Record<string, unknown>; signature: string; accountKeys: string[]; logs: string[]; err: unknown }[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
    try {
      const tx = normalizeTransaction(raw);
      const obj = raw as Record<string, unknown>;
      const result = (typeof obj.result === 'object' && obj.result !== null && 'jsonrpc' in obj ? obj.result : obj) as Record<string, unknown>;
      parsed.push({ file, raw, result, signature: tx.signature, accountKeys: tx.accountKeys, logs: tx.logs ?? [], err: tx.err });
    } catch {
      skipped.push(file);
    }
  }
  const slotOf = (r: Record<string, unknown>) => (typeof r.slot === 'number' ? r.slot : null);
  const maxSlot = Math.max(0, ...parsed.map((p) => slotOf(p.result) ?? 0));
  let synthetic = maxSlot;
  const transactions = parsed.map((p): RecordedTransaction => {
    const recorded = slotOf(p.result);
    const slot = recorded ?? ++synthetic;
    const v = p.result.version;
    return {
      file: p.file,
      signature: p.signature,
      slot,
      syntheticSlot: recorded === null,
      blockTime: typeof p.result.blockTime === 'number' ? p.result.blockTime : null,
      version: v === 'legacy' || typeof v === 'number' ? v : null,
      err: p.err,
      logs: p.logs,
      accountKeys: p.accountKeys,
      result: recorded === null ? { ...p.result, slot, blockTime: null } : p.result,
      raw: p.raw,
    };
  });
  transactions.sort((a, b) => a.slot - b.slot);
  return { transactions, skipped };
}

/** A JSON-RPC request the server received. */
export interface RpcCall {
  transport: 'http' | 'ws';
  method: string;
  params: unknown;
}

/** Handle on a running {@link startSolanaRpcServer}. */
export interface SolanaRpcServer {
  /** `http://127.0.0.1:<port>` (JSON-RPC over HTTP POST). */
  readonly httpUrl: string;
  /** `ws://127.0.0.1:<port>` (PubSub), a different port, as 8899 / 8900 on a validator. */
  readonly wsUrl: string;
  /** Every recorded transaction, slot order. */
  readonly transactions: readonly RecordedTransaction[];
  /** Every JSON-RPC request received, in order. */
  readonly calls: RpcCall[];
  /** Date.now() of every WebSocket upgrade request, refused ones included. */
  readonly connectionAttempts: number[];
  /** Highest produced slot (what getSlot answers). */
  readonly tip: number;
  /** Most getTransaction requests ever in progress at once. */
  readonly maxGetTransactionInFlight: number;
  /**
   * Produces the blocks holding `txs` (in the order given; call it in slot order): they
   * become visible to getTransaction / getSignaturesForAddress, a slotNotification goes to
   * slot subscribers for each new slot, and a logsNotification to each matching logs
   * subscription (one per subscription: a transaction mentioning two subscribed programs
   * is notified twice, as on a real node).
   */
  emit(...txs: RecordedTransaction[]): void;
  /** Emits every not yet produced transaction, slot order. */
  emitAll(): void;
  /** Produces `count` empty slots after the tip (slot notifications only). */
  advanceSlots(count: number): void;
  /** Terminates every open WebSocket (subscriptions die with them); returns how many. */
  dropConnections(): number;
  /** Current WebSockets stop sending anything, pongs included (a half-dead connection). */
  freezeConnections(): void;
  /** While true, WebSocket upgrades are answered with HTTP 503 (the node is down for PubSub). */
  refuseConnections(refuse: boolean): void;
  /** getTransaction answers null for `signature` the next `times` times even once produced. */
  returnNullFor(signature: string, times: number): void;
  /** Delay (ms) before answering getTransaction for a signature (default 0). */
  setGetTransactionDelay(delay: (signature: string) => number): void;
  /** Crafted: logs subscriptions mentioning `address` also match `signature`. */
  alsoMention(signature: string, address: string): void;
  /** Sends `text` as-is to every open WebSocket (bad-message tests). */
  sendRaw(text: string): void;
  /** Number of live logs subscriptions. */
  logSubscriptionCount(): number;
  /** Resolves when `predicate()` holds (polled every 5 ms); rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

// Standard JSON-RPC 2.0 codes, and Agave's -32015 (JSON_RPC_SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION).
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const UNSUPPORTED_TRANSACTION_VERSION = -32015;
const MAX_SIGNATURES_LIMIT = 1000;
const ENCODINGS = new Set(['json', 'jsonParsed', 'base64', 'base58']);
const COMMITMENTS = new Set(['processed', 'confirmed', 'finalized']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function configAt(params: unknown[], i: number): Obj {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (!isObj(c)) throw new RpcFailure(INVALID_PARAMS, `Invalid params: config at position ${i} is not an object`);
  return c;
}

function checkCommitment(config: Obj, atLeastConfirmed: boolean): void {
  const c = config.commitment;
  if (c === undefined) return;
  if (typeof c !== 'string' || !COMMITMENTS.has(c)) throw new RpcFailure(INVALID_PARAMS, `Invalid params: unknown commitment ${JSON.stringify(c)}`);
  if (atLeastConfirmed && c === 'processed') throw new RpcFailure(INVALID_PARAMS, 'Method does not support commitment below `confirmed`');
}

function checkAddress(v: unknown): string {
  if (typeof v !== 'string') throw new RpcFailure(INVALID_PARAMS, 'Invalid params: address is not a string');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(v);
  } catch {
    throw new RpcFailure(INVALID_PARAMS, 'Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw new RpcFailure(INVALID_PARAMS, 'Invalid param: WrongSize');
  return v;
}

interface Subscription {
  id: number;
  kind: 'logs' | 'slot';
  /** logs: null = all, else the one mentioned address. */
  mentions: string | null;
}

/**
 * Starts the node on 127.0.0.1 (two ephemeral ports). `transactions` defaults to the whole
 * bundled recording ({@link loadRecordedTransactions}).
 */
export async function startSolanaRpcServer(options: { transactions?: RecordedTransaction[] } = {}): Promise<SolanaRpcServer> {
  const transactions = options.transactions ?? loadRecordedTransactions().transactions;
  const bySignature = new Map(transactions.map((t) => [t.signature, t]));
  const calls: RpcCall[] = [];
  const connectionAttempts: number[] = [];
  /** Produced transactions in ledger order: slot, then the order they were emitted. */
  const ledger: RecordedTransaction[] = [];
  const produced = new Set<string>();
  const nullCounts = new Map<string, number>();
  const extraMentions = new Map<string, Set<string>>();
  let txDelay: (signature: string) => number = () => 0;
  let tip = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let refuse = false;
  let nextSubscriptionId = 0;
  const sockets = new Map<WebSocket, { subs: Map<number, Subscription>; frozen: boolean }>();

  const mentions = (tx: RecordedTransaction, address: string) => tx.accountKeys.includes(address) || (extraMentions.get(tx.signature)?.has(address) ?? false);

  // ---- HTTP methods ----
  async function getTransaction(params: unknown[]): Promise<unknown> {
    const signature = params[0];
    if (typeof signature !== 'string') throw new RpcFailure(INVALID_PARAMS, 'Invalid params: signature is not a string');
    // The second parameter may be a bare encoding string (deprecated form) or a config object.
    const config: Obj = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
    checkCommitment(config, true);
    if (config.encoding !== undefined && (typeof config.encoding !== 'string' || !ENCODINGS.has(config.encoding))) {
      throw new RpcFailure(
        INVALID_PARAMS,
        `Invalid params: unknown variant \`${String(config.encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``,
      );
    }
    const max = config.maxSupportedTransactionVersion;
    if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > 255)) {
      throw new RpcFailure(INVALID_PARAMS, 'Invalid params: maxSupportedTransactionVersion is not a u8');
    }
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const delay = txDelay(signature);
      await new Promise((r) => setTimeout(r, delay));
    } finally {
      inFlight--;
    }
    const tx = bySignature.get(signature);
    if (!tx || !produced.has(signature)) return null;
    const nulls = nullCounts.get(signature) ?? 0;
    if (nulls > 0) {
      nullCounts.set(signature, nulls - 1);
      return null;
    }
    if (typeof tx.version === 'number' && (max === undefined || tx.version > (max as number))) {
      throw new RpcFailure(
        UNSUPPORTED_TRANSACTION_VERSION,
        `Transaction version (${tx.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${tx.version}`,
      );
    }
    return tx.result;
  }

  function getSignaturesForAddress(params: unknown[]): unknown {
    const address = checkAddress(params[0]);
    const config = configAt(params, 1);
    checkCommitment(config, true);
    const limit = config.limit ?? MAX_SIGNATURES_LIMIT;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_LIMIT) {
      throw new RpcFailure(INVALID_PARAMS, `Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
    }
    const position = (key: string, v: unknown): number | 'absent' | 'unknown' => {
      if (v === undefined || v === null) return 'absent';
      if (typeof v !== 'string') throw new RpcFailure(INVALID_PARAMS, `Invalid params: ${key} is not a signature string`);
      const i = ledger.findIndex((t) => t.signature === v);
      return i < 0 ? 'unknown' : i;
    };
    const before = position('before', config.before);
    const until = position('until', config.until);
    if (before === 'unknown') return [];
    const hi = typeof before === 'number' ? before - 1 : ledger.length - 1;
    const lo = typeof until === 'number' ? until + 1 : 0;
    const out: unknown[] = [];
    for (let i = hi; i >= lo && out.length < limit; i--) {
      const tx = ledger[i]!;
      if (!mentions(tx, address)) continue;
      out.push({ signature: tx.signature, slot: tx.slot, err: tx.err ?? null, memo: null, blockTime: tx.blockTime, confirmationStatus: 'finalized' });
    }
    return out;
  }

  function getSlot(params: unknown[]): unknown {
    checkCommitment(configAt(params, 0), false);
    return tip;
  }

  const httpMethods: Record<string, (params: unknown[]) => unknown> = { getTransaction, getSignaturesForAddress, getSlot };

  // ---- PubSub methods ----
  function subscribe(ws: WebSocket, method: string, params: unknown[]): unknown {
    const state = sockets.get(ws);
    if (!state) throw new RpcFailure(INVALID_REQUEST, 'connection closed');
    if (method === 'slotSubscribe') {
      const id = nextSubscriptionId++;
      state.subs.set(id, { id, kind: 'slot', mentions: null });
      return id;
    }
    if (method === 'logsSubscribe') {
      const filter = params[0];
      checkCommitment(configAt(params, 1), false);
      let address: string | null;
      if (filter === 'all' || filter === 'allWithVotes') address = null;
      else if (isObj(filter) && Array.isArray(filter.mentions)) {
        if (filter.mentions.length !== 1) throw new RpcFailure(INVALID_PARAMS, 'Invalid Request: Only 1 address supported');
        address = checkAddress(filter.mentions[0]);
      } else throw new RpcFailure(INVALID_PARAMS, 'Invalid params: unknown logs filter');
      const id = nextSubscriptionId++;
      state.subs.set(id, { id, kind: 'logs', mentions: address });
      return id;
    }
    // logsUnsubscribe / slotUnsubscribe
    const id = params[0];
    const kind = method === 'logsUnsubscribe' ? 'logs' : 'slot';
    const sub = typeof id === 'number' ? state.subs.get(id) : undefined;
    if (!sub || sub.kind !== kind) throw new RpcFailure(INVALID_PARAMS, 'Invalid subscription id.');
    state.subs.delete(sub.id);
    return true;
  }
  const wsMethods = new Set(['logsSubscribe', 'logsUnsubscribe', 'slotSubscribe', 'slotUnsubscribe']);

  async function dispatch(request: unknown, transport: 'http' | 'ws', ws?: WebSocket): Promise<Obj> {
    const id = isObj(request) && (typeof request.id === 'number' || typeof request.id === 'string') ? request.id : null;
    try {
      if (!isObj(request) || request.jsonrpc !== '2.0' || typeof request.method !== 'string') throw new RpcFailure(INVALID_REQUEST, 'Invalid request');
      const params = request.params === undefined ? [] : request.params;
      calls.push({ transport, method: request.method, params });
      if (!Array.isArray(params)) throw new RpcFailure(INVALID_PARAMS, 'Invalid params: expected an array');
      let result: unknown;
      if (ws && wsMethods.has(request.method)) result = subscribe(ws, request.method, params);
      else {
        const handler = httpMethods[request.method];
        if (!handler) throw new RpcFailure(METHOD_NOT_FOUND, 'Method not found');
        result = await handler(params);
      }
      return { jsonrpc: '2.0', result, id };
    } catch (err) {
      if (!(err instanceof RpcFailure)) throw err;
      return { jsonrpc: '2.0', error: { code: err.code, message: err.message }, id };
    }
  }

  async function handleText(text: string, transport: 'http' | 'ws', ws?: WebSocket): Promise<unknown> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { jsonrpc: '2.0', error: { code: PARSE_ERROR, message: 'Parse error' }, id: null };
    }
    if (Array.isArray(body)) return Promise.all(body.map((r) => dispatch(r, transport, ws)));
    return dispatch(body, transport, ws);
  }

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handleText(Buffer.concat(chunks).toString('utf8'), 'http').then(
        (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
        () => res.writeHead(500).end(),
      );
    });
  });

  const wsHttp: Server = createServer((_req, res) => res.writeHead(426).end());
  // autoPong off: pongs are sent by hand so that freezeConnections() can withhold them.
  const wss = new WebSocketServer({ noServer: true, autoPong: false });
  wsHttp.on('upgrade', (req, socket, head) => {
    connectionAttempts.push(Date.now());
    if (refuse) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const state = { subs: new Map<number, Subscription>(), frozen: false };
      sockets.set(ws, state);
      ws.on('ping', (data) => {
        if (!state.frozen) ws.pong(data);
      });
      ws.on('message', (data, isBinary) => {
        if (isBinary || state.frozen) return;
        void handleText(data.toString(), 'ws', ws).then((answer) => {
          if (!state.frozen && ws.readyState === ws.OPEN) ws.send(JSON.stringify(answer));
        });
      });
      ws.on('close', () => sockets.delete(ws));
      ws.on('error', () => sockets.delete(ws));
    });
  });

  function notify(build: (sub: Subscription) => Obj | null): void {
    for (const [ws, state] of sockets) {
      if (state.frozen || ws.readyState !== ws.OPEN) continue;
      for (const sub of state.subs.values()) {
        const payload = build(sub);
        if (payload) ws.send(JSON.stringify({ jsonrpc: '2.0', ...payload }));
      }
    }
  }

  function newSlot(slot: number): void {
    if (slot <= tip) return;
    const parent = tip === 0 ? slot - 1 : tip;
    tip = slot;
    notify((sub) =>
      sub.kind === 'slot' ? { method: 'slotNotification', params: { result: { parent, root: Math.max(0, slot - 32), slot }, subscription: sub.id } } : null,
    );
  }

  function emitOne(tx: RecordedTransaction): void {
    if (produced.has(tx.signature)) throw new Error(`transaction ${tx.signature} was already produced`);
    produced.add(tx.signature);
    let at = ledger.length;
    while (at > 0 && ledger[at - 1]!.slot > tx.slot) at--;
    ledger.splice(at, 0, tx);
    newSlot(tx.slot);
    notify((sub) =>
      sub.kind === 'logs' && (sub.mentions === null || mentions(tx, sub.mentions))
        ? {
            method: 'logsNotification',
            params: { result: { context: { slot: tx.slot }, value: { signature: tx.signature, err: tx.err ?? null, logs: tx.logs } }, subscription: sub.id },
          }
        : null,
    );
  }

  const listen = (server: Server) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const a = server.address();
        resolve(typeof a === 'object' && a ? a.port : 0);
      });
    });
  const httpPort = await listen(http);
  const wsPort = await listen(wsHttp);

  return {
    httpUrl: `http://127.0.0.1:${httpPort}`,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    transactions,
    calls,
    connectionAttempts,
    get tip() {
      return tip;
    },
    get maxGetTransactionInFlight() {
      return maxInFlight;
    },
    emit(...txs) {
      for (const tx of txs) emitOne(tx);
    },
    emitAll() {
      for (const tx of transactions) if (!produced.has(tx.signature)) emitOne(tx);
    },
    advanceSlots(count) {
      for (let i = 0; i < count; i++) newSlot(tip + 1);
    },
    dropConnections() {
      const n = sockets.size;
      for (const ws of [...sockets.keys()]) {
        sockets.delete(ws);
        ws.terminate();
      }
      return n;
    },
    freezeConnections() {
      for (const state of sockets.values()) state.frozen = true;
    },
    refuseConnections(value) {
      refuse = value;
    },
    returnNullFor(signature, times) {
      nullCounts.set(signature, times);
    },
    setGetTransactionDelay(delay) {
      txDelay = delay;
    },
    alsoMention(signature, address) {
      let set = extraMentions.get(signature);
      if (!set) extraMentions.set(signature, (set = new Set()));
      set.add(address);
    },
    sendRaw(text) {
      for (const [ws, state] of sockets) if (!state.frozen && ws.readyState === ws.OPEN) ws.send(text);
    },
    logSubscriptionCount() {
      let n = 0;
      for (const state of sockets.values()) for (const s of state.subs.values()) if (s.kind === 'logs') n++;
      return n;
    },
    async waitFor(predicate, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async close() {
      for (const ws of sockets.keys()) ws.terminate();
      sockets.clear();
      wss.close();
      http.closeAllConnections();
      wsHttp.closeAllConnections();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => wsHttp.close(r))]);
    },
  };
}

/** Handle on a {@link produceChain}. */
export interface ChainProducer {
  /** How many of the node's transactions were produced so far. */
  readonly produced: number;
  /** How many may be produced before the chain holds (at most all of them). */
  readonly limit: number;
  /** Moves the hold `count` transactions further: they are produced one per interval from now on. */
  release(count: number): void;
  /** Stops producing. */
  stop(): void;
}

/**
 * Produces `node.transactions` in slot order, one every `intervalMs`, whether anyone is subscribed or
 * not (a chain does not wait for its readers), but holds after the first `limit` of them until
 * {@link ChainProducer.release} lets more through (default: no hold).
 *
 * Why a hold: the recording is a short chain (seconds). A test that SIGKILLs ingest several times
 * while the node keeps producing must keep transactions back for after each kill; else the chain
 * runs out while the first restarted ingest still waits for its leader lease, its back-fill stores
 * everything at once, and the later kills find nothing left that a restarted ingest could publish.
 * Releasing a few at each kill makes the node produce them while ingest is down, so the restarted
 * one must back-fill them from its checkpoint.
 */
export function produceChain(node: SolanaRpcServer, options: { intervalMs: number; limit?: number }): ChainProducer {
  const all = node.transactions;
  let limit = Math.min(all.length, Math.max(0, options.limit ?? all.length));
  let produced = 0;
  const timer = setInterval(() => {
    if (produced < limit) node.emit(all[produced++]!);
    else if (produced >= all.length) clearInterval(timer);
  }, options.intervalMs);
  return {
    get produced() {
      return produced;
    },
    get limit() {
      return limit;
    },
    release(count) {
      limit = Math.min(all.length, limit + Math.max(0, count));
    },
    stop() {
      clearInterval(timer);
    },
  };
}
