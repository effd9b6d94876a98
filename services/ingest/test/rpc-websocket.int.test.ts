import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import WebSocket from 'ws';
import { createLogger } from '@tradewind/lib';
import { decodeNormalized, decodeTransaction, type NormalizedTransaction } from '../src/decode/index.js';
import {
  createRpcWebSocketSource,
  deriveWebSocketUrl,
  mergeSignatureLists,
  rpcWebSocketMetrics,
  type RpcWebSocketSourceOptions,
} from '../src/live/rpc-websocket.js';
import { sourceMetrics, TRADE_PROGRAM_IDS, type TransactionSource } from '../src/live/source.js';
import { startSolanaRpcServer, type RecordedTransaction, type SolanaRpcServer } from './support/solana-rpc-server.js';

// Every test runs the source against its own local Solana RPC node (HTTP + PubSub on two
// ports) serving the real recorded transactions; nothing leaves 127.0.0.1.

type Line = Record<string, unknown>;

interface Harness {
  source: TransactionSource;
  registry: Registry;
  logs: Line[];
}

function makeSource(server: SolanaRpcServer, overrides: Partial<RpcWebSocketSourceOptions> = {}): Harness {
  const registry = new Registry();
  const logs: Line[] = [];
  const logger = createLogger({ service: 'ingest', level: 'debug', destination: { write: (s: string) => void logs.push(JSON.parse(s) as Line) } });
  const source = createRpcWebSocketSource({
    httpUrl: server.httpUrl,
    wsUrl: server.wsUrl,
    commitment: 'confirmed',
    fromSlot: null,
    backoff: { initialMs: 50, maxMs: 400 },
    fetchConcurrency: 8,
    metrics: sourceMetrics(registry),
    rpcMetrics: rpcWebSocketMetrics(registry),
    logger,
    getTransactionRetryDelayMs: 20,
    ...overrides,
  });
  return { source, registry, logs };
}

interface Consumer {
  items: NormalizedTransaction[];
  stop(): Promise<void>;
}

const consumers: Consumer[] = [];

/** Iterates the source in the background like ingest does (one transaction at a time). */
function consume(source: TransactionSource): Consumer {
  const abort = new AbortController();
  const items: NormalizedTransaction[] = [];
  const done = (async () => {
    for await (const tx of source.transactions(abort.signal)) items.push(tx);
  })();
  const consumer = {
    items,
    async stop() {
      abort.abort();
      await done;
    },
  };
  consumers.push(consumer);
  return consumer;
}

async function metric(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) return 0;
  const { values } = await m.get();
  return values.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
}

const sigs = (txs: readonly { signature: string }[]) => txs.map((t) => t.signature);
const programsOf = (tx: RecordedTransaction) => TRADE_PROGRAM_IDS.filter((p) => tx.accountKeys.includes(p));
const PUMP_FUN = TRADE_PROGRAM_IDS[0]!;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: SolanaRpcServer;
let ok: RecordedTransaction[];

beforeEach(async () => {
  server = await startSolanaRpcServer();
  ok = server.transactions.filter((t) => t.err === null);
});

afterEach(async () => {
  for (const c of consumers.splice(0)) await c.stop();
  await server.close();
});

describe('RPC WebSocket source (logsSubscribe + getTransaction)', () => {
  it('when the whole recording is produced, then each successful transaction arrives once, in slot order, decoding like its recorded file', async () => {
    expect(ok.length).toBeGreaterThanOrEqual(20);
    // A transaction touching two subscribed programs (a pump.fun migrate also touches
    // PumpSwap); crafted through a second mention if the recording lacks one.
    let multi = ok.find((t) => programsOf(t).length >= 2);
    if (!multi) {
      multi = ok.find((t) => programsOf(t).length === 1)!;
      server.alsoMention(multi.signature, TRADE_PROGRAM_IDS.find((p) => !multi!.accountKeys.includes(p))!);
    }
    // Earlier transactions answer slower, so fetch completion order is the reverse of slot order.
    const rank = new Map(server.transactions.map((t, i) => [t.signature, i]));
    server.setGetTransactionDelay((s) => (server.transactions.length - (rank.get(s) ?? 0)) * 3);

    const h = makeSource(server);
    const c = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === TRADE_PROGRAM_IDS.length);
    server.emitAll();
    await server.waitFor(() => c.items.length >= ok.length);
    await pause(150); // room for a duplicate to show up

    expect(sigs(c.items)).toEqual(sigs(ok));
    expect(c.items.map((t) => t.slot)).toEqual(ok.map((t) => t.slot));
    let messages = 0;
    for (const [i, tx] of c.items.entries()) {
      const rec = ok[i]!;
      // Synthetic-slot captures are served with that slot; everything else is the file as stored.
      const expected = decodeTransaction(rec.syntheticSlot ? rec.result : rec.raw);
      expect(tx.commitment, rec.file).toBe('confirmed');
      expect(decodeNormalized(tx), rec.file).toEqual(expected);
      messages += expected.length;
    }
    expect(messages).toBeGreaterThan(0);
    expect(h.source.commitment).toBe('confirmed');

    const mentions = (txs: RecordedTransaction[]) => txs.reduce((n, t) => n + programsOf(t).length + (t === multi && programsOf(t).length === 1 ? 1 : 0), 0);
    expect(await metric(h.registry, 'tradewind_ingest_source_duplicates_skipped_total')).toBe(mentions(ok) - ok.length);
    expect(await metric(h.registry, 'tradewind_ingest_rpc_failed_skipped_total')).toBe(mentions(server.transactions.filter((t) => t.err !== null)));
    expect(await metric(h.registry, 'tradewind_ingest_source_transactions_total')).toBe(ok.length);

    // Protocol: four single-address logs subscriptions; base64, confirmed, v1 accepted; bounded concurrency.
    const subscribes = server.calls.filter((x) => x.method === 'logsSubscribe');
    expect(subscribes.map((x) => (x.params as [{ mentions: string[] }])[0].mentions)).toEqual(TRADE_PROGRAM_IDS.map((p) => [p]));
    const gets = server.calls.filter((x) => x.method === 'getTransaction');
    expect(gets).toHaveLength(ok.length);
    expect(gets[0]!.params).toEqual([ok[0]!.signature, { commitment: 'confirmed', encoding: 'base64', maxSupportedTransactionVersion: 1 }]);
    expect(server.maxGetTransactionInFlight).toBeGreaterThan(1);
    expect(server.maxGetTransactionInFlight).toBeLessThanOrEqual(8);
  });

  it('when the server drops the WebSocket mid-stream and more blocks are produced during the outage, then the gap is filled from getSignaturesForAddress and every transaction arrives once, in order', async () => {
    const [a, b, rest] = [ok.slice(0, 8), ok.slice(8, 16), ok.slice(16)];
    const h = makeSource(server, { backoff: { initialMs: 100, maxMs: 400 } });
    const c = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...a);
    await server.waitFor(() => c.items.length === a.length);

    expect(server.dropConnections()).toBe(1);
    server.emit(...b); // nobody is subscribed: only getSignaturesForAddress can find these
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...rest); // live again (possibly while the gap is still being listed)
    await server.waitFor(() => c.items.length >= ok.length);
    await pause(150);

    expect(sigs(c.items)).toEqual(sigs(ok));
    const listings = server.calls.filter((x) => x.method === 'getSignaturesForAddress');
    expect(listings.map((x) => (x.params as [string])[0]).sort()).toEqual([...TRADE_PROGRAM_IDS].sort());
    for (const x of listings) expect((x.params as [string, { until?: string }])[1].until).toBe(a.at(-1)!.signature);
    expect(await metric(h.registry, 'tradewind_ingest_rpc_gap_transactions_total')).toBeGreaterThanOrEqual(b.length);
    expect(await metric(h.registry, 'tradewind_ingest_source_reconnects_total')).toBe(1);
    expect(server.connectionAttempts).toHaveLength(2);
  });

  it('when the connection goes silent (no pongs, no messages), then the idle timeout reconnects and what was produced meanwhile still arrives', async () => {
    const h = makeSource(server, { pingIntervalMs: 40, idleTimeoutMs: 200 });
    const c = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...ok.slice(0, 3));
    await server.waitFor(() => c.items.length === 3);
    server.freezeConnections();
    server.emit(...ok.slice(3, 6));
    await server.waitFor(() => c.items.length === 6, 3_000);
    expect(sigs(c.items)).toEqual(sigs(ok.slice(0, 6)));
    expect(server.connectionAttempts).toHaveLength(2);
    expect(h.logs.some((l) => l.msg === 'RPC WebSocket connection lost' && String(l.reason).startsWith('idle'))).toBe(true);
  });

  it('when the PubSub endpoint refuses connections, then attempts are spaced by the initial delay doubling to the cap, and streaming starts once it accepts', async () => {
    server.refuseConnections(true);
    const h = makeSource(server, { backoff: { initialMs: 40, maxMs: 160 } });
    const c = consume(h.source);
    await server.waitFor(() => server.connectionAttempts.length >= 6, 3_000);
    const t = server.connectionAttempts;
    const gaps = t.slice(1, 6).map((x, i) => x - t[i]!);
    const expected = [40, 80, 160, 160, 160];
    gaps.forEach((g, i) => {
      expect(g, `gap ${i}: ${gaps.join(',')}`).toBeGreaterThanOrEqual(expected[i]! - 2);
      expect(g, `gap ${i}: ${gaps.join(',')}`).toBeLessThan(expected[i]! + 100);
    });
    expect(await metric(h.registry, 'tradewind_ingest_source_connected')).toBe(0);

    server.refuseConnections(false);
    await server.waitFor(() => server.logSubscriptionCount() === 4, 2_000);
    server.emit(ok[0]!);
    await server.waitFor(() => c.items.length === 1);
    expect(await metric(h.registry, 'tradewind_ingest_source_reconnects_total')).toBe(server.connectionAttempts.length - 1);
    expect(await metric(h.registry, 'tradewind_ingest_source_connected')).toBe(1);
  });

  it('when getTransaction answers null twice, then the transaction is still delivered; when it stays null past the retries, then it is counted and logged as missed and the stream goes on', async () => {
    const [late, lost, next] = [ok[0]!, ok[1]!, ok[2]!];
    server.returnNullFor(late.signature, 2);
    server.returnNullFor(lost.signature, 100);
    const h = makeSource(server, { getTransactionRetries: 3, getTransactionRetryDelayMs: 20 });
    const c = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(late, lost, next);
    await server.waitFor(() => c.items.length === 2);
    await pause(50);

    expect(sigs(c.items)).toEqual([late.signature, next.signature]);
    const getsOf = (s: string) => server.calls.filter((x) => x.method === 'getTransaction' && (x.params as [string])[0] === s).length;
    expect(getsOf(late.signature)).toBe(3);
    expect(getsOf(lost.signature)).toBe(4);
    expect(await metric(h.registry, 'tradewind_ingest_rpc_transactions_missed_total', { reason: 'not_found' })).toBe(1);
    expect(h.logs.some((l) => l.level === 50 && l.signature === lost.signature && l.reason === 'not_found')).toBe(true);
  });

  it('when a v1 transaction is fetched with maxSupportedTransactionVersion 0, then the node answers -32015 and it is counted and logged as missed, not dropped silently', async () => {
    const v1 = ok.find((t) => t.version === 1);
    expect(v1, 'the recording holds a successful v1 transaction').toBeDefined();
    const after = ok.find((t) => t.slot > v1!.slot)!;
    const h = makeSource(server, { maxSupportedTransactionVersion: 0 });
    const c = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(v1!, after);
    await server.waitFor(() => c.items.length === 1);
    expect(sigs(c.items)).toEqual([after.signature]);
    expect(await metric(h.registry, 'tradewind_ingest_rpc_transactions_missed_total', { reason: 'unsupported_version' })).toBe(1);
    expect(h.logs.some((l) => l.level === 50 && l.signature === v1!.signature)).toBe(true);
  });

  it('when transactions are processed and the tip moves on, then slot lag, seconds behind and the tip are exported; bad server messages are counted and ignored', async () => {
    const now = 1_800_000_000_000;
    const three = ok.filter((t) => t.blockTime !== null).slice(0, 3);
    const h = makeSource(server, { now: () => now });
    const c = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...three);
    await server.waitFor(() => c.items.length === 3);
    server.advanceSlots(5);
    const last = three.at(-1)!;
    await server.waitFor(() => server.tip === last.slot + 5);
    await expect.poll(() => metric(h.registry, 'tradewind_ingest_source_tip_slot')).toBe(last.slot + 5);
    expect(await metric(h.registry, 'tradewind_ingest_source_slot_lag', { source: 'rpc' })).toBe(5);
    expect(await metric(h.registry, 'tradewind_ingest_source_seconds_behind', { source: 'rpc' })).toBeCloseTo((now - last.blockTime! * 1000) / 1000, 6);

    server.sendRaw('{not json');
    server.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'accountNotification', params: { result: {}, subscription: 1 } }));
    server.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'logsNotification', params: { result: { context: {} }, subscription: 0 } }));
    await expect.poll(() => metric(h.registry, 'tradewind_ingest_rpc_bad_messages_total')).toBe(3);
    const more = ok.find((t) => t.slot > server.tip)!;
    server.emit(more);
    await server.waitFor(() => c.items.length === 4);
    expect(server.connectionAttempts).toHaveLength(1);
  });

  it('when iteration stops and starts again, then it resumes after the last transaction taken, without repeats', async () => {
    const h = makeSource(server);
    const first = consume(h.source);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...ok.slice(0, 4));
    await server.waitFor(() => first.items.length === 4);
    await first.stop();
    await server.waitFor(() => server.logSubscriptionCount() === 0);
    server.emit(...ok.slice(4, 7)); // produced while nobody listens
    const second = consume(h.source);
    await server.waitFor(() => second.items.length === 3);
    await pause(50);
    expect(sigs(second.items)).toEqual(sigs(ok.slice(4, 7)));
  });

  it('when started from a slot, then what was produced since that slot is back-filled before live transactions', async () => {
    server.emit(...ok.slice(0, 5));
    const h = makeSource(server, { fromSlot: ok[2]!.slot });
    const c = consume(h.source);
    await server.waitFor(() => c.items.length === 3);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...ok.slice(5, 8));
    await server.waitFor(() => c.items.length === 6);
    expect(sigs(c.items)).toEqual(sigs(ok.slice(2, 8)));
  });
});

describe('RPC WebSocket source slot status (updates)', () => {
  it('when the node root passes the slots transactions came from, then each such slot is reported finalized once, after all of its transactions, in slot order', async () => {
    const h = makeSource(server);
    const abort = new AbortController();
    const items: Array<NormalizedTransaction | { kind: 'slot'; slot: number; status: string; parent: number | null }> = [];
    const done = (async () => {
      for await (const item of h.source.updates!(abort.signal)) items.push(item as never);
    })();
    consumers.push({
      items: [],
      stop: async () => {
        abort.abort();
        await done;
      },
    });
    await server.waitFor(() => server.logSubscriptionCount() === TRADE_PROGRAM_IDS.length);
    // Slow fetches for the first half: a slot must not be reported before its transactions are out.
    const firstHalf = new Set(ok.slice(0, ok.length / 2).map((t) => t.signature));
    server.setGetTransactionDelay((sig) => (firstHalf.has(sig) ? 60 : 0));
    server.emitAll();
    // The stand-in's root trails each new slot by 32: after the last transaction, 40 empty slots root everything.
    await server.waitFor(() => items.filter((i) => !('kind' in i)).length >= ok.length);
    server.advanceSlots(40);
    const slotsWithTx = [...new Set(ok.map((t) => t.slot))];
    await server.waitFor(() => items.filter((i) => 'kind' in i).length >= slotsWithTx.length);
    await pause(100);
    const statuses = items.filter((i): i is { kind: 'slot'; slot: number; status: string; parent: number | null } => 'kind' in i);
    expect(statuses.map((u) => u.slot)).toEqual([...slotsWithTx].sort((a, b) => a - b));
    expect(statuses.every((u) => u.status === 'finalized' && u.parent === null)).toBe(true);
    for (const u of statuses) {
      const at = items.indexOf(u);
      // Every transaction of that slot came before its status.
      expect(
        items.slice(at + 1).some((i) => !('kind' in i) && i.slot === u.slot),
        `slot ${u.slot}`,
      ).toBe(false);
    }
  });
});

describe('RPC WebSocket source commitment', () => {
  it('when run at finalized, then every subscription and request asks finalized, and every transaction (back-filled or live) and its trades say finalized', async () => {
    server.emit(...ok.slice(0, 5));
    const h = makeSource(server, { commitment: 'finalized', fromSlot: ok[2]!.slot });
    expect(h.source.commitment).toBe('finalized');
    const c = consume(h.source);
    await server.waitFor(() => c.items.length === 3); // back-filled: getSignaturesForAddress + getTransaction
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(...ok.slice(5, 8)); // live: logsNotification + getTransaction
    await server.waitFor(() => c.items.length === 6);
    expect(sigs(c.items)).toEqual(sigs(ok.slice(2, 8)));

    const asked = (method: string, at: number) =>
      server.calls.filter((x) => x.method === method).map((x) => (x.params as Record<string, unknown>[])[at]!.commitment);
    expect(asked('logsSubscribe', 1)).toEqual(TRADE_PROGRAM_IDS.map(() => 'finalized'));
    expect(new Set(asked('getSignaturesForAddress', 1))).toEqual(new Set(['finalized']));
    expect(asked('getTransaction', 1)).toEqual(c.items.map(() => 'finalized'));
    let trades = 0;
    for (const [i, tx] of c.items.entries()) {
      const rec = ok[2 + i]!;
      expect(tx.commitment, rec.file).toBe('finalized');
      // The same file decoded without a source is a plain getTransaction result: confirmed.
      const plain = decodeTransaction(rec.syntheticSlot ? rec.result : rec.raw);
      expect(plain.every((m) => m.commitment === 'confirmed')).toBe(true);
      expect(decodeNormalized(tx), rec.file).toEqual(plain.map((m) => ({ ...m, commitment: 'finalized' })));
      trades += plain.length;
    }
    expect(trades).toBeGreaterThan(0);
  });

  it('when asked for processed or an unknown level, then creating the source fails with invalid_argument', () => {
    for (const commitment of ['processed', 'recent']) {
      let thrown: unknown;
      try {
        makeSource(server, { commitment: commitment as 'confirmed' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toMatchObject({ code: 'invalid_argument', message: `commitment must be confirmed or finalized, got "${commitment}"` });
    }
  });
});

describe('RPC WebSocket source resuming from a checkpoint', () => {
  it('when started from a checkpoint (slot and signature), then delivery starts right after that signature', async () => {
    server.emit(...ok.slice(0, 5));
    const h = makeSource(server, { fromSlot: ok[2]!.slot, fromSignature: ok[2]!.signature });
    const c = consume(h.source);
    await server.waitFor(() => c.items.length === 2);
    await server.waitFor(() => server.logSubscriptionCount() === 4);
    server.emit(ok[5]!);
    await server.waitFor(() => c.items.length === 3);
    expect(sigs(c.items)).toEqual(sigs(ok.slice(3, 6)));
    const listing = server.calls.find((x) => x.method === 'getSignaturesForAddress')!;
    expect((listing.params as [string, { until?: string }])[1].until).toBe(ok[2]!.signature);
  });
});

describe('local Solana RPC node (test support)', () => {
  it('when asked outside the protocol, then it answers the JSON-RPC error codes a node does', async () => {
    const post = async (body: unknown) =>
      (await fetch(server.httpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
        Record<string, any>
      >;
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'getBlockX', params: [] })).error.code).toBe(-32601);
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'getSignaturesForAddress', params: [PUMP_FUN, { limit: 1001 }] })).error.code).toBe(-32602);
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'getTransaction', params: [ok[0]!.signature, { commitment: 'processed' }] })).error.code).toBe(-32602);
    expect(
      (
        await post({
          jsonrpc: '2.0',
          id: 4,
          method: 'getTransaction',
          params: [ok[0]!.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 1 }],
        })
      ).result,
    ).toBeNull();

    // getSignaturesForAddress: newest first; before/until exclusive.
    const pump = ok.filter((t) => t.accountKeys.includes(PUMP_FUN)).slice(0, 4);
    server.emit(...ok.filter((t) => t.slot <= pump.at(-1)!.slot));
    const list = async (config: object) => sigs((await post({ jsonrpc: '2.0', id: 5, method: 'getSignaturesForAddress', params: [PUMP_FUN, config] })).result);
    expect(await list({ until: pump[0]!.signature })).toEqual(sigs(pump.slice(1).reverse()));
    expect(await list({ before: pump[3]!.signature, limit: 2 })).toEqual([pump[2]!.signature, pump[1]!.signature]);

    const ws = new WebSocket(server.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const answer = new Promise<Record<string, any>>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'logsSubscribe', params: [{ mentions: [PUMP_FUN, TRADE_PROGRAM_IDS[1]] }] }));
    expect((await answer).error.code).toBe(-32602);
    ws.terminate();
  });
});

describe('helpers', () => {
  it('when the HTTP URL names a port, then the WebSocket URL is the next port; otherwise the same host with ws/wss', () => {
    expect(deriveWebSocketUrl('http://127.0.0.1:8899')).toBe('ws://127.0.0.1:8900/');
    expect(deriveWebSocketUrl('https://rpc.example.com/?api-key=k')).toBe('wss://rpc.example.com/?api-key=k');
  });

  it('when listings of two programs share a transaction, then the merge is oldest first, each once, in every listing order', () => {
    const e = (signature: string, slot: number) => ({ signature, slot, err: null });
    // Newest first, as the RPC lists; slot 10 holds x < y < z in block order.
    const pump = [e('z', 10), e('x', 10), e('p', 9)];
    const swap = [e('z', 10), e('y', 10), e('x', 10), e('q', 11)].sort((a, b) => b.slot - a.slot);
    expect(sigs(mergeSignatureLists([pump, swap]))).toEqual(['p', 'x', 'y', 'z', 'q']);
  });
});
