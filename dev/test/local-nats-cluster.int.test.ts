/**
 * startLocalNats with clusterSize 3 (what `npm start -- --nats-cluster` runs): three operator-mode
 * nats-server processes routed on loopback form one JetStream cluster, the service user can create
 * a stream with 3 replicas on it, and stop() leaves no node running.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, type NatsConnection } from '@tradewind/lib';
import { freePort, startLocalNats, type LocalNats } from '@tradewind/dev';

let stateDir: string;
let nats: LocalNats;
let nc: NatsConnection | undefined;

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-local-nats-cluster-'));
  nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort(), clusterSize: 3 });
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

/** Polls `probe` every 200 ms until it returns a value; throws after `ms`. */
async function eventually<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    const value = await probe().catch((err: unknown) => {
      last = err;
      return undefined;
    });
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not within ${ms} ms${last ? ` (${String(last)})` : ''}`);
}

describe('startLocalNats({ clusterSize: 3 })', () => {
  it('when three nodes start, then they form one JetStream cluster in operator mode and hold a stream with 3 replicas', async () => {
    expect(nats.processes).toHaveLength(3);
    expect(nats.urls.split(',')).toHaveLength(3);
    expect(nats.urls.split(',')[0]).toBe(nats.url);
    // startLocalNats returned only once the JetStream meta group holds all three nodes with a leader
    // (asserted at once, no polling: a service may send a stream request right away).
    const jsz = (await (await fetch(`${nats.monitorUrl}/jsz`)).json()) as { meta_cluster?: { cluster_size?: number; leader?: string } };
    expect(jsz.meta_cluster?.cluster_size).toBe(3);
    expect(jsz.meta_cluster?.leader).toBeTruthy();
    const routez = (await (await fetch(`${nats.monitorUrl}/routez`)).json()) as { num_routes: number };
    expect(routez.num_routes).toBeGreaterThanOrEqual(2);

    // Operator mode: the service user of the state directory's identities is admitted; no credentials is not.
    await expect(connectNats({ url: nats.urls, name: 'anonymous' })).rejects.toThrow();
    nc = await connectNats({ url: nats.urls, creds: nats.identities.service_user_creds, name: 'cluster-check' });
    // One create request: with the meta group formed, a 3-replica stream is placed at once (no retry).
    type StreamReply = { error?: { description: string }; cluster?: { leader?: string; replicas?: unknown[] } };
    const reply = await nc.request(
      '$JS.API.STREAM.CREATE.CLUSTER_CHECK',
      JSON.stringify({ name: 'CLUSTER_CHECK', subjects: ['cluster.check'], num_replicas: 3 }),
      {
        timeout: 5_000,
      },
    );
    expect(reply.json<StreamReply>().error).toBeUndefined();
    // The stream's own group then elects its leader.
    const created = await eventually(10_000, async () => {
      const info = (await nc!.request('$JS.API.STREAM.INFO.CLUSTER_CHECK', '', { timeout: 5_000 })).json<StreamReply>();
      return info.cluster?.leader ? info.cluster : undefined;
    });
    expect(created.replicas).toHaveLength(2);
  }, 90_000);

  it('when stopped, then no node is left running', async () => {
    await nc?.close();
    nc = undefined;
    await nats.stop();
    expect(nats.processes.every((p) => p.exitCode !== null || p.signalCode !== null)).toBe(true);
  });
});
