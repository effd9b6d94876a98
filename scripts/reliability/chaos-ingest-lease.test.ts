/**
 * ingest's leader lease (services/ingest/src/leader-lease.ts) when the node leading its KV bucket is
 * SIGKILLed on a real 3-node cluster (issue 31). `npm run chaos` saw the publishing ingest stop for
 * 10–15 s in 3 of 10 TRADES leader kills: the lease bucket's leader was on the killed node, the leader
 * could not renew during the election, stepped down as "unreachable" and a new term had to start.
 * Now a leader whose NATS server still answers keeps its term through the election, and a standby
 * counts only time in which the bucket answered: neither steps down nor takes over, and the leader
 * renews as soon as the bucket has a leader again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { Registry } from 'prom-client';
import { createLogger } from '@tradewind/lib';
import { LEADER_BUCKET, leaderMetrics, openLeaderLease, type LeaderLease, type LeaseValue } from '@tradewind/ingest';
import { restartNode, startNatsCluster, waitForMetaGroup, type NatsCluster } from './chaos/nats-cluster.js';
import { until } from './chaos/stream.js';

const LEASE_MS = 1_500;
const RENEW_MS = 400;
const logger = createLogger({ service: 'chaos-ingest-lease', level: 'silent' });

describe('ingest leader lease when the node leading its bucket is killed (3-node cluster, R3 bucket)', () => {
  let cluster: NatsCluster;
  const connections: NatsConnection[] = [];
  const leases: LeaderLease[] = [];

  beforeAll(async () => {
    cluster = await startNatsCluster({ name: 'tw-ingest-lease' });
  }, 60_000);

  afterAll(async () => {
    for (const l of leases) await l.release();
    for (const nc of connections) await nc.close().catch(() => undefined);
    await cluster?.stop();
  });

  async function contender(url: string, events: string[]): Promise<LeaderLease> {
    const nc = await until(`a connection to ${url}`, 20_000, () => connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 250 }));
    connections.push(nc);
    const lease = await until('the lease bucket', 30_000, () =>
      openLeaderLease({
        nc,
        key: 'yellowstone',
        leaseMs: LEASE_MS,
        renewMs: RENEW_MS,
        replicas: 3,
        logger,
        metrics: leaderMetrics(new Registry()),
        onElected: (reason) => events.push(`elected:${reason}`),
        onDeposed: (reason) => events.push(`deposed:${reason}`),
      }),
    );
    leases.push(lease);
    return lease;
  }

  it('then the leader keeps publishing through the election (no step-down, no takeover) and renews once the bucket has a leader again', async () => {
    const admin = await until('the cluster', 20_000, () => connect({ servers: cluster.urls.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 }));
    connections.push(admin);
    const jsm = await until('JetStream', 30_000, () => jetstreamManager(admin, { checkAPI: false }));
    // The meta group must know every node before an R3 stream or bucket can be placed on all of them (waitForMetaGroup).
    await waitForMetaGroup(cluster.nodes, 60_000, undefined, (name) => restartNode(cluster, name));
    // Create the bucket, then put both contenders on the two nodes that do not lead it.
    await until('the R3 lease bucket', 30_000, () => new Kvm(admin).create(LEADER_BUCKET, { history: 1, replicas: 3 }).then(() => true), 500);
    const stream = `KV_${LEADER_BUCKET}`;
    const bucketLeader = await until('the bucket leader', 15_000, async () => (await jsm.streams.info(stream)).cluster?.leader);
    const others = cluster.nodes.filter((n) => n.name !== bucketLeader);
    const aEvents: string[] = [];
    const bEvents: string[] = [];
    const a = await contender(others[0]!.url, aEvents);
    await a.start();
    expect(a.isLeader).toBe(true);
    const b = await contender(others[1]!.url, bEvents);
    await b.start();
    expect(b.isLeader).toBe(false);

    const watcher = await until('a connection to a survivor', 10_000, () => connect({ servers: others[1]!.url }));
    connections.push(watcher);
    const kv = await new Kvm(watcher).open(LEADER_BUCKET);
    const before = (await kv.get('yellowstone'))!;
    expect(before.json<LeaseValue>().holder).toBe(a.holder);

    const killedAt = Date.now();
    await cluster.kill(bucketLeader!);
    // The leader's next renewal lands once the survivors elected a leader for the bucket.
    const renewed = await until(
      'a renewal after the kill',
      45_000,
      async () => {
        const e = await kv.get('yellowstone').catch(() => null);
        return e && e.revision > before.revision ? e : null;
      },
      100,
    );
    const renewedAfterMs = Date.now() - killedAt;
    // Two more lease lengths: a standby that counted the election as silence would take over here.
    await new Promise((r) => setTimeout(r, 2 * LEASE_MS));

    // The test means something only when the election outlasted the leader's old fence deadline.
    expect(renewedAfterMs).toBeGreaterThan(LEASE_MS - RENEW_MS);
    expect(renewed.json<LeaseValue>().holder).toBe(a.holder);
    expect(aEvents).toEqual(['elected:vacant']);
    expect(bEvents).toEqual([]);
    expect(a.isLeader).toBe(true);
    expect(b.isLeader).toBe(false);
    await cluster.restart(bucketLeader!);
  }, 120_000);
});
