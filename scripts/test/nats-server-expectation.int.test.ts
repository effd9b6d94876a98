/**
 * Why the chart deploys nats-server below 2.14 (charts/tradewind/Chart.yaml; docs/reliability.md "Which
 * nats-server"): ingest's ordered publisher chains its publishes with `Nats-Expected-Last-Msg-Id`, and a failover
 * or a second writer makes TRADES refuse one (docs/decoding.md "Publishing"). Up to 2.13 the refusal is an
 * answer and the stream goes on. From 2.14.0 every replica of an R3 stream fails applying the refused entry
 * ("critical write error: last msgid mismatch") and the stream takes no publish any more: `npm run chaos` on
 * 2.15.1 saw TRADES stop as soon as the replay and the live ingest both published.
 *
 * Both servers run here: the clusters' (Debian 13's 2.10) and a 2.14-or-newer one (Debian testing's,
 * scripts/lib/cluster-nats-server.ts). When an upgrade fixes the newer one, its case fails: the chart may then
 * move on.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectNats, type NatsConnection } from '@tradewind/lib';
import { clusterNatsServerBin, isHaltingVersion, natsServerVersion } from '../lib/cluster-nats-server.js';
import { startNatsCluster, waitForMetaGroup, type NatsCluster } from '../reliability/chaos/nats-cluster.js';
import { until } from '../reliability/chaos/stream.js';

describe('a publish naming a wrong last message id on an R3 stream', () => {
  let cluster: NatsCluster | undefined;
  let nc: NatsConnection | undefined;
  afterEach(async () => {
    await nc?.close().catch(() => undefined);
    await cluster?.stop();
    nc = undefined;
    cluster = undefined;
  });

  const servers = [
    { label: "the clusters' nats-server", bin: clusterNatsServerBin() },
    { label: 'nats-server 2.14 or newer', bin: process.env.NATS_TESTING_SERVER_BIN ?? '' },
  ];
  for (const { label, bin } of servers) {
    const version = natsServerVersion(bin);
    const halts = isHaltingVersion(version);
    it(`on ${label} (${version}), then it is refused and ${halts ? 'the stream takes no publish after it' : 'the stream goes on'}`, async () => {
      expect(version, `no nats-server at ${bin}`).not.toBeNull();
      // A fresh 2.10 cluster under the suite's load sometimes forms its meta group without one node and leaves it
      // out for over a minute (docs/reliability.md): the fixture is started again, up to three times; what is
      // tested is the stream's answer, not the cluster's formation.
      for (let attempt = 1; ; attempt++) {
        cluster = await startNatsCluster({ name: 'tw-expect', bin });
        const formed = await waitForMetaGroup(cluster.nodes, 20_000).then(
          () => null,
          (err: unknown) => err,
        );
        if (formed === null) break;
        await cluster.stop();
        cluster = undefined;
        if (attempt === 3) throw formed;
      }
      const c = cluster;
      nc = await until('the cluster to accept a client', 20_000, () => connectNats({ url: c.urls, name: 'expectation-test' }));
      const jsm = await jetstreamManager(nc, { checkAPI: false });
      await until('an R3 stream', 30_000, () => jsm.streams.add({ name: 'EXPECT', subjects: ['expect.>'], num_replicas: 3 }));
      // 1 s per publish: on loopback an answer takes milliseconds, so a timeout means none is coming.
      const js = jetstream(nc, { timeout: 1_000 });
      await until('the first publish', 15_000, () => js.publish('expect.a', 'a', { msgID: 'a' }));
      expect((await js.publish('expect.b', 'b', { msgID: 'b', expect: { lastMsgID: 'a' } })).seq).toBe(2);
      // The refusal itself is the same on both: the answer names the stream's last message id.
      await expect(js.publish('expect.c', 'c', { msgID: 'c', expect: { lastMsgID: 'a' } })).rejects.toThrow(/wrong last msg ID: b/);
      const next = () =>
        js.publish('expect.d', 'd', { msgID: 'd' }).then(
          (ack) => `stored at ${ack.seq}`,
          (err: unknown) => String(err),
        );
      if (!halts) {
        // Retried on a busy machine (the same Nats-Msg-Id: a late first attempt makes the retry a duplicate of seq 3).
        expect(await until('the next publish', 10_000, async () => (await js.publish('expect.d', 'd', { msgID: 'd' })).seq)).toBe(3);
        return;
      }
      // Not a pause: still nothing stored seconds later, and every replica logged the entry it could not apply.
      expect(await next()).toMatch(/timeout/i);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await next()).toMatch(/timeout/i);
      const logs = await Promise.all(c.nodes.map((n) => n.logTail(200)));
      expect(logs.filter((l) => /critical write error: last msgid mismatch/.test(l))).toHaveLength(c.nodes.length);
    }, 90_000);
  }
});
