/**
 * The mainnet-shaped Geyser stand-in (dev/src/geyser) over real gRPC on loopback, read by the real
 * `@triton-one/yellowstone-grpc` client and by ingest's Yellowstone source: the rate profile, the
 * slot cadence, fresh signatures every pass, BlockMeta and slot statuses after a slot's
 * transactions, a lagged subscriber ended with the real server's error, and replay.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import * as yellowstone from '@triton-one/yellowstone-grpc';
import { CommitmentLevel, SlotStatus, SubscribeRequest, type ClientDuplexStream, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import bs58 from 'bs58';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { BUNDLED_RECORDING_DIR, createYellowstoneSource, decodeNormalized, messageId, sourceMetrics } from '@tradewind/ingest';
import { GEYSER_LAGGED_MESSAGE, startMainnetGeyser, type MainnetGeyserOptions, type MainnetGeyserServer } from '@tradewind/dev';

type ClientClass = typeof yellowstone.default.default;
const Client: ClientClass = (yellowstone.default as { default?: ClientClass }).default ?? (yellowstone.default as unknown as ClientClass);

/** Every transaction, any program, failed ones included. */
const ALL = { all: { accountInclude: [], accountExclude: [], accountRequired: [] } };
/** The recording's signatures (its files are named `<signature>.json`). */
const RECORDED_SIGNATURES = new Set(
  (readdirSync(BUNDLED_RECORDING_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).map((f) => basename(f, '.json')),
);

const servers: MainnetGeyserServer[] = [];
const streams: ClientDuplexStream[] = [];
const aborts: AbortController[] = [];

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  for (const s of streams.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await s.stop();
});

async function start(options: Partial<MainnetGeyserOptions>): Promise<MainnetGeyserServer> {
  const server = await startMainnetGeyser({ recordingDir: BUNDLED_RECORDING_DIR, slotMs: 100, ...options });
  servers.push(server);
  return server;
}

async function subscribe(server: MainnetGeyserServer, request: Partial<SubscribeRequest>): Promise<ClientDuplexStream> {
  const client = new Client(server.endpoint, undefined, { grpcMaxDecodingMessageSize: 64 * 1024 * 1024 });
  await client.connect();
  const stream = await client.subscribe(SubscribeRequest.fromPartial({ commitment: CommitmentLevel.PROCESSED, ...request }));
  streams.push(stream);
  return stream;
}

interface Seen {
  at: number;
  update: SubscribeUpdate;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = (value: number, target: number, tolerance = 0.2) => Math.abs(value - target) <= target * tolerance;

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** An error and its causes' messages (the native client nests the gRPC status in `cause`). */
function fullMessage(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 6; e = e.cause) parts.push(e.message);
  return parts.join(': ');
}

describe('the mainnet-shaped Geyser stand-in', () => {
  it('when subscribed through a steady and a burst phase, then rates, slot cadence, fresh signatures and the order of BlockMeta and slot statuses are those configured', async () => {
    const slotMs = 100;
    const profile = { steadyTxPerSecond: 200, burstTxPerSecond: 1_000, steadyMs: 1_000, burstMs: 1_000 };
    const server = await start({ profile, slotMs });
    const firstSlot = server.stats().slot;
    const stream = await subscribe(server, { transactions: ALL, slots: { tip: {} }, blocksMeta: { meta: {} } });
    const seen: Seen[] = [];
    stream.on('data', (update: SubscribeUpdate) => seen.push({ at: Date.now(), update }));
    // Long enough for two whole phases after the (partial) first one: steady 0-1 s, burst 1-2 s, steady 2-3 s, burst 3-4 s.
    await until(() => seen.some((s) => s.update.blockMeta && Number(s.update.blockMeta.slot) >= firstSlot + 39), 8_000, 'slot 40');

    const txs = seen.filter((s) => s.update.transaction);
    const metas = seen.filter((s) => s.update.blockMeta);
    const bySlot = new Map<number, Seen[]>();
    for (const s of txs) {
      const slot = Number(s.update.transaction!.slot);
      bySlot.set(slot, [...(bySlot.get(slot) ?? []), s]);
    }
    const firstFull = Number(metas[0]!.update.blockMeta!.slot) + 1; // the first slot seen may have begun before the subscription
    const metaAt = new Map(metas.map((m) => [Number(m.update.blockMeta!.slot), m]));

    // Slots: consecutive numbers, one BlockMeta every slotMs.
    const metaSlots = metas.map((m) => Number(m.update.blockMeta!.slot));
    expect(metaSlots).toEqual(metaSlots.map((_, i) => metaSlots[0]! + i));
    const cadence = (metas.at(-1)!.at - metas[0]!.at) / (metas.length - 1);
    expect(within(cadence, slotMs), `slot every ${cadence.toFixed(1)} ms`).toBe(true);

    // Rates per whole phase: its transactions over the time between the BlockMeta before it and its last one.
    const phaseSlots = (profile.steadyMs + profile.burstMs) / slotMs;
    const rates: { phase: string; rate: number }[] = [];
    for (let begin = firstSlot; begin + phaseSlots / 2 <= firstSlot + 40; begin += phaseSlots / 2) {
      const end = begin + phaseSlots / 2 - 1;
      const before = metaAt.get(begin - 1);
      const last = metaAt.get(end);
      if (begin < firstFull || !before || !last) continue;
      let count = 0;
      for (let slot = begin; slot <= end; slot++) count += bySlot.get(slot)?.length ?? 0;
      rates.push({ phase: (begin - firstSlot) % phaseSlots === 0 ? 'steady' : 'burst', rate: (count * 1000) / (last.at - before.at) });
    }
    expect(rates.map((r) => r.phase)).toEqual(expect.arrayContaining(['steady', 'burst']));
    for (const r of rates) {
      const target = r.phase === 'steady' ? profile.steadyTxPerSecond : profile.burstTxPerSecond;
      expect(within(r.rate, target), `${r.phase} measured ${r.rate.toFixed(0)} tx/s, target ${target}`).toBe(true);
    }

    // A slot's transactions are produced and sent in small groups over the slot (their created_at), not at once.
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const burstGroups = [...bySlot.entries()]
      .filter(([slot]) => slot >= firstFull && Math.floor((slot - firstSlot) / (phaseSlots / 2)) % 2 === 1)
      .map(([, list]) => list.map((s) => s.update.createdAt!.getTime()));
    expect(median(burstGroups.map((times) => new Set(times).size))).toBeGreaterThanOrEqual(5);
    expect(median(burstGroups.map((times) => Math.max(...times) - Math.min(...times)))).toBeGreaterThanOrEqual(slotMs * 0.4);

    // Per slot: its transactions, then its BlockMeta (block time now, count of its transactions), then processed;
    // confirmed after that.
    const index = new Map(seen.map((s, i) => [s, i]));
    const statusIndex = (slot: number, status: SlotStatus) =>
      seen.findIndex((s) => s.update.slot && Number(s.update.slot.slot) === slot && s.update.slot.status === status);
    // The newest BlockMeta's statuses may still be on their way when the wait above ended: judge slots up to the
    // newest one whose processed status arrived (a status missing before it still fails).
    const lastProcessed = Math.max(...seen.filter((s) => s.update.slot?.status === SlotStatus.SLOT_PROCESSED).map((s) => Number(s.update.slot!.slot)));
    // A slot's processed status precedes the next slot's transactions: the one before the awaited BlockMeta is in.
    expect(lastProcessed).toBeGreaterThanOrEqual(firstSlot + 38);
    for (const [slot, meta] of metaAt) {
      if (slot < firstFull || slot > lastProcessed) continue;
      const list = bySlot.get(slot) ?? [];
      expect(Number(meta.update.blockMeta!.executedTransactionCount)).toBe(list.length);
      for (const tx of list) expect(index.get(tx)!).toBeLessThan(index.get(meta)!);
      expect(Math.abs(Number(meta.update.blockMeta!.blockTime!.timestamp) * 1000 - meta.at)).toBeLessThan(2_000);
      const processed = statusIndex(slot, SlotStatus.SLOT_PROCESSED);
      expect(processed).toBeGreaterThan(index.get(meta)!);
      const confirmed = statusIndex(slot, SlotStatus.SLOT_CONFIRMED);
      if (confirmed >= 0) expect(confirmed).toBeGreaterThan(processed);
    }
    expect(seen.some((s) => s.update.slot?.status === SlotStatus.SLOT_CONFIRMED)).toBe(true);

    // Signatures: new on every pass (never the recorded one, never repeated), the same in `signature` and signatures[0].
    const signatures = txs.map((s) => bs58.encode(s.update.transaction!.transaction!.signature));
    expect(new Set(signatures).size).toBe(signatures.length);
    for (const s of txs)
      expect(Buffer.from(s.update.transaction!.transaction!.transaction!.signatures[0]!)).toEqual(Buffer.from(s.update.transaction!.transaction!.signature));
    expect(signatures.filter((s) => RECORDED_SIGNATURES.has(s))).toEqual([]);
    const passes = txs.length / RECORDED_SIGNATURES.size;
    expect(passes).toBeGreaterThan(5);
    // Each recorded transaction (known by its message and meta) came back on several passes, each time with a new signature.
    const byRecorded = new Map<string, Set<string>>();
    txs.forEach((s, i) => {
      const info = s.update.transaction!.transaction!;
      const key = JSON.stringify([info.transaction!.message, info.meta], (_, v: unknown) => (v instanceof Uint8Array ? bs58.encode(v) : v));
      byRecorded.set(key, (byRecorded.get(key) ?? new Set()).add(signatures[i]!));
    });
    expect(byRecorded.size).toBe(RECORDED_SIGNATURES.size);
    for (const sigs of byRecorded.values()) expect(sigs.size).toBeGreaterThanOrEqual(Math.floor(passes) - 1);
    expect(server.stats()).toMatchObject({ subscribers: 1, subscribes: 1, disconnects: 0, lagged: 0 });
  });

  it('when a subscriber stops reading, then it is ended with "lagged to send an update" and counted; a cancelled one counts as a disconnect only', async () => {
    const sent: number[] = [];
    const server = await start({
      profile: { steadyTxPerSecond: 500, burstTxPerSecond: 500, steadyMs: 1_000, burstMs: 1_000 },
      maxQueuedUpdates: 200,
      onSend: ({ subscriber }) => sent.push(subscriber),
    });

    const reader = await subscribe(server, { transactions: ALL });
    let read = 0;
    reader.on('data', (u: SubscribeUpdate) => void (u.transaction && read++));
    reader.on('error', () => undefined);
    await until(() => read >= 200, 5_000, `200 transactions (${JSON.stringify(server.stats())})`);
    reader.destroy();
    await until(() => server.stats().disconnects === 1, 5_000, 'the cancelled stream to be counted');
    expect(server.stats()).toMatchObject({ subscribers: 0, subscribes: 1, disconnects: 1, lagged: 0 });

    const stalled = await subscribe(server, { transactions: ALL });
    let stalledRead = 0;
    const ended = new Promise<unknown>((resolve) => stalled.on('error', resolve));
    stalled.on('data', () => {
      if (++stalledRead === 1) stalled.pause();
    });
    await until(() => server.stats().lagged === 1, 5_000, 'the stalled subscriber to lag');
    expect(server.stats()).toMatchObject({ subscribers: 0, subscribes: 2, disconnects: 2, lagged: 1 });
    const writtenToStalled = sent.filter((s) => s === 2).length;
    stalled.resume();
    expect(fullMessage(await ended)).toContain(GEYSER_LAGGED_MESSAGE);
    // What was queued before the overflow is delivered first, as the real server does (pings included in `stalledRead`).
    expect(sent.filter((s) => s === 2).length).toBeGreaterThanOrEqual(writtenToStalled);
    expect(stalledRead).toBeGreaterThan(1);
  });

  it("when ingest's Yellowstone source reads it, then it takes every transaction the server sends it, decodes trades with unique message ids, and never reconnects", async () => {
    const sentTo = new Map<number, Set<string>>();
    const server = await start({
      profile: { steadyTxPerSecond: 300, burstTxPerSecond: 1_000, steadyMs: 1_000, burstMs: 1_000 },
      onSend: ({ signature, subscriber }) => sentTo.set(subscriber, (sentTo.get(subscriber) ?? new Set()).add(signature)),
    });
    const registry = new Registry();
    const abort = new AbortController();
    aborts.push(abort);
    const source = createYellowstoneSource({
      endpoint: server.endpoint,
      fromSlot: null,
      metrics: sourceMetrics(registry),
      registry,
      logger: createLogger({ service: 'geyser-mainnet-test', level: 'silent' }),
    });
    const taken: { signature: string; slot: number | null }[] = [];
    const ids = new Set<string>();
    let trades = 0;
    let sentWhenDone = 0;
    const deadline = Date.now() + 2_500;
    for await (const tx of source.transactions(abort.signal)) {
      taken.push({ signature: tx.signature, slot: tx.slot });
      for (const trade of decodeNormalized(tx)) {
        trades++;
        ids.add(messageId(trade));
      }
      if (Date.now() > deadline) {
        sentWhenDone = sentTo.get(1)?.size ?? 0;
        break;
      }
    }
    abort.abort();

    const counter = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
    expect(await counter('tradewind_ingest_source_reconnects_total')).toBe(0);
    expect(server.stats()).toMatchObject({ subscribes: 1 });
    expect(taken.length).toBeGreaterThan(1_000);
    expect(new Set(taken.map((t) => t.signature)).size).toBe(taken.length);
    const sent = sentTo.get(1)!;
    // The source asks for successful transactions of the trade programs; it got exactly what was written to it, in order.
    expect(taken.every((t) => sent.has(t.signature))).toBe(true);
    expect(taken.length).toBeGreaterThan(sentWhenDone * 0.8);
    expect(trades).toBeGreaterThan(taken.length / 2);
    expect(ids.size).toBe(trades);
    const slots = taken.map((t) => t.slot!);
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
  });

  it('when a subscriber asks for a kept slot, then it is replayed from there; an older one is refused as the real server does', async () => {
    const server = await start({ profile: { steadyTxPerSecond: 500, burstTxPerSecond: 500, steadyMs: 1_000, burstMs: 1_000 }, replayStoredSlots: 10 });
    const firstSlot = server.stats().slot;
    await until(() => server.stats().slot >= firstSlot + 14, 5_000, 'fourteen slots');

    const from = server.stats().slot - 3;
    const replayed = await subscribe(server, { transactions: ALL, blocksMeta: { meta: {} }, fromSlot: String(from) });
    const seen: SubscribeUpdate[] = [];
    replayed.on('data', (u: SubscribeUpdate) => seen.push(u));
    await until(() => seen.some((u) => u.blockMeta && Number(u.blockMeta.slot) >= from + 4), 5_000, 'the replayed and live slots');
    const firstTx = seen.find((u) => u.transaction)!;
    expect(Number(firstTx.transaction!.slot)).toBe(from);
    const metaSlots = seen.filter((u) => u.blockMeta).map((u) => Number(u.blockMeta!.slot));
    expect(metaSlots.slice(0, 5)).toEqual([from, from + 1, from + 2, from + 3, from + 4]);

    const refused = await subscribe(server, { transactions: ALL, fromSlot: String(firstSlot) });
    const error = await new Promise<unknown>((resolve) => {
      refused.on('error', resolve);
      refused.on('data', () => undefined);
    });
    expect(fullMessage(error)).toMatch(new RegExp(`broadcast from ${firstSlot} is not available, last available: \\d+`));
    expect(server.stats()).toMatchObject({ subscribes: 2, disconnects: 1, lagged: 0 });
  });

  for (const kind of ['abandoned', 'dead'] as const) {
    it(`when forks of kind "${kind}" are configured, then every fifth slot streams its transactions, is never confirmed, the next slot's parent skips it${kind === 'dead' ? ', and it ends SLOT_DEAD with an error instead of processed' : ', and nothing more is said of it'}`, async () => {
      const server = await start({
        profile: { steadyTxPerSecond: 400, burstTxPerSecond: 400, steadyMs: 1_000, burstMs: 1_000 },
        forks: { everySlots: 5, kind },
      });
      const stream = await subscribe(server, {
        transactions: ALL,
        slots: { all: { filterByCommitment: false, interslotUpdates: true } },
      });
      const seen: SubscribeUpdate[] = [];
      stream.on('data', (u: SubscribeUpdate) => seen.push(u));
      // Long enough for a fork slot to be passed by its would-be confirmation (1 slot) several times over.
      await until(() => seen.filter((u) => u.slot?.status === SlotStatus.SLOT_CONFIRMED).length >= 14, 10_000, 'fourteen confirmed slots');

      const statuses = new Map<number, SlotStatus[]>();
      const parents = new Map<number, number>();
      const deadErrors = new Map<number, string | undefined>();
      for (const u of seen) {
        if (!u.slot) continue;
        const slot = Number(u.slot.slot);
        statuses.set(slot, [...(statuses.get(slot) ?? []), u.slot.status]);
        parents.set(slot, Number(u.slot.parent));
        if (u.slot.status === SlotStatus.SLOT_DEAD) deadErrors.set(slot, u.slot.deadError);
      }
      const txSlots = new Set(seen.filter((u) => u.transaction).map((u) => Number(u.transaction!.slot)));
      const confirmed = [...statuses].filter(([, s]) => s.includes(SlotStatus.SLOT_CONFIRMED)).map(([slot]) => slot);
      const first = Math.min(...confirmed);
      const last = Math.max(...confirmed);
      const forks: number[] = [];
      for (let slot = first; slot <= last + 1; slot++) {
        const s = statuses.get(slot) ?? [];
        if (!s.includes(SlotStatus.SLOT_CONFIRMED)) forks.push(slot);
      }
      expect(forks.length).toBeGreaterThanOrEqual(2);
      for (const fork of forks.filter((f) => f <= last)) {
        // Produced like any other slot (its trades reach a processed subscriber)…
        expect(txSlots.has(fork)).toBe(true);
        const s = statuses.get(fork)!;
        // …never confirmed or finalized; the slot after it hangs off its parent.
        expect(s).not.toContain(SlotStatus.SLOT_CONFIRMED);
        expect(s).not.toContain(SlotStatus.SLOT_FINALIZED);
        expect(parents.get(fork + 1)).toBe(fork - 1);
        expect(parents.get(fork)).toBe(fork - 1);
        if (kind === 'dead') {
          expect(s).toContain(SlotStatus.SLOT_DEAD);
          expect(s).not.toContain(SlotStatus.SLOT_PROCESSED);
          expect(deadErrors.get(fork)).toBeTruthy();
        } else {
          expect(s).toContain(SlotStatus.SLOT_PROCESSED);
          expect(s).not.toContain(SlotStatus.SLOT_DEAD);
        }
      }
      // Forks come every fifth slot, and the slots around them are confirmed as usual.
      expect(forks.filter((f) => f <= last).every((f, i, a) => i === 0 || f - a[i - 1]! === 5)).toBe(true);
      expect(confirmed.length).toBeGreaterThanOrEqual(14);
    });
  }

  it('when forks are asked for every slot or every 1.5 slots, then the stand-in refuses to start', async () => {
    await expect(start({ forks: { everySlots: 1, kind: 'abandoned' } })).rejects.toThrow(/forks.everySlots must be an integer ≥ 2/);
    await expect(start({ forks: { everySlots: 1.5, kind: 'dead' } })).rejects.toThrow(/forks.everySlots must be an integer ≥ 2/);
  });
});
