/**
 * The staged-id wedge (docs/reliability.md "Which nats-server", issue 31) on a real 3-node cluster of the clusters'
 * nats-server, and ingest's remedy for it.
 *
 * nats-server stages a clustered stream's `Nats-Msg-Id` when its leader proposes the message and checks
 * `Nats-Expected-Last-Msg-Id` only when the entry is applied; a refusal there leaves the id staged (v2.10.27 to main,
 * `processJetStreamMsg`), so every re-send of that message is answered "duplicate, seq 0" (2.10) or 10158 "duplicate
 * message id is in process" (2.11 and newer) for the stream's duplicate window while that node leads: ingest's
 * publisher, whose re-sends after a broken chain are exactly such messages, stored nothing for up to 2 min (the
 * partition class at 19:09 on 29 Nov). A new leader holds no staged id of ours, so ingest asks the leader to step
 * down once such answers alone came for PUBLISH_STAGED_ID_STEPDOWN_MS (src/publisher.ts).
 *
 * The first case asserts the defect as it is in the version the clusters run: when an upgrade fixes it, it fails and
 * says that the remedy may go.
 */
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRADES_STREAM } from '@tradewind/contracts';
import {
  DEFAULT_PUBLISH_CONTENTION_HOLD_MS,
  DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS,
  OrderedPublisher,
  publisherMetrics,
  type OutgoingTrade,
  type PublisherMetrics,
} from '@tradewind/ingest';
import { connectNats, createLogger, type NatsConnection } from '@tradewind/lib';
import { natsServerVersion } from '../lib/cluster-nats-server.js';
import { clusterNatsServerBin } from '../lib/cluster-nats-server.js';
import { startNatsCluster, waitForMetaGroup, type NatsCluster } from '../reliability/chaos/nats-cluster.js';
import { createReplicatedTrades, until } from '../reliability/chaos/stream.js';

const SUBJECT = 'basic.pumpfun';
/** 1 s per publish: on loopback an answer takes milliseconds, so a timeout means none is coming. */
const PUBLISH_TIMEOUT_MS = 1_000;

/** The answer to a publish, as text: `stored at <seq>`, `duplicate of <seq>`, or the error with its code. */
async function answer(p: Promise<{ seq: number; duplicate: boolean }>): Promise<string> {
  try {
    const ack = await p;
    return ack.duplicate ? `duplicate of ${ack.seq}` : `stored at ${ack.seq}`;
  } catch (err) {
    return `error ${String((err as { code?: unknown }).code ?? '')}: ${String(err)}`;
  }
}

describe('a message id refused when applied (3-node cluster, R3 TRADES)', () => {
  let cluster: NatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const version = natsServerVersion(clusterNatsServerBin());

  beforeAll(async () => {
    // A fresh 2.10 cluster under the suite's load sometimes forms its meta group without one node (docs/reliability.md
    // "Known limits"): started again, up to three times.
    for (let attempt = 1; ; attempt++) {
      cluster = await startNatsCluster({ name: 'tw-staged' });
      const formed = await waitForMetaGroup(cluster.nodes, 20_000).then(
        () => null,
        (err: unknown) => err,
      );
      if (formed === null) break;
      await cluster.stop();
      if (attempt === 3) throw formed;
    }
    nc = await until('the cluster to accept a client', 20_000, () => connectNats({ url: cluster.urls, name: 'staged-id-test' }));
    jsm = await jetstreamManager(nc, { checkAPI: false });
    await until('TRADES with 3 replicas', 30_000, () => createReplicatedTrades(jsm, 3).then(() => true));
  }, 120_000);

  afterAll(async () => {
    await nc?.close().catch(() => undefined);
    await cluster?.stop();
  });

  /** Stores `id` as the stream's newest message (retried: the first publishes may meet the leader's election). */
  const store = (id: string) => until(`${id} stored`, 20_000, () => jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }).publish(SUBJECT, id, { msgID: id }));

  /** Stages `id`: a publish whose expectation names a message id the stream's last is not, refused when applied. */
  async function stage(id: string, last: string): Promise<void> {
    const js = jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS });
    expect(await answer(js.publish(SUBJECT, id, { msgID: id, expect: { lastMsgID: `not-${last}` } }))).toMatch(new RegExp(`10070.*wrong last msg ID: ${last}`));
  }

  async function leader(): Promise<string> {
    return until('a TRADES leader', 20_000, async () => (await jsm.streams.info(TRADES_STREAM)).cluster?.leader);
  }

  it(`nats-server ${version} still answers every re-send of a refused message id as a duplicate of nothing while the same node leads`, async () => {
    const before = await store('w1');
    await stage('w2', 'w1');
    const js = jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS });
    // The same message again, now with the right expectation: it should be stored at before.seq + 1.
    for (let i = 0; i < 3; i++) {
      const a = await answer(js.publish(SUBJECT, 'w2', { msgID: 'w2', expect: { lastMsgID: 'w1' } }));
      expect(a, 'when this fails, nats-server no longer keeps refused ids staged: the step-down remedy (PUBLISH_STAGED_ID_STEPDOWN_MS) may go').toMatch(
        /^duplicate of 0$|10158/,
      );
    }
    expect((await jsm.streams.info(TRADES_STREAM)).state.last_seq).toBe(before.seq);
    // A new leader holds no staged id: the same re-send is stored.
    const old = await leader();
    await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${TRADES_STREAM}`, '', { timeout: 2_000 });
    await until('another TRADES leader', 20_000, async () => ((await leader()) !== old ? true : null));
    const stored = await until('the re-send stored by the new leader', 20_000, async () => {
      const a = await answer(js.publish(SUBJECT, 'w2', { msgID: 'w2', expect: { lastMsgID: 'w1' } }));
      return a.startsWith('stored') ? a : null;
    });
    expect(stored).toBe(`stored at ${before.seq + 1}`);
  }, 90_000);

  it("when ingest's publisher meets a staged id, then it has the leader step down and stores the trade once, within seconds", async () => {
    await store('p1');
    await stage('p2', 'p1');
    const registry = new Registry();
    const metrics = publisherMetrics(registry);
    const abort = new AbortController();
    const publisher = new OrderedPublisher({
      js: jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }),
      nc,
      logger: createLogger({ service: 'staged-id-test', level: 'silent' }),
      metrics,
      maxInFlight: 64,
      ackTimeoutMs: 2_000,
      maxBackoffMs: 500,
      signal: abort.signal,
      leaderSignals: { nc, stream: TRADES_STREAM },
      stagedIdStepdownMs: 1_000,
    });
    try {
      const trade = (msgId: string): OutgoingTrade => ({ subject: SUBJECT, msgId, message: { msg: msgId } as unknown as OutgoingTrade['message'] });
      const started = Date.now();
      // p2 is staged on the leader: before the remedy, nothing was stored for the duplicate window (2 min).
      await publisher.enqueue([trade('p2'), trade('p3')]);
      expect(await Promise.race([publisher.drained(), new Promise((r) => setTimeout(() => r('not drained in 15 s'), 15_000))])).toBe(true);
      const tookMs = Date.now() - started;
      expect(tookMs).toBeLessThan(15_000);
      expect((await metrics.stepdowns.get()).values[0]?.value).toBeGreaterThanOrEqual(1);
      // Stored once each, in order, right after p1.
      const last = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
      const tail = await Promise.all([last - 2, last - 1, last].map((seq) => jsm.streams.getMessage(TRADES_STREAM, { seq })));
      expect(tail.map((m) => m?.header?.get('Nats-Msg-Id'))).toEqual(['p1', 'p2', 'p3']);
    } finally {
      abort.abort();
    }
  }, 90_000);

  it('when two publishers write at once (two ingests), then each stores every trade once and in its order, within seconds, with at most three step-downs in all', async () => {
    const abort = new AbortController();
    const publisher = (name: string, metrics: PublisherMetrics) =>
      new OrderedPublisher({
        js: jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }),
        nc,
        logger: createLogger({ service: `two-writers-${name}`, level: 'silent' }),
        metrics,
        maxInFlight: 1_024,
        ackTimeoutMs: 2_000,
        maxBackoffMs: 500,
        signal: abort.signal,
        leaderSignals: { nc, stream: TRADES_STREAM },
        stagedIdStepdownMs: DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS,
        contentionHoldMs: DEFAULT_PUBLISH_CONTENTION_HOLD_MS,
      });
    const metrics = { fast: publisherMetrics(new Registry()), slow: publisherMetrics(new Registry()) };
    const fast = publisher('fast', metrics.fast);
    const slow = publisher('slow', metrics.slow);
    const first = (await jsm.streams.info(TRADES_STREAM)).state.last_seq + 1;
    const trade = (msgId: string): OutgoingTrade => ({ subject: SUBJECT, msgId, message: { msg: msgId } as unknown as OutgoingTrade['message'] });
    /** Enqueues `count` trades `<name>-<i>`, `perTurn` at a time, `gapMs` apart, then waits until they are acknowledged. */
    const write = async (p: OrderedPublisher, name: string, count: number, perTurn: number, gapMs: number) => {
      for (let i = 0; i < count; i += perTurn) {
        if (!(await p.enqueue(Array.from({ length: perTurn }, (_, k) => trade(`${name}-${i + k}`))))) return false;
        await new Promise((r) => setTimeout(r, gapMs));
      }
      return p.drained();
    };
    try {
      // A replay's backlog, as fast as TRADES takes it (the window never empties: every publish chained), beside a live
      // source of 10 trades a second.
      const started = Date.now();
      const both = await Promise.race([
        Promise.all([write(fast, 'fast', 3_000, 50, 0), write(slow, 'slow', 60, 1, 100)]),
        new Promise((r) => setTimeout(() => r('not drained in 30 s'), 30_000)),
      ]);
      expect(both).toEqual([true, true]);
      const tookMs = Date.now() - started;
      const stored: string[] = [];
      const last = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
      for (let seq = first; seq <= last; seq++) stored.push(String((await jsm.streams.getMessage(TRADES_STREAM, { seq }))?.header?.get('Nats-Msg-Id')));
      for (const [name, count] of [
        ['fast', 3_000],
        ['slow', 60],
      ] as const) {
        const mine = stored.filter((id) => id.startsWith(`${name}-`)).map((id) => Number(id.slice(name.length + 1)));
        expect(mine, `${name}: every trade once, in order`).toEqual(Array.from({ length: count }, (_, i) => i));
      }
      const counter = async (m: PublisherMetrics, name: 'stepdowns' | 'contentions') => (await m[name].get()).values[0]?.value ?? 0;
      const stepdowns = (await counter(metrics.fast, 'stepdowns')) + (await counter(metrics.slow, 'stepdowns'));
      // Both writers interleaved (else this tested one writer), and went serial on seeing the other.
      expect(new Set(stored.slice(stored.findIndex((id) => id.startsWith('slow-'))).map((id) => id.split('-')[0]))).toEqual(new Set(['fast', 'slow']));
      expect((await counter(metrics.fast, 'contentions')) + (await counter(metrics.slow, 'contentions'))).toBeGreaterThanOrEqual(1);
      // A collision before a writer went serial costs one step-down (its refused ids staged); a leader that answers "seq 0"
      // for proposals in flight after an election may cost one more. Without the serial mode and the blind first attempts,
      // two writers asked for one every interval (the chaos runs of 29–30 Nov); without any remedy, nothing drains in 30 s.
      expect(stepdowns, `step-downs in ${tookMs} ms`).toBeLessThanOrEqual(3);
    } finally {
      abort.abort();
    }
  }, 90_000);
});
