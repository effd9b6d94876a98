/**
 * Two real ingest processes (services/ingest/src/main.ts) of one source on a private nats-server: only
 * the holder of the leader lease publishes, and when it stops (SIGTERM: it releases the lease) or dies
 * (SIGKILL: the lease expires) the other takes over from its checkpoint. Live: the local Yellowstone
 * gRPC server (test/support/geyser-server.ts) streams the recorded mainnet transactions as a slow chain;
 * TRADES must end up with every trade it served exactly once, in chain order.
 */
import bs58 from 'bs58';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SLOTS_SUBJECT, TRADES_STREAM } from '@tradewind/contracts';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { decodeTransaction, messageId } from '../src/decode/index.js';
import { TRADE_PROGRAM_IDS } from '../src/live/source.js';
import { loadRecording } from '../src/replay/recording.js';
import { GeyserTestServer, loadRecordedGeyserTransactions, type RecordedGeyserTransaction } from './support/geyser-server.js';
import { spawnIngestProcess, type IngestProcess } from './support/ingest-process.js';

let recorded: RecordedGeyserTransaction[];
let nats: TestNatsServer | undefined;
let nc: NatsConnection | undefined;
let geyser: GeyserTestServer | undefined;
let processes: IngestProcess[] = [];

beforeAll(async () => {
  recorded = await loadRecordedGeyserTransactions(BUNDLED_RECORDING_DIR);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') for (const p of processes) console.error(`--- ${p.name} output ---\n${p.output().slice(-8_000)}`);
  await Promise.all(processes.map((p) => p.kill('SIGKILL')));
  processes = [];
  await nc?.close();
  nc = undefined;
  await geyser?.close();
  geyser = undefined;
  await nats?.stop();
  nats = undefined;
});

/** What the Yellowstone filter lets through: successful transactions touching one of the four programs. */
function streamable(t: RecordedGeyserTransaction): boolean {
  const keys = [...t.info.transaction!.message!.accountKeys, ...t.info.meta!.loadedWritableAddresses, ...t.info.meta!.loadedReadonlyAddresses].map((k) =>
    bs58.encode(k),
  );
  return (t.info.meta?.err?.err.length ?? 0) === 0 && keys.some((k) => (TRADE_PROGRAM_IDS as readonly string[]).includes(k));
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The Nats-Msg-Id of every message in TRADES, in stream order. */
async function storedIds(): Promise<string[]> {
  const jsm = await jetstreamManager(nc!);
  const info = await jsm.streams.info(TRADES_STREAM).catch(() => null);
  if (!info || info.state.messages === 0) return [];
  const ids: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(TRADES_STREAM, { seq });
    // The slot status messages (subject `slots`) are not trades: slot-status.int.test.ts covers them.
    if (m && m.subject !== SLOTS_SUBJECT) ids.push(m.header?.get('Nats-Msg-Id') ?? '');
  }
  return ids;
}

async function startNats(): Promise<void> {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
}

/** Spawns two ingests with `env`, waits until both are ready and one leads; returns [leader, standby]. */
async function startPair(env: Record<string, string>): Promise<[IngestProcess, IngestProcess]> {
  const both = await Promise.all(['ingest-a', 'ingest-b'].map((name) => spawnIngestProcess(name, { NATS_URL: nats!.url, ...env })));
  processes.push(...both);
  // A standby is ready too: it is healthy and waiting.
  await until('both ingests ready', async () => (await Promise.all(both.map((p) => p.ready()))).every(Boolean));
  await until('one leader', async () => (await Promise.all(both.map((p) => p.metric('tradewind_ingest_leader')))).sort().join() === '0,1');
  const leaderIndex = (await both[0]!.metric('tradewind_ingest_leader')) === 1 ? 0 : 1;
  return [both[leaderIndex]!, both[1 - leaderIndex]!];
}

describe('two ingests on the live Yellowstone source', () => {
  const LEASE_MS = 2_000;

  async function failover(signal: 'SIGTERM' | 'SIGKILL', reason: 'released' | 'expired'): Promise<void> {
    await startNats();
    const served = recorded.filter(streamable);
    const expected = served.flatMap((t) => decodeTransaction(t.raw)).map(messageId);
    expect(expected.length).toBeGreaterThanOrEqual(30);
    // A slow chain (about 10 s for the recording) so the leader is stopped mid-stream.
    geyser = new GeyserTestServer({ transactions: served, slotIntervalMs: 250, pingIntervalMs: 1_000 });
    await geyser.start();

    const [leader, standby] = await startPair({
      INGEST_SOURCE: 'yellowstone',
      YELLOWSTONE_ENDPOINT: geyser.endpoint,
      LIVE_FROM_SLOT: String(served[0]!.slot),
      LIVE_CHECKPOINT_INTERVAL_MS: '100',
      LIVE_RECONNECT_INITIAL_MS: '100',
      LIVE_RECONNECT_MAX_MS: '1000',
      PUBLISH_MAX_BACKOFF_MS: '500',
      INGEST_LEASE_MS: String(LEASE_MS),
      TRADES_MAX_BYTES: String(64 * 1024 * 1024),
    });
    expect(await standby.metric('tradewind_ingest_source_transactions_total')).toBe(0);

    await until('a quarter of the trades stored', async () => (await storedIds()).length >= Math.ceil(expected.length / 4));
    const beforeStop = (await storedIds()).length;
    expect(beforeStop).toBeLessThan(expected.length); // stopped mid-stream
    await leader.kill(signal);
    // Everything the first leader stored (it is gone now, and the standby has not taken over yet for SIGKILL).
    const byFirst = (await storedIds()).length;

    await until('the standby leads', async () => (await standby.metric('tradewind_ingest_leader')) === 1);
    expect(await standby.metric('tradewind_ingest_leader_takeovers_total', { reason })).toBe(1);
    await until('every served trade stored', async () => new Set(await storedIds()).size >= expected.length);
    await new Promise((r) => setTimeout(r, 1_000)); // room for a duplicate to show up

    // Every trade the chain served, once each (by Nats-Msg-Id = signature:path), in chain order: no gap, nothing twice.
    expect(await storedIds()).toEqual(expected);
    // The standby did publish the rest (it did not all come from the first leader).
    expect(await standby.metric('tradewind_ingest_trades_published_total')).toBeGreaterThan(0);
    // It resumed at its predecessor's checkpoint (not at LIVE_FROM_SLOT, where it stood when it started): only the
    // trades of the checkpoint's slot, and for SIGKILL those acknowledged after the last checkpoint, come again.
    expect(await standby.metric('tradewind_ingest_trades_duplicate_total')).toBeLessThan(byFirst);
    expect(standby.output()).toMatch(/"msg":"became leader: publishing"/);
  }

  it('when the leader is stopped with SIGTERM, then the standby takes over at once from its checkpoint and TRADES holds every served trade exactly once', async () => {
    await failover('SIGTERM', 'released');
  }, 90_000);

  it('when the leader is killed with SIGKILL, then the standby takes over once the lease expired and TRADES holds every served trade exactly once', async () => {
    await failover('SIGKILL', 'expired');
  }, 90_000);
});

describe('two ingests on the replay source', () => {
  it('when two ingests replay the recording once, then only the leader replays and TRADES holds each trade once', async () => {
    await startNats();
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const perPass = transactions.reduce((n, t) => n + t.trades.length, 0);
    expect(perPass).toBeGreaterThanOrEqual(20);

    const [leader, standby] = await startPair({ INGEST_SOURCE: 'replay', REPLAY_LOOP: 'false', REPLAY_TRANSACTIONS_PER_SECOND: '100' });
    await until('the recording stored', async () => (await storedIds()).length >= perPass);
    // Both are up (the standby's start-up is over); a second replay would be under way by now.
    await new Promise((r) => setTimeout(r, 2_000));

    const ids = await storedIds();
    expect(ids).toHaveLength(perPass);
    // Replay ids are `<signature>:<path>:replay:<run>:<pass>`: one run, each trade once.
    const trades = ids.map((id) => id.split(':replay:')[0]);
    expect(new Set(trades).size).toBe(perPass);
    expect(new Set(ids.map((id) => id.split(':replay:')[1])).size).toBe(1);
    expect(await leader.metric('tradewind_ingest_trades_published_total')).toBe(perPass);
    expect(await standby.metric('tradewind_ingest_trades_published_total')).toBe(0);
    expect(await standby.metric('tradewind_ingest_leader')).toBe(0);
  }, 90_000);
});
