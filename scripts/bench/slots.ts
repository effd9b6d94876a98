/**
 * `npm run bench -- slots`: how late slot status reaches a WebSocket client (issue 32), beside the trades it
 * settles, through the whole path: the mainnet-shaped Yellowstone stand-in (@tradewind/dev, real gRPC, 400 ms
 * slots, processed → confirmed one slot later → finalized 32 slots later, an abandoned fork every
 * `forkEverySlots` slots) → ingest (its real app and Yellowstone source, in this process) → TRADES on an
 * operator-mode nats-server 2.10+ (the cluster tests' binary) → ws-fanout (in this process) → a Pro
 * `@tradewind/client` subscribed to all four subjects with `slots: true`.
 *
 * Measured, per slot the client got a trade from:
 * - **status latency**: the client's receipt of the slot's `confirmed` (or `dead`) status minus the stand-in's
 *   send of that status to ingest (its `onSlotStatus` hook: the same clock, one process);
 * - **baseline, trade latency**: the client's receipt of each trade minus the stand-in's send of its
 *   transaction (`onSend`), over the same path in the same run; the ratio status/trade says what the status
 *   path adds beyond what any message pays;
 * - **what a bot waits**: the client's receipt of `confirmed` minus its receipt of the slot's first trade (the
 *   chain's own confirmation time, ~1 slot, plus the path);
 * - **lost**: slots with a trade received whose `confirmed`/`dead` never arrived (after a 15 s drain: an abandoned
 *   fork is known dead once a later slot is finalized); must be 0.
 * Everything runs in one process on one event loop (the clocks agree; absolute times include the contention,
 * the ratio to the baseline is the figure to read).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createLogger, ensureTradesStream } from '@tradewind/lib';
import { freePort, startLocalNats, startMainnetGeyser } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR, createApp as createIngestApp, createYellowstoneSource, loadIngestConfig, sourceMetrics } from '@tradewind/ingest';
import { encodeCustomerAccount, encodeCustomerUser, newCustomerAccountKey, pushAccountJwt } from '@tradewind/credential-issuer';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureClusterNatsServer } from '../lib/cluster-nats-server.js';
import { startTestApp } from '../../services/ws-fanout/test/support.js';

/** Options of {@link slotsSuite}. */
export interface SlotsBenchOptions {
  /** Measured seconds (after a 3 s warm-up). */
  readonly seconds: number;
  /** Transactions per second of the stand-in's chain (default 300, its steady mainnet-shaped rate). */
  readonly txPerSecond?: number;
  /** An abandoned fork every this many slots (default 20). */
  readonly forkEverySlots?: number;
}

const ROOT = join(import.meta.dirname, '../..');
/** After the measured span: finalization (32 slots × 400 ms) plus margin, ms. */
const DRAIN_MS = 15_000;

/** What the bench uses of `@tradewind/client` (its types live in its dist/, which a fresh clone builds on first use). */
interface BenchClient {
  subscribe(subject: string, options: { slots: boolean }): unknown;
  on(type: 'slot', listener: (event: { slot: number; status: string }) => void): () => void;
  trades(): AsyncIterable<{ slot: number | null; signature: string; seq: number }>;
  connect(): Promise<unknown>;
  close(): void;
  readonly stats: { duplicatesDropped: number };
}

/** The part of `@tradewind/client`'s module the bench uses. */
interface ClientModule {
  TradewindClient: new (options: { url: string; jwt: string; seed: string }) => BenchClient;
  TRADE_SUBJECTS: readonly string[];
}

/** `@tradewind/client` as its users get it (its package exports name dist/): built first when a fresh clone has no dist yet. */
async function loadClient(): Promise<ClientModule> {
  if (!existsSync(join(ROOT, 'packages/client/dist/index.js'))) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'packages/client/tsconfig.build.json')], {
      stdio: 'inherit',
    });
  }
  // A name in a variable: the scripts project type-checks without the client's dist/ (built by tsc --build later).
  const name = '@tradewind/client';
  return (await import(name)) as ClientModule;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const r2 = (n: number) => Math.round(n * 100) / 100;

/** Runs the suite (module comment); prints a table and returns the figures for the JSON line. */
export async function slotsSuite(options: SlotsBenchOptions): Promise<Record<string, number | string>> {
  const seconds = options.seconds;
  const txPerSecond = options.txPerSecond ?? 300;
  const forkEverySlots = options.forkEverySlots ?? 20;
  const { TradewindClient, TRADE_SUBJECTS } = await loadClient();
  const natsBin = await ensureClusterNatsServer((line) => console.log(`slots: ${line}`));
  const stateDir = await mkdtemp(join(tmpdir(), 'tw-bench-slots-'));
  const logger = createLogger({ service: 'bench-slots', level: 'silent' });
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    const nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort(), bin: natsBin });
    cleanup.push(() => nats.stop());
    const nc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'bench-slots' });
    cleanup.push(() => nc.close());
    const sysNc = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'bench-slots-sys' });
    cleanup.push(() => sysNc.close());
    await ensureTradesStream(await jetstreamManager(nc));
    const { createClient } = await import('redis');
    const redis: ReturnType<typeof createClient> = createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await redis.connect();
    cleanup.push(() => redis.quit());
    const fanout = await startTestApp({ stateDir, nats, nc, sysNc, redis, stop: async () => undefined });
    cleanup.push(() => fanout.app.stop());

    // Stand-in sends, by signature (transactions) and by slot (confirmed / dead statuses), to ingest's stream.
    const txSent = new Map<string, number>();
    const statusSent = new Map<number, number>();
    const geyser = await startMainnetGeyser({
      recordingDir: BUNDLED_RECORDING_DIR,
      profile: { steadyTxPerSecond: txPerSecond, burstTxPerSecond: txPerSecond, steadyMs: 60_000, burstMs: 60_000 },
      forks: { everySlots: forkEverySlots, kind: 'abandoned' },
      onSend: (s) => txSent.set(s.signature, s.sentMs),
      onSlotStatus: (s) => {
        if (s.status === 'confirmed' || s.status === 'dead') statusSent.set(s.slot, s.sentMs);
      },
    });
    cleanup.push(() => geyser.stop());

    const registry = new Registry();
    const config = loadIngestConfig({ INGEST_SOURCE: 'yellowstone', YELLOWSTONE_ENDPOINT: geyser.endpoint, NATS_URL: nats.url });
    const source = createYellowstoneSource({ endpoint: geyser.endpoint, fromSlot: null, metrics: sourceMetrics(registry), registry, logger });
    const ingest = createIngestApp(config, { logger, registry, nc, source });
    await ingest.start();
    cleanup.push(() => ingest.stop());

    const spec = { accountPublicKey: newCustomerAccountKey(), name: 'bench-slots', plan: 'pro' as const };
    await pushAccountJwt(sysNc, await encodeCustomerAccount(nats.identities, spec));
    const user = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 3_600 });
    const client = new TradewindClient({ url: fanout.url, jwt: user.userJwt, seed: user.userSeed });
    cleanup.push(async () => client.close());
    let measuring = false;
    const tradeLatency: number[] = [];
    const firstTradeAt = new Map<number, number>();
    const statusAt = new Map<number, { at: number; status: string }>();
    for (const subject of TRADE_SUBJECTS) client.subscribe(subject, { slots: true });
    client.on('slot', (e) => {
      if (e.status !== 'confirmed' && e.status !== 'dead') return;
      if (!statusAt.has(e.slot)) statusAt.set(e.slot, { at: Date.now(), status: e.status });
    });
    void (async () => {
      for await (const trade of client.trades()) {
        const now = Date.now();
        if (!measuring || trade.slot === null) continue;
        const sent = txSent.get(trade.signature);
        if (sent !== undefined) tradeLatency.push(now - sent);
        if (!firstTradeAt.has(trade.slot)) firstTradeAt.set(trade.slot, now);
      }
    })();
    await client.connect();
    console.log(`slots: stand-in ${txPerSecond} tx/s, 400 ms slots, a fork every ${forkEverySlots} slots; warm-up 3 s, then ${seconds} s`);
    await new Promise((r) => setTimeout(r, 3_000));
    measuring = true;
    await new Promise((r) => setTimeout(r, seconds * 1_000));
    measuring = false;
    // Drain: confirmations come a slot later, but an abandoned fork is known dead only once a later slot is
    // finalized (32 slots, 12.8 s at 400 ms): wait that out, or the last fork would count as lost.
    await new Promise((r) => setTimeout(r, DRAIN_MS));

    const statusLatency: number[] = [];
    const botWait: number[] = [];
    let lost = 0;
    let dead = 0;
    for (const [slot, tradeAt] of firstTradeAt) {
      const got = statusAt.get(slot);
      if (!got) {
        lost++;
        continue;
      }
      if (got.status === 'dead') dead++;
      const sent = statusSent.get(slot);
      if (sent !== undefined) statusLatency.push(got.at - sent);
      if (got.status === 'confirmed') botWait.push(got.at - tradeAt);
    }
    for (const a of [tradeLatency, statusLatency, botWait]) a.sort((x, y) => x - y);
    const stats = client.stats;
    const out: Record<string, number | string> = {
      slots_tx_per_s: txPerSecond,
      slots_measured_seconds: seconds,
      slots_slots: firstTradeAt.size,
      slots_dead: dead,
      slots_lost: lost,
      slots_duplicates_dropped: stats.duplicatesDropped,
      slots_trades: tradeLatency.length,
      slots_status_latency_p50_ms: quantile(statusLatency, 0.5),
      slots_status_latency_p99_ms: quantile(statusLatency, 0.99),
      slots_trade_latency_p50_ms: quantile(tradeLatency, 0.5),
      slots_trade_latency_p99_ms: quantile(tradeLatency, 0.99),
      slots_status_vs_trade_p50: r2(quantile(statusLatency, 0.5) / quantile(tradeLatency, 0.5)),
      slots_status_vs_trade_p99: r2(quantile(statusLatency, 0.99) / quantile(tradeLatency, 0.99)),
      slots_trade_to_confirmed_p50_ms: quantile(botWait, 0.5),
      slots_trade_to_confirmed_p99_ms: quantile(botWait, 0.99),
    };
    const row = (label: string, value: number, base: number | null) =>
      console.log(
        `  ${label.padEnd(58)} ${String(value).padStart(8)} ${base === null ? '' : `${String(base).padStart(8)} ${String(r2(value / base)).padStart(6)}`}`,
      );
    console.log(`  ${''.padEnd(58)} ${'slots'.padStart(8)} ${'trades'.padStart(8)} ${'ratio'.padStart(6)}`);
    row('stand-in send → client, p50 ms (status vs its baseline: trade)', out.slots_status_latency_p50_ms as number, out.slots_trade_latency_p50_ms as number);
    row('stand-in send → client, p99 ms', out.slots_status_latency_p99_ms as number, out.slots_trade_latency_p99_ms as number);
    row("a slot's first trade → its confirmed at the client, p50 ms", out.slots_trade_to_confirmed_p50_ms as number, null);
    row("a slot's first trade → its confirmed at the client, p99 ms", out.slots_trade_to_confirmed_p99_ms as number, null);
    console.log(
      `  ${firstTradeAt.size} slots with trades (${dead} dead: the forks), ${tradeLatency.length} trades; lost ${lost}, duplicates dropped ${stats.duplicatesDropped}`,
    );
    return out;
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true });
  }
}
