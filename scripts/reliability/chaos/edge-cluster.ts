/**
 * Fault injection where the stream and the WebSocket edge meet (issue 24, fault 1 end to end): a
 * 3-node JetStream cluster in operator mode (TRADES with 3 replicas, as the chart deploys it), two
 * ws-fanout processes from their real entry point connected to it, WebSocket subscribers (half Pro,
 * half Starter) on both, and a publisher that retries with the same Nats-Msg-Id. The TRADES stream
 * leader is SIGKILLed while trades flow; every subscriber stays on its WebSocket connection and must
 * receive every stored trade once, in order: ws-fanout's feeds find their way to the new leader.
 *
 * ws-fanout runs with its shipped settings (WS_FEED_STALL_CHECK_MS default) and every node's URL
 * in NATS_URL (the nodes do not advertise each other): the recovery time published is what a customer sees.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM, type PlanId } from '@tradewind/contracts';
import { ensureNatsIdentities, renderNatsAuthConfig } from '@tradewind/credential-issuer';
import { connectNats, type NatsConnection } from '@tradewind/lib';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';
import { awaitAll, createCustomer, errText, maxSeq, Publisher, subscribe, tallyAll, type Subscriber } from './edge.js';
import { type FanoutProcess, sleep, startFanout } from './edge-ws.js';
import { restartNode, startNatsCluster, waitForMetaGroup, type NatsCluster } from './nats-cluster.js';
import { startRestartableRedis, type RestartableRedis } from './redis-server.js';
import {
  placeReplicatedTrades,
  prng,
  readerBaseline,
  RECOVERY_DEADLINE_MS,
  RECOVERY_OVER_BROKER_MS,
  settleTradesReplicas,
  until,
  type KillRecovery,
} from './stream.js';
import { brokerRecoveryMs, probeMessage } from './broker-probe.js';

/** Sizes of one run. */
interface ClusterEdgeSizes {
  /** Stream-leader SIGKILL rounds (the killed node is restarted and current before the next). */
  readonly kills: number;
  /** WebSocket subscribers per round, alternately on each ws-fanout, half Pro and half Starter. */
  readonly subscribers: number;
  /** Publishing interval, ms. */
  readonly publishEveryMs: number;
  /** Streaming before the kill and after the recovery, ms. */
  readonly streamMs: number;
  /** Random extra wait before each kill, up to this many ms (from the seed). */
  readonly jitterMs: number;
}

const SIZES: Record<ReliabilityScale, ClusterEdgeSizes> = {
  test: { kills: 1, subscribers: 4, publishEveryMs: 10, streamMs: 300, jitterMs: 200 },
  full: { kills: 10, subscribers: 10, publishEveryMs: 5, streamMs: 2_000, jitterMs: 1_000 },
};

/** The row's name (docs/reliability.md). */
export const CLUSTER_EDGE_FAULT = 'NATS TRADES stream leader killed (SIGKILL) under ws-fanout: WebSocket subscribers, 3-node operator-mode cluster, R3';

/**
 * Runs the fault at `scale` and returns its row. Starts the cluster, Redis and two ws-fanout
 * processes on free loopback ports with a temporary state directory, and removes all of them.
 * Recovery per round: from the kill until every subscriber has received the first trade the
 * publisher got acknowledged after the kill. A round with no such delivery within
 * RECOVERY_DEADLINE_MS counts as crashed (a hang), as does a ws-fanout or nats-server that died by itself.
 * @throws Error only when the set-up cannot run (a server does not start, the stream cannot be created).
 */
export async function runClusterEdgeChaos(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow> {
  const sizes = SIZES[scale];
  const random = prng(seed);
  const acc = { lost: 0, duplicated: 0, notes: [] as string[] };
  let crashed = 0;
  let tried = 0;
  let recoveryMs: number | null = null;
  const kills: KillRecovery[] = [];
  const cleanup: Array<() => Promise<unknown>> = [];
  const stateDir = await mkdtemp(join(tmpdir(), 'tw-chaos-cluster-edge-'));
  cleanup.push(() => rm(stateDir, { recursive: true, force: true }));
  let cluster: NatsCluster | undefined;
  let redis: RestartableRedis | undefined;
  const fanouts: FanoutProcess[] = [];
  const killChildren = () => {
    for (const f of fanouts) f.proc.kill('SIGKILL');
  };
  process.once('exit', killChildren);
  try {
    const identities = await ensureNatsIdentities(stateDir);
    cluster = await startNatsCluster({ name: 'tw-chaos-ws', operatorConfig: renderNatsAuthConfig(identities) });
    const c = cluster;
    cleanup.push(() => c.stop());
    const connect = (creds: string, name: string) => until(`the cluster to accept ${name}`, 20_000, () => connectNats({ url: c.urls, creds, name }));
    const nc: NatsConnection = await connect(identities.service_user_creds, 'chaos-cluster-edge');
    cleanup.push(() => nc.close());
    const sysNc: NatsConnection = await connect(identities.system_user_creds, 'chaos-cluster-edge-sys');
    cleanup.push(() => sysNc.close());
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    // The meta group must know every node before an R3 stream or bucket can be placed on all of them (waitForMetaGroup).
    await waitForMetaGroup(
      c.nodes,
      60_000,
      () => sysNc.publish('$SYS.REQ.SERVER.PING.STATSZ'),
      (name) => restartNode(c, name),
    );
    await until('JetStream meta leader and TRADES R3', 30_000, () => placeReplicatedTrades(jsm, sysNc, c.nodes.length).then(() => true), 500);
    const js = jetstream(nc);
    redis = await startRestartableRedis();
    const r = redis;
    cleanup.push(() => r.stop(true));
    const env = { natsUrl: c.urls, natsStateDir: stateDir, redisUrl: r.url };
    cleanup.push(() => Promise.all(fanouts.map((f) => f.stop('SIGKILL'))));
    fanouts.push(...(await Promise.all(['ws-fanout-a', 'ws-fanout-b'].map((n) => startFanout(n, env)))));

    for (let round = 0; round < sizes.kills; round++) {
      const publisher = new Publisher(js, sizes.publishEveryMs, `cluster-${seed}-${round}`, { nc });
      const subs: Subscriber[] = [];
      let killed: string | undefined;
      try {
        for (let i = 0; i < sizes.subscribers; i++) {
          const plan: PlanId = i % 2 === 0 ? 'pro' : 'starter';
          const customer = await createCustomer(identities, sysNc, plan);
          subs.push(await subscribe((fanouts[i % fanouts.length] as FanoutProcess).url, await customer.user(), plan));
        }
        await sleep(sizes.streamMs + random() * sizes.jitterMs);
        const info = await until('a TRADES leader', 15_000, () => jsm.streams.info(TRADES_STREAM).then((i) => (i.cluster?.leader ? i : null)));
        const leader = info.cluster!.leader!;
        const probe = await until('a stored trade to probe with', 15_000, () => probeMessage(jsm));
        const survivors = c.nodes.filter((n) => n.name !== leader).map((n) => n.url);
        const killMs = Date.now();
        await c.kill(leader);
        killed = leader;
        tried++;
        // The broker's own time, measured beside the clients (on the survivors, with the service's credentials).
        const brokerMs = brokerRecoveryMs(survivors, probe, killMs, RECOVERY_DEADLINE_MS, { creds: identities.service_user_creds });
        // The first trade sent after the kill and acknowledged was stored by the new leader; every subscriber must get it.
        const target = await until('a trade acknowledged after the kill', RECOVERY_DEADLINE_MS, () => publisher.firstSentAfter(killMs), 20).catch(() => null);
        const reached =
          target === null
            ? false
            : await Promise.all(
                subs.map((s) => s.client.until(() => maxSeq(s) >= target, Math.max(1, killMs + RECOVERY_DEADLINE_MS - Date.now()), 'recovery')),
              ).then(
                () => true,
                () => false,
              );
        if (reached) {
          const ms = Date.now() - killMs;
          recoveryMs = Math.max(recoveryMs ?? 0, ms);
          const broker = await brokerMs;
          const kill: KillRecovery = { brokerMs: broker.publishMs, consumerMs: broker.consumerMs, subscriberMs: ms, publisherMs: null };
          kills.push(kill);
          if (broker.stored)
            acc.notes.push(
              `round ${round}: the broker probe's re-publish of seq ${broker.stored.probeSeq} was stored at seq ${broker.stored.storedSeq}: the new TRADES leader had lost acknowledged messages`,
            );
          const base = readerBaseline(kill);
          if (base !== null && ms - base > RECOVERY_OVER_BROKER_MS) {
            crashed++;
            acc.notes.push(`round ${round}: the WebSocket subscribers recovered ${ms - base} ms after the broker (bound ${RECOVERY_OVER_BROKER_MS} ms)`);
          }
        } else {
          crashed++;
          const broker = await brokerMs;
          if (broker.stored)
            acc.notes.push(
              `round ${round}: the broker probe's re-publish of seq ${broker.stored.probeSeq} was stored at seq ${broker.stored.storedSeq}: the new TRADES leader had lost acknowledged messages`,
            );
          acc.notes.push(
            `round ${round}: no ${target === null ? 'publish acknowledged' : `delivery of seq ${target} to every subscriber`} within ${RECOVERY_DEADLINE_MS} ms of killing ${leader} (hang); subscribers at ${subs.map(maxSeq).join(',')}`,
          );
        }
        await c.restart(leader);
        if (!(await settleTradesReplicas(jsm, c, acc.notes, identities.tradewind.identity.public_key)))
          acc.notes.push(`round ${round}: ${leader} not current within 30 s of its restart`);
        await sleep(sizes.streamMs);
      } catch (err) {
        crashed++;
        acc.notes.push(`round ${round}: ${errText(err)}`);
        if (killed && !c.nodes.find((n) => n.name === killed)?.running()) await c.restart(killed).catch(() => undefined);
      } finally {
        const last = await publisher.stop();
        await awaitAll(subs, last, 15_000);
        tallyAll(subs, last, acc, `round ${round}`);
        for (const s of subs) s.client.close(true);
        if (publisher.errors > 0) acc.notes.push(`round ${round}: ${publisher.errors} publish attempt(s) failed and were retried with the same Nats-Msg-Id`);
      }
    }
    for (const f of fanouts) {
      if (f.alive()) continue;
      crashed++;
      acc.notes.push(`${f.name} died by itself (${f.proc.exitCode ?? f.proc.signalCode}): ${f.output().replaceAll('\n', ' ').slice(-400)}`);
    }
    const nodeCrashes = c.nodes.reduce((n, x) => n + x.unexpectedExits(), 0);
    if (nodeCrashes > 0) {
      crashed += nodeCrashes;
      acc.notes.push(`${nodeCrashes} nats-server exit(s) not caused by the test`);
    }
  } finally {
    process.off('exit', killChildren);
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => process.stderr.write(`[chaos-cluster-edge] cleanup: ${errText(err)}\n`));
  }
  return {
    name: CLUSTER_EDGE_FAULT,
    tried,
    lost: acc.lost,
    duplicated: acc.duplicated,
    crashed,
    recoveryMs,
    notes: [
      `seed ${seed}; ${sizes.subscribers} WebSocket subscribers/round on 2 ws-fanout processes (half Pro, half Starter), a trade every ${sizes.publishEveryMs} ms`,
      'recovered = every subscriber received the first trade sent after the kill and acknowledged, on the connection it had (no reconnect); broker = on a connection to the surviving nodes, TRADES acknowledges a re-publish of a message stored seconds before the kill (duplicate, nothing stored) and a consumer on TRADES can be created; the publisher re-sends at once on a leader election (as ingest does)',
      `per kill, ms after it: TRADES accepts a publish ${kills.map((k) => k.brokerMs ?? '—').join('/')}, a consumer can be created ${kills.map((k) => k.consumerMs ?? '—').join('/')}; every WebSocket subscriber ${kills.map((k) => k.subscriberMs ?? '—').join('/')}; bound: subscribers ≤ the later of the two + ${RECOVERY_OVER_BROKER_MS} ms`,
      ...acc.notes,
    ].join('; '),
  };
}
