/**
 * The leader lease (src/leader-lease.ts) on a private nats-server: contenders on their own
 * connections, as separate ingest processes would be.
 */
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { TRADES_STREAM } from '@tradewind/contracts';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { jetstreamManager } from '@nats-io/jetstream';
import { createApp } from '../src/app.js';
import { BUNDLED_RECORDING_DIR, loadIngestConfig } from '../src/config.js';
import {
  defaultRenewMs,
  leaderMetrics,
  openLeaderLease,
  type DeposedReason,
  type ElectedReason,
  type LeaderLease,
  type LeaseValue,
} from '../src/leader-lease.js';
import { startFaultProxy } from './support/fault-proxy.js';

let nats: TestNatsServer;
const connections: NatsConnection[] = [];
const leases: LeaderLease[] = [];
const logger = createLogger({ service: 'ingest-test', level: 'silent' });
let keySeq = 0;

beforeAll(async () => {
  nats = await startNatsServer();
}, 20_000);

afterEach(async () => {
  for (const l of leases.splice(0)) await l.release();
  for (const nc of connections.splice(0)) await nc.close().catch(() => undefined);
});

afterAll(async () => {
  await nats?.stop();
});

/** What happened to one contender, in order, with the test-wide sequence number of each event. */
interface Contender {
  lease: LeaderLease;
  nc: NatsConnection;
  registry: Registry;
  events: { seq: number; kind: 'elected' | 'deposed'; reason: ElectedReason | DeposedReason }[];
}

let eventSeq = 0;

async function contender(key: string, leaseMs: number, renewMs: number, url = nats.url): Promise<Contender> {
  const nc = await connect({ servers: url });
  connections.push(nc);
  const registry = new Registry();
  const events: Contender['events'] = [];
  const lease = await openLeaderLease({
    nc,
    key,
    leaseMs,
    renewMs,
    logger,
    metrics: leaderMetrics(registry),
    onElected: (reason) => events.push({ seq: ++eventSeq, kind: 'elected', reason }),
    onDeposed: (reason) => events.push({ seq: ++eventSeq, kind: 'deposed', reason }),
  });
  leases.push(lease);
  return { lease, nc, registry, events };
}

async function bucket(): Promise<KV> {
  const nc = await connect({ servers: nats.url });
  connections.push(nc);
  return new Kvm(nc).open('ingest_leader');
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const metric = async (c: Contender, name: string, labels: Record<string, string> = {}): Promise<number> =>
  (await c.registry.getSingleMetric(name)?.get())?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;

const freshKey = () => `k${++keySeq}`;

describe('ingest leader lease', () => {
  it('when the config is read, then the lease defaults to 5 s renewed by the lease module every third, and a renewal period not below the lease is refused', () => {
    const c = loadIngestConfig({});
    expect(c.INGEST_LEASE_MS).toBe(5_000);
    expect(c.INGEST_LEASE_RENEW_MS).toBeUndefined();
    expect(defaultRenewMs(c.INGEST_LEASE_MS)).toBe(1_666);
    expect(() => loadIngestConfig({ INGEST_LEASE_MS: '1000', INGEST_LEASE_RENEW_MS: '1000' })).toThrow(/INGEST_LEASE_RENEW_MS/);
    expect(loadIngestConfig({ INGEST_LEASE_MS: '1000', INGEST_LEASE_RENEW_MS: '250' }).INGEST_LEASE_RENEW_MS).toBe(250);
  });

  it('when four contenders start at once, then exactly one is ever elected, its id is in the key, and renewals keep it leading past several lease lengths', async () => {
    const key = freshKey();
    const all = await Promise.all([1, 2, 3, 4].map(() => contender(key, 900, 300)));
    await Promise.all(all.map((c) => c.lease.start()));
    await until(() => all.some((c) => c.lease.isLeader));
    const leader = all.find((c) => c.lease.isLeader)!;
    const standbys = all.filter((c) => c !== leader);
    expect(all.flatMap((c) => c.events)).toEqual([{ seq: expect.any(Number), kind: 'elected', reason: 'vacant' }]);
    expect(await metric(leader, 'tradewind_ingest_leader')).toBe(1);
    for (const s of standbys) expect(await metric(s, 'tradewind_ingest_leader')).toBe(0);

    const kv = await bucket();
    const first = await kv.get(key);
    expect(first?.json<LeaseValue>().holder).toBe(leader.lease.holder);

    // Four lease lengths: without renewals the standby would have taken over three times.
    await new Promise((r) => setTimeout(r, 3_600));
    const later = await kv.get(key);
    expect(later!.revision).toBeGreaterThan(first!.revision + 3);
    expect(later?.json<LeaseValue>().holder).toBe(leader.lease.holder);
    expect(all.filter((c) => c.lease.isLeader)).toEqual([leader]);
    expect(all.flatMap((c) => c.events).map((e) => e.kind)).toEqual(['elected']);
  }, 30_000);

  it('when the leader releases, then the standby takes over on the watch event, long before the lease could expire', async () => {
    const key = freshKey();
    // A one-minute lease: only the release (DEL seen on the watch) can hand over within the test.
    const a = await contender(key, 60_000, 1_000);
    await a.lease.start();
    // start() resolves as leader or standby: a first attempt timed out on a busy machine is retried.
    await until(() => a.lease.isLeader);
    const b = await contender(key, 60_000, 1_000);
    await b.lease.start();
    expect(b.lease.isLeader).toBe(false);

    await a.lease.release();
    expect(a.events.map((e) => `${e.kind}:${e.reason}`)).toEqual(['elected:vacant', 'deposed:released']);
    await until(() => b.lease.isLeader, 20_000);
    expect(b.events.map((e) => `${e.kind}:${e.reason}`)).toEqual(['elected:released']);
    expect(await metric(b, 'tradewind_ingest_leader_takeovers_total', { reason: 'released' })).toBe(1);
    expect((await (await bucket()).get(key))?.json<LeaseValue>().holder).toBe(b.lease.holder);
  }, 30_000);

  it('when the leader can no longer renew, then it steps down by itself before the standby takes over after the lease expired', async () => {
    const key = freshKey();
    const a = await contender(key, 1_500, 400);
    await a.lease.start();
    // start() resolves as leader or standby: a first attempt timed out on a busy machine is retried.
    await until(() => a.lease.isLeader);
    const b = await contender(key, 1_500, 400);
    await b.lease.start();
    expect(b.lease.isLeader).toBe(false);

    // The leader's connection is gone (as for a process cut off from NATS, or killed): nothing renews the key.
    await a.nc.close();
    await until(() => b.lease.isLeader, 20_000);
    expect(b.events.map((e) => `${e.kind}:${e.reason}`)).toEqual(['elected:expired']);
    expect(await metric(b, 'tradewind_ingest_leader_takeovers_total', { reason: 'expired' })).toBe(1);
    // Fencing: the old leader had stopped (and said so) before the new one started.
    const stepDown = a.events.find((e) => e.kind === 'deposed');
    expect(stepDown?.reason).toBe('unreachable');
    expect(stepDown!.seq).toBeLessThan(b.events[0]!.seq);
    expect(a.lease.isLeader).toBe(false);
    expect(await metric(a, 'tradewind_ingest_leader_step_downs_total', { reason: 'unreachable' })).toBe(1);
  }, 30_000);

  it("when the leader's connection stalls (its server no longer answers, the connection stays open), then it steps down by itself before the standby takes over", async () => {
    const key = freshKey();
    const proxy = await startFaultProxy(nats.port);
    try {
      const a = await contender(key, 1_500, 400, proxy.url);
      await a.lease.start();
      // start() resolves as leader or standby: a first attempt timed out on a busy machine is retried.
      await until(() => a.lease.isLeader);
      const b = await contender(key, 1_500, 400);
      await b.lease.start();
      expect(b.lease.isLeader).toBe(false);

      // Bytes stop flowing both ways, the sockets stay open: nats.js sees no disconnect for minutes (its ping
      // interval). Only the unanswered ping of the fence check tells the leader it is cut off.
      proxy.stall();
      await until(() => b.lease.isLeader, 20_000);
      expect(b.events.map((e) => `${e.kind}:${e.reason}`)).toEqual(['elected:expired']);
      const stepDown = a.events.find((e) => e.kind === 'deposed');
      expect(stepDown?.reason).toBe('unreachable');
      expect(stepDown!.seq).toBeLessThan(b.events[0]!.seq);
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('when another holder overwrites the key, then the leader steps down at once (fenced) and stands by', async () => {
    const key = freshKey();
    const a = await contender(key, 60_000, 500);
    await a.lease.start();
    // start() resolves as leader or standby: a first attempt timed out on a busy machine is retried.
    await until(() => a.lease.isLeader);

    const kv = await bucket();
    const intruder: LeaseValue = { holder: 'intruder', acquired_at_ms: Date.now(), renewed_at_ms: Date.now() };
    await kv.put(key, JSON.stringify(intruder));
    // The lease is a minute long: only the fencing (watch event or refused renewal) ends the leadership this soon.
    await until(() => !a.lease.isLeader, 20_000);
    expect(a.events.map((e) => `${e.kind}:${e.reason}`)).toEqual(['elected:vacant', 'deposed:fenced']);
    expect(await metric(a, 'tradewind_ingest_leader')).toBe(0);
    expect(await metric(a, 'tradewind_ingest_leader_step_downs_total', { reason: 'fenced' })).toBe(1);
    // It does not write over the new holder afterwards.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await kv.get(key))?.json<LeaseValue>().holder).toBe('intruder');
    expect(a.lease.isLeader).toBe(false);
  }, 30_000);

  it('when a standby stops, then the leader keeps its lease', async () => {
    const key = freshKey();
    const a = await contender(key, 60_000, 500);
    await a.lease.start();
    const b = await contender(key, 60_000, 500);
    await b.lease.start();
    await b.lease.release();
    expect(b.events).toEqual([]);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(a.lease.isLeader).toBe(true);
    expect((await (await bucket()).get(key))?.json<LeaseValue>().holder).toBe(a.lease.holder);
  }, 30_000);
});

describe('ingest app with the leader lease', () => {
  it('when the lease is taken from the publishing app, then it stops publishing at once and stands by, and takes over again when that holder releases it', async () => {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    const jsm = await jetstreamManager(nc);
    const stored = async () => (await jsm.streams.info(TRADES_STREAM)).state.messages;
    const registry = new Registry();
    const app = createApp(
      {
        INGEST_SOURCE: 'replay',
        LETSBONK_PLATFORM_CONFIGS: ['FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1'],
        LIVE_CHECKPOINT_INTERVAL_MS: 1000,
        REPLAY_DIR: BUNDLED_RECORDING_DIR,
        REPLAY_TRANSACTIONS_PER_SECOND: 40,
        REPLAY_LOOP: true,
        TRADES_MAX_AGE_MS: 3_600_000,
        TRADES_DUPLICATE_WINDOW_MS: 120_000,
        TRADES_MAX_BYTES: 64 * 1024 * 1024,
        PUBLISH_MAX_BACKOFF_MS: 500,
        // A one-minute lease: only the fencing can stop this app within the test.
        INGEST_LEASE_MS: 60_000,
        INGEST_LEASE_RENEW_MS: 500,
      },
      { logger, registry, nc },
    );
    try {
      await app.start();
      // start() resolves as leader or standby: its first attempt may time out on a busy machine (a 250 ms
      // request timeout at this renewal period) and the next one, renewMs later, wins the vacant key.
      await until(() => app.leader());
      await until(async () => (await stored()) >= 10);

      // Another holder writes the key (as a standby would after our lease expired).
      const kv = await bucket();
      const intruder: LeaseValue = { holder: 'intruder', acquired_at_ms: Date.now(), renewed_at_ms: Date.now() };
      await kv.put('replay', JSON.stringify(intruder));
      await until(() => !app.leader());
      const gauge = (await registry.getSingleMetric('tradewind_ingest_leader')?.get())?.values[0]?.value;
      expect(gauge).toBe(0);
      // Publishing stopped with the step-down: at 40 transactions a second the count would grow by dozens.
      await new Promise((r) => setTimeout(r, 300)); // acknowledgements of publishes already in flight
      const atStepDown = await stored();
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await stored()).toBe(atStepDown);

      // The intruder releases (DEL): the app takes over again on the watch event and publishes again.
      const entry = await kv.get('replay');
      await kv.delete('replay', { previousSeq: entry!.revision });
      await until(() => app.leader());
      await until(async () => (await stored()) > atStepDown);
      const takeovers = (await registry.getSingleMetric('tradewind_ingest_leader_takeovers_total')?.get())?.values;
      expect(takeovers?.find((v) => v.labels.reason === 'released')?.value).toBe(1);
    } finally {
      await app.stop();
    }
    // Its stop released the lease.
    expect((await (await bucket()).get('replay'))?.operation).toBe('DEL');
  }, 30_000);
});
