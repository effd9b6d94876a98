/**
 * The client against the real ws-fanout (in-process, services/ws-fanout/test/support.ts), a real
 * operator-mode nats-server with the TRADES stream, and Redis: trades are published while the
 * app is stopped and started again on the same port; the client's iterator must yield every
 * published message of its subject exactly once, in order (protocol v2: `seq`, `resume_after`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { ensureTradesStream } from '@tradewind/lib';
import { createCustomer, startTestApp, startTestEnv, type TestApp, type TestEnv } from '../../../services/ws-fanout/test/support.js';
import { TradewindClient, type ClientEvent, type TradeMessage } from '../src/index.js';
import { PUMPFUN_BUY_V2 } from './real-messages.js';

let env: TestEnv;
let app: TestApp;
let js: JetStreamClient;

beforeAll(async () => {
  env = await startTestEnv();
  await ensureTradesStream(await jetstreamManager(env.nc));
  js = jetstream(env.nc);
  app = await startTestApp(env);
});

/** How long ws-fanout's app.stop() may take in afterAll, ms. */
const STOP_TIMEOUT_MS = 15_000;

afterAll(async () => {
  // Bounded: a shutdown that never finishes is reported as a failure instead of hanging the run.
  const stopped = app ? await Promise.race([app.app.stop().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), STOP_TIMEOUT_MS))]) : true;
  await env?.stop();
  if (!stopped) throw new Error(`ws-fanout's app.stop() did not finish within ${STOP_TIMEOUT_MS} ms`);
});

const runId = Date.now();
/** Publishes trade `n` of this test to `subject` through JetStream (stored in TRADES); returns its stream sequence. */
async function publish(subject: 'basic.pumpfun' | 'basic.bonk', n: number): Promise<number> {
  const source = subject === 'basic.pumpfun' ? 'pumpfun' : 'bonk';
  const body = JSON.stringify({ source, transaction_type: 'BUY', signature: `sig-${runId}-${subject}-${n}`, n });
  return (await js.publish(subject, body, { msgID: `${runId}:${subject}:${n}` })).seq;
}

describe('real stack', () => {
  it('when ingest’s real schema_version 2 pump.fun message ("type": "trade") is published, then ws-fanout passes it on and the client yields it as a trade with its stream seq', async () => {
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    const client = new TradewindClient({ url: app.url, jwt: creds.jwt, seed: creds.seed });
    const errors: ClientEvent[] = [];
    client.on('error', (e) => errors.push(e));
    const trades = client.subscribe('basic.pumpfun').trades();
    const subscribed = new Promise<void>((resolve) => client.on('subscribed', () => resolve()));
    await client.connect();
    await subscribed;
    const seq = (await js.publish('basic.pumpfun', PUMPFUN_BUY_V2, { msgID: `${runId}:v2` })).seq;
    const next = await Promise.race([trades.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no trade within 10 s')), 10_000))]);
    expect(next.done).toBe(false);
    expect(next.value).toEqual({ seq, ...(JSON.parse(PUMPFUN_BUY_V2) as object) });
    expect(errors).toEqual([]);
    client.close();
  }, 60_000);

  it('when ws-fanout restarts mid-stream, then the client resumes and its iterator yields every published trade once, in order (starter credentials)', async () => {
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    const port = Number(new URL(app.url).port);
    const client = new TradewindClient({
      url: app.url,
      jwt: creds.jwt,
      seed: creds.seed,
      reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, maxAttempts: 30 },
    });
    const events: ClientEvent[] = [];
    for (const type of ['authenticated', 'subscribed', 'resumed', 'reconnecting', 'gap', 'error'] as const) client.on(type, (e) => events.push(e));
    client.subscribe('basic.pumpfun');
    const trades = client.trades();
    const subscribed = new Promise<void>((resolve) => client.on('subscribed', () => resolve()));
    await client.connect();
    await subscribed;

    const total = 300;
    const restartAt = 100;
    const published: number[] = [];
    const publishing = (async () => {
      for (let n = 0; n < total; n++) {
        published.push(await publish('basic.pumpfun', n));
        if (n % 3 === 0) await publish('basic.bonk', n); // another subject in between: sequences are not contiguous
        if (n === restartAt) {
          await app.app.stop(); // every socket closed with 1001
          for (let k = 0; k < 20; k++) await new Promise((r) => setTimeout(r, 5)); // the client is away for a while
        }
        if (n === restartAt + 50) app = await startTestApp(env, { PORT: port });
        await new Promise((r) => setTimeout(r, 2));
      }
    })();

    const received: TradeMessage[] = [];
    try {
      while (received.length < total) {
        const next = await Promise.race([
          trades.next(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no trade for 20 s after ${received.length} of ${total}`)), 20_000)),
        ]);
        if (next.done) throw new Error(`iterator ended after ${received.length}`);
        received.push(next.value);
      }
    } finally {
      await publishing.catch(() => undefined);
    }
    await publishing;
    expect(received.map((t) => (t as unknown as { n: number }).n)).toEqual(Array.from({ length: total }, (_, n) => n));
    expect(received.map((t) => t.seq)).toEqual(published);
    expect(events.some((e) => e.type === 'reconnecting')).toBe(true);
    // The gap-free resume: after the last trade it had before the stop, through everything published while it was away.
    const resumed = events.filter((e): e is Extract<ClientEvent, { type: 'resumed' }> => e.type === 'resumed');
    expect(resumed).toHaveLength(1);
    expect(published).toContain(resumed[0]!.afterSeq);
    expect(resumed[0]!.afterSeq).toBeLessThanOrEqual(published[restartAt]!);
    expect(resumed[0]!.caughtUpSeq).toBeGreaterThanOrEqual(published[restartAt + 49]!);
    expect(events.filter((e) => e.type === 'gap')).toEqual([]);
    // Nothing more arrives: no duplicate after the last one either.
    const extra = await Promise.race([trades.next(), new Promise((r) => setTimeout(() => r('none'), 500))]);
    expect(extra).toBe('none');
    expect(client.stats.tradesDelivered).toBe(total);
    client.close();
  }, 90_000);
});
