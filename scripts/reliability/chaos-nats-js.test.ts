/**
 * nats.js faults we work around, each reproduced alone against real nats-server processes (issue 31,
 * docs/reliability.md "nats.js after a node dies"). Each "nats.js still …" case asserts the fault as it
 * is in the nats.js version we ship: when an upgrade fixes it, that case fails and says which
 * workaround can go. Each "ws-fanout …" case proves the workaround on the same fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { createLogger, ensureTradesStream } from '@tradewind/lib';
import { FEED_CONSUMER_PREFIX, TradeFeeds } from '@tradewind/ws-fanout';
import { restartNode, startNatsCluster, waitForMetaGroup, type NatsCluster } from './chaos/nats-cluster.js';
import { createReplicatedTrades, until } from './chaos/stream.js';

const SUBJECT = 'basic.pumpfun';
/** How long the ordered consumer is given to resume after the stream accepts publishes again, ms: far beyond its 2 × 500 ms heartbeats. */
const GRACE_MS = 8_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NATS_JS_VERSION = '@nats-io/jetstream 3.3.1';

/** Publishes to SUBJECT every 10 ms with unique ids, retrying each until stored; `acked` = the last stored sequence. */
function publishLoop(nc: NatsConnection) {
  const js = jetstream(nc, { timeout: 500 });
  const state = { acked: 0, ackedAt: 0, stop: false };
  const done = (async () => {
    for (let n = 0; !state.stop; n++) {
      for (;;) {
        if (state.stop) return;
        try {
          state.acked = (await js.publish(SUBJECT, JSON.stringify({ n }), { msgID: `p-${n}` })).seq;
          state.ackedAt = Date.now();
          break;
        } catch {
          await sleep(50);
        }
      }
      await sleep(10);
    }
  })();
  return {
    state,
    stop: async () => {
      state.stop = true;
      await done;
    },
  };
}

/** The node that hosts consumer `name` of TRADES. */
async function hostOf(jsm: JetStreamManager, name: string): Promise<string> {
  return until(`the node of consumer ${name}`, 15_000, async () => (await jsm.consumers.info(TRADES_STREAM, name)).cluster?.leader);
}

describe('nats.js ordered consumer when the node hosting it dies (3-node cluster, R3 TRADES)', () => {
  let cluster: NatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let publisher: ReturnType<typeof publishLoop>;

  beforeAll(async () => {
    cluster = await startNatsCluster({ name: 'tw-nats-js' });
    const c = cluster;
    nc = await until('the cluster', 20_000, () => connect({ servers: c.urls.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 }));
    jsm = await until('JetStream', 30_000, () => jetstreamManager(nc, { checkAPI: false }));
    await waitForMetaGroup(c.nodes, 60_000, undefined, (name) => restartNode(c, name));
    await until('TRADES R3', 30_000, () => createReplicatedTrades(jsm, 3).then(() => true), 500);
    publisher = publishLoop(nc);
    await until('the first trade', 15_000, () => publisher.state.acked > 0);
  }, 90_000);

  afterAll(async () => {
    await publisher?.stop();
    await nc?.close();
    await cluster?.stop();
  });

  /** Kills the node hosting consumer `name`, waits until TRADES stores a publish sent after the kill and `graceMs` more; restarts the node. */
  async function killHostOf(name: string, graceMs: number): Promise<{ killMs: number; storedAgainMs: number; node: string }> {
    const node = await hostOf(jsm, name);
    const killMs = Date.now();
    await cluster.kill(node);
    await until('TRADES to store again', 30_000, () => publisher.state.ackedAt > killMs + 100, 50);
    const storedAgainMs = Date.now();
    await sleep(graceMs);
    await cluster.restart(node);
    return { killMs, storedAgainMs, node };
  }

  it(`nats.js still (${NATS_JS_VERSION}): its ordered consumer delivers nothing more after the node hosting it is SIGKILLed, while TRADES stores new trades (its reset never succeeds)`, async () => {
    const oc = await jetstream(nc).consumers.get(TRADES_STREAM, { filter_subjects: SUBJECT, deliver_policy: DeliverPolicy.New });
    const messages: ConsumerMessages = await oc.consume({ expires: 2_000, idle_heartbeat: 500 });
    let delivered = 0;
    let lastAt = 0;
    void (async () => {
      for await (const _ of messages) {
        delivered++;
        lastAt = Date.now();
      }
    })();
    await until('the ordered consumer to deliver', 10_000, () => delivered > 5);
    const name = (await oc.info(true)).name;
    const { storedAgainMs, node } = await killHostOf(name, GRACE_MS);
    await messages.close().catch(() => undefined);
    const resumed = lastAt > storedAgainMs;
    expect(
      resumed,
      `nats.js now resumes its ordered consumer after the node hosting it (${node}) died: ws-fanout's recreation on heartbeats_missed (services/ws-fanout/src/delivery/subject-feed.ts TradeFeeds.recreate) and the chaos subscriber's may be simplified; update docs/reliability.md`,
    ).toBe(false);
  }, 120_000);

  it("ws-fanout's feeds (the workaround): the same kill, and the feed is recreated from its last sequence on heartbeats_missed or the leader advisory, and gets every stored trade once, in order", async () => {
    const seqs: number[] = [];
    const feeds = new TradeFeeds(
      nc,
      [SUBJECT],
      { batchMessages: 64, retryMs: 250, stallCheckMs: 0, idleHeartbeatMs: 500 },
      createLogger({ service: 'test', level: 'silent' }),
      () => undefined,
    );
    const feed = feeds.get(SUBJECT);
    const deliver = feed.deliver.bind(feed);
    feed.deliver = (msg) => {
      const before = feed.lastSeq;
      deliver(msg);
      if (feed.lastSeq > before) seqs.push(msg.seq);
    };
    await feeds.start();
    try {
      await until('the feed to deliver', 10_000, () => seqs.length > 5);
      // The consumer the feed reads now: a hedged start that lost (retryMs) leaves another ws_feed_ consumer behind,
      // closed and idle until its inactive threshold; only the live one has delivered up to the feed's last sequence.
      const name = await until('the feed consumer', 10_000, async () => {
        for await (const ci of jsm.consumers.list(TRADES_STREAM)) {
          if (ci.name.startsWith(FEED_CONSUMER_PREFIX) && ci.delivered.stream_seq >= feed.lastSeq) return ci.name;
        }
        return null;
      });
      const { storedAgainMs } = await killHostOf(name, 0);
      const target = publisher.state.acked;
      await until(`the feed to reach seq ${target}`, 15_000, () => feed.lastSeq >= target);
      expect(feeds.recreated.heartbeats_missed + feeds.recreated.stream_leader_elected + feeds.recreated.reconnect).toBeGreaterThan(0);
      expect(feeds.stallsRecovered).toBe(0);
      // Every message of the subject from the first one seen, once, in order (the subject is the only one published).
      const first = seqs[0]!;
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => first + i));
      expect(Math.max(...seqs)).toBeGreaterThan(0);
      expect(storedAgainMs).toBeGreaterThan(0);
    } finally {
      await feeds.stop();
    }
  }, 120_000);
});

describe('nats.js ordered consumer settings (single server)', () => {
  let server: TestNatsServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    await ensureTradesStream(await jetstreamManager(nc));
  });

  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it(`nats.js still (${NATS_JS_VERSION}): the inactive_threshold given to an ordered consumer holds only for its first server consumer; after a reset its consumers get nats.js' own 5 min`, async () => {
    const jsm = await jetstreamManager(nc);
    const oc = await jetstream(nc).consumers.get(TRADES_STREAM, { filter_subjects: SUBJECT, inactive_threshold: 60_000 });
    const messages = await oc.consume({ expires: 2_000 });
    void (async () => {
      for await (const _ of messages);
    })();
    const first = await oc.info(true);
    expect(first.config.inactive_threshold).toBe(60e9);
    // The server loses the consumer (as when its node dies): nats.js resets the ordered consumer with a new one.
    await jsm.consumers.delete(TRADES_STREAM, first.name);
    const second = await until('the reset consumer', 15_000, async () => {
      for await (const ci of jsm.consumers.list(TRADES_STREAM)) if (ci.name !== first.name && ci.name.startsWith(first.name.replace(/_\d+$/, ''))) return ci;
      return null;
    });
    await messages.close();
    expect(
      second.config.inactive_threshold,
      'nats.js now keeps inactive_threshold across ordered-consumer resets: ws-fanout may rely on it again (docs/reliability.md)',
    ).toBe(300e9);
  }, 60_000);
});
