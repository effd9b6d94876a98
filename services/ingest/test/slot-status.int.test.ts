/**
 * Slot status on the stream (issue 32, src/live/slot-tracker.ts): ingest reading the mainnet-shaped Yellowstone
 * stand-in (@tradewind/dev, real gRPC) with forks, publishing into TRADES on a private nats-server. Every slot
 * message is stored after the trades of its slot, with their count per subject; a normal slot goes processed →
 * confirmed → finalized; a fork slot ends `dead` — `skipped` when a finalized slot's parents pass it by
 * (mainnet's abandoned fork), `replay_failed` with the node's error when the node sends SLOT_DEAD.
 */
import { jetstream, jetstreamManager, DeliverPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { SLOTS_SUBJECT, TRADES_STREAM, type SlotStatusMessage } from '@tradewind/contracts';
import { startMainnetGeyser, startNatsServer, type MainnetGeyserServer, type TestNatsServer } from '@tradewind/dev';
import { createApp } from '../src/app.js';
import { BUNDLED_RECORDING_DIR, loadIngestConfig } from '../src/config.js';
import { createYellowstoneSource } from '../src/live/yellowstone.js';
import { sourceMetrics } from '../src/live/source.js';

let nats: TestNatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
const geysers: MainnetGeyserServer[] = [];
const logger = createLogger({ service: 'ingest-slot-test', level: 'silent' });

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  jsm = await jetstreamManager(nc);
}, 20_000);

afterEach(async () => {
  for (const g of geysers.splice(0)) await g.stop();
  await jsm.streams.delete(TRADES_STREAM).catch(() => undefined);
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

interface Stored {
  seq: number;
  subject: string;
  body: Record<string, unknown>;
}

/** Every message of TRADES, in stream order. */
async function readAll(): Promise<Stored[]> {
  const last = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
  const out: Stored[] = [];
  if (last === 0) return out;
  const messages = await (await jetstream(nc).consumers.get(TRADES_STREAM, { deliver_policy: DeliverPolicy.All })).consume();
  for await (const m of messages) {
    out.push({ seq: m.seq, subject: m.subject, body: m.json<Record<string, unknown>>() });
    if (m.seq >= last) break;
  }
  await messages.close();
  return out;
}

async function runIngest(kind: 'abandoned' | 'dead', until: (slots: SlotStatusMessage[]) => boolean): Promise<Stored[]> {
  const geyser = await startMainnetGeyser({
    recordingDir: BUNDLED_RECORDING_DIR,
    slotMs: 100,
    profile: { steadyTxPerSecond: 300, burstTxPerSecond: 300, steadyMs: 1_000, burstMs: 1_000 },
    forks: { everySlots: 5, kind },
  });
  geysers.push(geyser);
  const config = loadIngestConfig({ INGEST_SOURCE: 'yellowstone', YELLOWSTONE_ENDPOINT: geyser.endpoint, NATS_URL: nats.url });
  const registry = new Registry();
  const source = createYellowstoneSource({ endpoint: geyser.endpoint, fromSlot: null, metrics: sourceMetrics(registry), registry, logger });
  const app = createApp(config, { logger, registry, nc, source });
  await app.start();
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const all = await readAll();
      const slots = all.filter((m) => m.subject === SLOTS_SUBJECT).map((m) => m.body as unknown as SlotStatusMessage);
      if (until(slots)) return all;
      if (Date.now() > deadline) throw new Error(`slot messages not as awaited within 30 s: ${slots.length} so far`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await app.stop();
  }
}

/** Checks what holds for any run: order, counts, one message per slot and status, no slot both finalized and dead. */
function checkCommon(all: Stored[]): SlotStatusMessage[] {
  const slots: SlotStatusMessage[] = [];
  const tradesBySlot = new Map<number, Map<string, number[]>>();
  for (const m of all) {
    if (m.subject !== SLOTS_SUBJECT) {
      const slot = m.body.slot as number;
      const bySubject = tradesBySlot.get(slot) ?? new Map<string, number[]>();
      tradesBySlot.set(slot, bySubject);
      bySubject.set(m.subject, [...(bySubject.get(m.subject) ?? []), m.seq]);
      continue;
    }
    const s = m.body as unknown as SlotStatusMessage;
    slots.push(s);
    expect(s).toMatchObject({ type: 'slot', source: 'yellowstone', schema_version: 1 });
    // After every trade of its slot, and with their count per subject.
    const trades = tradesBySlot.get(s.slot) ?? new Map<string, number[]>();
    const counts = Object.fromEntries([...trades].map(([subject, seqs]) => [subject, seqs.length]));
    expect(s.trades, `slot ${s.slot} ${s.status}`).toEqual(counts);
  }
  // No trade of a slot is stored after its processed status.
  const processedAt = new Map(all.filter((m) => m.subject === SLOTS_SUBJECT && m.body.status === 'processed').map((m) => [m.body.slot as number, m.seq]));
  for (const m of all)
    if (m.subject !== SLOTS_SUBJECT && processedAt.has(m.body.slot as number)) expect(m.seq).toBeLessThan(processedAt.get(m.body.slot as number)!);
  const keys = slots.map((s) => `${s.slot}:${s.status}`);
  expect(new Set(keys).size).toBe(keys.length);
  const finalized = new Set(slots.filter((s) => s.status === 'finalized').map((s) => s.slot));
  expect(slots.filter((s) => s.status === 'dead' && finalized.has(s.slot))).toEqual([]);
  return slots;
}

describe('slot status messages from the Yellowstone source', () => {
  it('when a fork slot is abandoned (the next slot hangs off its parent), then it is published processed, never confirmed, and dead (skipped) once a later slot is finalized; the others go processed → confirmed → finalized', async () => {
    const all = await runIngest('abandoned', (slots) => slots.filter((s) => s.status === 'dead').length >= 2);
    const slots = checkCommon(all);
    const dead = slots.filter((s) => s.status === 'dead');
    for (const d of dead) {
      expect(d.reason).toBe('skipped');
      const statuses = slots.filter((s) => s.slot === d.slot).map((s) => s.status);
      expect(statuses).toEqual(['processed', 'dead']);
      // The fork slot had trades: they are void now.
      expect(Object.values(d.trades).reduce<number>((a, b) => a + (b ?? 0), 0)).toBeGreaterThan(0);
    }
    // Slots processed before ingest subscribed come with their later statuses only: judged from its first processed one.
    const firstProcessed = Math.min(...slots.filter((s) => s.status === 'processed').map((s) => s.slot));
    const finalized = slots.filter((s) => s.status === 'finalized' && s.slot >= firstProcessed);
    expect(finalized.length).toBeGreaterThan(5);
    for (const f of finalized) expect(slots.filter((s) => s.slot === f.slot).map((s) => s.status)).toEqual(['processed', 'confirmed', 'finalized']);
  }, 60_000);

  it('when the node marks a fork slot dead (SLOT_DEAD), then it is published dead (replay_failed) with the error, after its trades, and never processed', async () => {
    const all = await runIngest('dead', (slots) => slots.filter((s) => s.status === 'dead').length >= 2);
    const slots = checkCommon(all);
    const dead = slots.filter((s) => s.status === 'dead');
    for (const d of dead) {
      expect(d).toMatchObject({ reason: 'replay_failed', dead_error: expect.stringContaining('dead') });
      expect(slots.filter((s) => s.slot === d.slot).map((s) => s.status)).toEqual(['dead']);
    }
    // The stand-in's forks are every fifth slot: consecutive dead slots are 5 apart.
    const deadSlots = dead.map((d) => d.slot);
    expect(deadSlots.every((s, i) => i === 0 || s - deadSlots[i - 1]! === 5)).toBe(true);
  }, 60_000);
});
