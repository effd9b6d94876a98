/**
 * ingest end to end on a live source: the local Solana JSON-RPC server (serving the
 * recorded real transactions over the real protocol) → createLiveSource(INGEST_SOURCE=rpc)
 * → createApp → TRADES on a private JetStream server; then a restart resumes from the
 * checkpoint in JetStream KV without publishing anything twice.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { TRADES_STREAM } from '@tradewind/contracts';
import { freePort, waitForPort } from '@tradewind/dev';
import { createApp } from '../src/app.js';
import { loadIngestConfig } from '../src/config.js';
import { decodeTransaction, messageId } from '../src/decode/index.js';
import { natsCheckpointStore } from '../src/live/checkpoint.js';
import { createLiveSource } from '../src/live/index.js';
import { startSolanaRpcServer, type SolanaRpcServer } from './support/solana-rpc-server.js';

let nats: ChildProcess;
let storeDir: string;
let nc: NatsConnection;
let jsm: JetStreamManager;
let rpc: SolanaRpcServer;

beforeAll(async () => {
  const port = await freePort();
  storeDir = mkdtempSync(join(tmpdir(), 'ingest-live-'));
  nats = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], { stdio: 'ignore' });
  await waitForPort(port, '127.0.0.1', 10_000);
  nc = await connect({ servers: `nats://127.0.0.1:${port}` });
  jsm = await jetstreamManager(nc);
  rpc = await startSolanaRpcServer();
}, 20_000);

afterAll(async () => {
  await rpc?.close();
  await nc?.close();
  // Wait for the server to exit before removing its store: it may still be writing (ENOTEMPTY otherwise).
  if (nats && nats.exitCode === null) {
    const exited = new Promise((resolve) => nats.once('exit', resolve));
    nats.kill();
    await exited;
  }
  rmSync(storeDir, { recursive: true, force: true });
});

const logger = createLogger({ service: 'ingest', level: 'silent' });

function runIngest(checkpoint: Awaited<ReturnType<Awaited<ReturnType<typeof natsCheckpointStore>>['load']>>, env: Record<string, string> = {}) {
  const config = loadIngestConfig({
    INGEST_SOURCE: 'rpc',
    SOLANA_RPC_URL: rpc.httpUrl,
    SOLANA_WS_URL: rpc.wsUrl,
    LIVE_RECONNECT_INITIAL_MS: '20',
    LIVE_RECONNECT_MAX_MS: '200',
    LIVE_CHECKPOINT_INTERVAL_MS: '60000',
    NATS_URL: 'nats://127.0.0.1:1',
    ...env,
  });
  const registry = new Registry();
  const source = createLiveSource(config, { logger, registry, checkpoint });
  return { config, registry, source };
}

/** Every message of TRADES in stream order, slot status messages (`slots`) included. */
async function storedAll(): Promise<{ id: string; subject: string; body: Record<string, unknown> }[]> {
  const info = await jsm.streams.info(TRADES_STREAM);
  const out: { id: string; subject: string; body: Record<string, unknown> }[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(TRADES_STREAM, { seq });
    if (m) out.push({ id: m.header?.get('Nats-Msg-Id') ?? '', subject: m.subject, body: m.json<Record<string, unknown>>() });
  }
  return out;
}

/** The trades of TRADES in stream order (without the slot status messages). */
async function stored(): Promise<{ id: string; body: Record<string, unknown> }[]> {
  return (await storedAll()).filter((m) => m.subject !== 'slots');
}

async function storedIds(): Promise<string[]> {
  return (await stored()).map((m) => m.id);
}

describe('ingest with the RPC WebSocket source', () => {
  it('when the node produces the recording, then every trade lands in TRADES once with Nats-Msg-Id signature:path and the RPC_COMMITMENT of the run that published it, and a restart resumes after the checkpoint', async () => {
    const ok = rpc.transactions.filter((t) => t.err === null);
    const expected = ok.flatMap((t) => decodeTransaction(t.syntheticSlot ? t.result : t.raw)).map(messageId);
    expect(expected.length).toBeGreaterThanOrEqual(30);
    const checkpoints = await natsCheckpointStore(nc, 'rpc_test');

    // First run: the first half of the chain.
    const half = Math.floor(ok.length / 2);
    // A 2 s checkpoint interval: the burst below is acknowledged well within one.
    const first = runIngest(null, { LIVE_CHECKPOINT_INTERVAL_MS: '2000' });
    const app1 = createApp(first.config, { logger, registry: first.registry, nc, source: first.source, checkpoints });
    await app1.start();
    await rpc.waitFor(() => rpc.logSubscriptionCount() >= 4);
    rpc.emit(...rpc.transactions.slice(0, rpc.transactions.indexOf(ok[half - 1]!) + 1));
    const firstIds = ok
      .slice(0, half)
      .flatMap((t) => decodeTransaction(t.syntheticSlot ? t.result : t.raw))
      .map(messageId);
    await waitUntil(async () => (await storedIds()).length >= firstIds.length);
    // Then quiet: within an interval the checkpoint reaches the burst's last transaction without a stop (a SIGKILL
    // now re-publishes nothing). Saving only when a trade is acknowledged left it at the burst's first.
    await waitUntil(async () => (await checkpoints.load())?.signature === ok[half - 1]!.signature, 6_000);
    await app1.stop();
    const saved = await checkpoints.load();
    expect(saved?.signature).toBe(ok[half - 1]!.signature);

    // Produced while ingest is down: the restart must pick these up from the checkpoint.
    rpc.emitAll();
    const second = runIngest(saved, { RPC_COMMITMENT: 'finalized' });
    const app2 = createApp(second.config, { logger, registry: second.registry, nc, source: second.source, checkpoints });
    await app2.start();
    await waitUntil(async () => (await storedIds()).length >= expected.length);
    await new Promise((r) => setTimeout(r, 200)); // room for a duplicate to show up
    await app2.stop();

    const all = await stored();
    expect(all.map((m) => m.id)).toEqual(expected);
    // Slot status (issue 32): each slot the trades came from is finalized once the node's root passed it, after
    // its trades, once (the restart's repeats dropped by their Nats-Msg-Id).
    const everything = await storedAll();
    const statuses = everything.filter((m) => m.subject === 'slots');
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses.map((m) => m.id)).size).toBe(statuses.length);
    for (const st of statuses) {
      expect(st.body).toMatchObject({ type: 'slot', status: 'finalized', source: 'rpc', parent: null });
      const at = everything.indexOf(st);
      expect(everything.slice(at + 1).some((m) => m.subject !== 'slots' && m.body.slot === st.body.slot)).toBe(false);
    }
    // First run at the default RPC_COMMITMENT (confirmed), the restart at finalized: each message says which.
    expect(first.config.RPC_COMMITMENT).toBe('confirmed');
    expect(all.map((m) => m.body.commitment)).toEqual(expected.map((_, i) => (i < firstIds.length ? 'confirmed' : 'finalized')));
    const dupMetric = await second.registry.getSingleMetricAsString('tradewind_ingest_trades_duplicate_total');
    expect(dupMetric).not.toMatch(/ [1-9]\d*$/m); // nothing re-published: the restart began after the checkpoint
  }, 30_000);
});

async function waitUntil(predicate: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
