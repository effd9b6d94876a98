/**
 * Slot status end to end (issue 32): the Yellowstone stand-in (@tradewind/dev, real gRPC, recorded mainnet
 * transactions on a synthetic chain with forks) → ingest (its real app and Yellowstone source) → TRADES on an
 * operator-mode nats-server 2.10 → ws-fanout (in-process, services/ws-fanout/test/support.ts) → this client with
 * `slots: true`. Every slot the client got a trade from is followed, after its trades, by `confirmed` or `dead`;
 * `waitForSlot` resolves for the confirmed ones and rejects with SlotDeadError for the fork's dead ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createLogger } from '@tradewind/lib';
import { startMainnetGeyser, type MainnetGeyserServer } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR, createApp as createIngestApp, createYellowstoneSource, loadIngestConfig, sourceMetrics } from '@tradewind/ingest';
import { createCustomer, startTestApp, startTestEnv, type TestApp, type TestEnv } from '../../../services/ws-fanout/test/support.js';
import { SlotDeadError, TradewindClient, type ClientEventOf, type TradeMessage } from '../src/index.js';

let env: TestEnv;
let app: TestApp;
let geyser: MainnetGeyserServer;
let ingest: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  // nats-server 2.10+ (one consumer on a subject and `slots`): the cluster tests' binary (scripts/test-env.ts).
  env = await startTestEnv({ natsBin: process.env.NATS_CLUSTER_SERVER_BIN ?? 'nats-server' });
  app = await startTestApp(env);
  // 100 ms slots (mainnet: 400) so that finalization (32 slots) comes within the test; every 5th slot a fork
  // that the cluster abandons (its trades are streamed at processed, then the slot is dead).
  geyser = await startMainnetGeyser({
    recordingDir: BUNDLED_RECORDING_DIR,
    slotMs: 100,
    profile: { steadyTxPerSecond: 200, burstTxPerSecond: 200, steadyMs: 1_000, burstMs: 1_000 },
    forks: { everySlots: 5, kind: 'abandoned' },
  });
}, 60_000);

afterAll(async () => {
  await ingest?.stop();
  await app?.app.stop();
  await geyser?.stop();
  await env?.stop();
});

describe('slot status from the chain to the client', () => {
  it('when trades stream at processed and their slots are confirmed, finalized or abandoned, then the client learns each slot’s fate after its trades, and waitForSlot resolves or rejects accordingly', async () => {
    const logger = createLogger({ service: 'ingest-slot-e2e', level: 'silent' });
    const registry = new Registry();
    const config = loadIngestConfig({ INGEST_SOURCE: 'yellowstone', YELLOWSTONE_ENDPOINT: geyser.endpoint, NATS_URL: env.nats.url });
    const source = createYellowstoneSource({ endpoint: geyser.endpoint, fromSlot: null, metrics: sourceMetrics(registry), registry, logger });
    const ingestApp = createIngestApp(config, { logger, registry, nc: env.nc, source });
    await ingestApp.start();
    ingest = ingestApp;

    const creds = await (await createCustomer(env, 'starter')).user();
    const client = new TradewindClient({ url: app.url, jwt: creds.jwt, seed: creds.seed });
    const trades: TradeMessage[] = [];
    const slotEvents: ClientEventOf<'slot'>[] = [];
    const errors: unknown[] = [];
    client.on('error', (e) => errors.push(e));
    client.on('slot', (e) => slotEvents.push(e));
    const waits: Array<Promise<string>> = [];
    const waited = new Map<number, Promise<string>>();
    const subscription = client.subscribe('basic.pumpfun', { slots: true });
    void (async () => {
      for await (const trade of subscription) {
        trades.push(trade);
        const slot = trade.slot;
        if (slot !== null && !waited.has(slot)) {
          const outcome = client.waitForSlot(trade, 'confirmed', { timeoutMs: 30_000 }).then(
            (r) => `${r.slot}:${r.status}`,
            (err: unknown) => (err instanceof SlotDeadError ? `${err.slot}:dead` : `${slot}:error ${String(err)}`),
          );
          waited.set(slot, outcome);
          waits.push(outcome);
        }
      }
    })();
    await client.connect();

    // Until at least two fork slots the client had trades from are dead and five slots are finalized.
    const deadline = Date.now() + 45_000;
    const seen = () => {
      const tradeSlots = new Set(trades.map((t) => t.slot));
      const dead = slotEvents.filter((e) => e.status === 'dead' && tradeSlots.has(e.slot));
      const finalized = slotEvents.filter((e) => e.status === 'finalized');
      return dead.length >= 2 && finalized.length >= 5;
    };
    while (!seen()) {
      if (Date.now() > deadline) throw new Error(`not enough slot statuses within 45 s: ${trades.length} trades, ${slotEvents.length} slot events`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await ingestApp.stop();
    ingest = undefined;

    // Order: a slot's status comes after every trade of that slot the client received.
    for (const e of slotEvents) {
      expect(e.subject).toBe('basic.pumpfun');
      expect(e.status).not.toBe('processed');
      const lastTrade = Math.max(...trades.filter((t) => t.slot === e.slot).map((t) => t.seq));
      expect(e.seq, `slot ${e.slot} ${e.status}`).toBeGreaterThan(lastTrade);
    }
    // Nothing arrived out of order: a status ahead of a trade of a lower seq would have made that trade a dropped duplicate.
    expect(client.stats.duplicatesDropped).toBe(0);
    // Statuses come only for slots the client received a trade from.
    const tradeSlots = new Set(trades.map((t) => t.slot));
    expect(slotEvents.filter((e) => !tradeSlots.has(e.slot))).toEqual([]);

    // Every slot whose fate arrived settled its waiter the same way.
    const fate = new Map<number, string>();
    for (const e of slotEvents) if (e.status === 'dead' || e.status === 'confirmed') fate.set(e.slot, e.status);
    const outcomes = await Promise.all(
      [...waited].filter(([slot]) => fate.has(slot)).map(async ([slot, p]) => [slot, await Promise.race([p, Promise.resolve('pending')])] as const),
    );
    for (const [slot, outcome] of outcomes) expect(outcome, `slot ${slot}`).toBe(`${slot}:${fate.get(slot)}`);
    expect(outcomes.some(([, o]) => o.endsWith(':dead'))).toBe(true);
    expect(outcomes.some(([, o]) => o.endsWith(':confirmed'))).toBe(true);
    // A dead slot's trades were streamed at processed: the fork is what a bot acting at processed must undo.
    const deadSlot = slotEvents.find((e) => e.status === 'dead' && tradeSlots.has(e.slot))!;
    expect(deadSlot).toMatchObject({ reason: 'skipped' });
    expect(trades.filter((t) => t.slot === deadSlot.slot).every((t) => t.commitment === 'processed')).toBe(true);
    expect(errors).toEqual([]);
    client.close();
    await Promise.allSettled(waits);
  }, 90_000);
});
