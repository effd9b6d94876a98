/**
 * A live feed whose consumer stops delivering without ending (nats.js' ordered consumer after the
 * TRADES stream leader is killed on a cluster: `npm run chaos`, docs/reliability.md) is recreated
 * from its last sequence by the silence check, with nothing lost or duplicated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { createLogger, ensureTradesStream } from '@tradewind/lib';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { TradeFeeds } from '../src/delivery/subject-feed.js';

const SUBJECT = 'basic.pumpfun';
let nats: TestNatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  await ensureTradesStream(await jetstreamManager(nc));
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

/** Publishes `n` trades on SUBJECT; resolves with their stream sequences. */
async function publish(n: number): Promise<number[]> {
  const js = jetstream(nc);
  const seqs: number[] = [];
  for (let i = 0; i < n; i++) seqs.push((await js.publish(SUBJECT, JSON.stringify({ i }))).seq);
  return seqs;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts feeds over SUBJECT whose current consumer can be silenced: from `silence()` on, messages of
 * that consumer (by name) are swallowed before the feed sees them, as if it had stopped delivering;
 * a consumer created later delivers normally.
 */
async function silencedFeeds(stallCheckMs: number) {
  // The sequences the feed took in (each advanced its last sequence: what its members would get).
  const delivered: number[] = [];
  const feeds = new TradeFeeds(
    nc,
    [SUBJECT],
    { batchMessages: 64, retryMs: 100, stallCheckMs, idleHeartbeatMs: 30_000 },
    createLogger({ service: 'test', level: 'silent' }),
    () => undefined,
  );
  const feed = feeds.get(SUBJECT);
  const deliver = feed.deliver.bind(feed);
  let current = '';
  let silenced: string | undefined;
  feed.deliver = (msg: JsMsg) => {
    current = msg.info.consumer;
    if (msg.info.consumer === silenced) return;
    const before = feed.lastSeq;
    deliver(msg);
    if (feed.lastSeq > before) delivered.push(msg.seq);
  };
  await feeds.start();
  return {
    feeds,
    delivered,
    silence: () => {
      silenced = current;
    },
  };
}

describe("live feed recreation on the broker's signal", () => {
  it('when TRADES announces a new leader, then every feed is recreated from its last sequence at once (no silence check) and every message arrives once, in order', async () => {
    const { feeds, delivered, silence } = await silencedFeeds(0);
    try {
      const first = await publish(2);
      await until(() => delivered.length === 2, 'the first two trades');
      silence();
      const during = await publish(4);
      // The advisory nats-server publishes in the stream's account when the stream elects a leader.
      nc.publish(
        '$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.TRADES',
        JSON.stringify({ type: 'io.nats.jetstream.advisory.v1.stream_leader_elected', stream: 'TRADES', leader: 'n2' }),
      );
      await until(() => delivered.length === 6, 'the trades stored while the old consumer was silent').catch((err) => {
        throw new Error(`${(err as Error).message}: took in ${delivered.join(',')}; recreated ${JSON.stringify(feeds.recreated)}`);
      });
      expect(delivered).toEqual([...first, ...during]);
      expect(feeds.recreated.stream_leader_elected).toBe(1);
      expect(feeds.stallsRecovered).toBe(0);
    } finally {
      await feeds.stop();
    }
  });

  it('when another stream elects a leader, then the feeds are left alone', async () => {
    const { feeds, delivered } = await silencedFeeds(0);
    try {
      await publish(1);
      await until(() => delivered.length === 1, 'the first trade');
      nc.publish('$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.EVENTS', JSON.stringify({ stream: 'EVENTS', leader: 'n2' }));
      await nc.flush();
      await new Promise((r) => setTimeout(r, 300));
      expect(feeds.recreated.stream_leader_elected).toBe(0);
    } finally {
      await feeds.stop();
    }
  });
});

describe('live feed silence check', () => {
  it('when the consumer delivers nothing while TRADES holds newer messages, then the feed is recreated from its last sequence and every message arrives once, in order', async () => {
    const { feeds, delivered, silence } = await silencedFeeds(200);
    try {
      const first = await publish(3);
      await until(() => delivered.length === 3, 'the first three trades');
      silence();
      const during = await publish(10);
      await until(() => feeds.stallsRecovered >= 1, 'the silence check to recreate the feed');
      const after = await publish(2);
      await until(() => delivered.length === 15, 'every trade').catch((err) => {
        throw new Error(`${(err as Error).message}: took in ${delivered.join(',')}; recreated ${feeds.stallsRecovered}×`);
      });
      expect(delivered).toEqual([...first, ...during, ...after]);
      expect(feeds.ready).toBe(true);
    } finally {
      await feeds.stop();
    }
  });

  it('when the check is off (0), then a silent feed stays silent (the check is what recovers it)', async () => {
    const { feeds, delivered, silence } = await silencedFeeds(0);
    try {
      await publish(1);
      await until(() => delivered.length === 1, 'the first trade');
      silence();
      await publish(5);
      await new Promise((r) => setTimeout(r, 1000));
      expect(delivered).toHaveLength(1);
      expect(feeds.stallsRecovered).toBe(0);
    } finally {
      await feeds.stop();
    }
  });
});
