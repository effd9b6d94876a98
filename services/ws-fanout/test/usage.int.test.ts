/**
 * Usage metering end to end against a real operator-mode nats-server, Redis and PostgreSQL: what a WebSocket
 * client of a customer receives (every frame: challenge, control answers, trades, heartbeats) is what
 * credential-issuer's usage consumer stores, exactly, across a graceful restart of ws-fanout; an
 * unacknowledged report is re-published with the same event id and bytes until JetStream takes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, decodeEvent } from '@tradewind/contracts';
import { createDb, createLogger, ensureEventsStreams, migrate, requestRateWindow, wsConnectionSlotsKey, wsRequestRateKey, type Kysely } from '@tradewind/lib';
import { createTestDatabase, startNatsServer, type TestDatabase } from '@tradewind/dev';
import { CREDENTIAL_ISSUER_SCHEMA, createUsageConsumer, credentialIssuerMigrations, type CredentialIssuerDatabase } from '@tradewind/credential-issuer';
import { Registry } from 'prom-client';
import { createCustomer, startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';
import { UsageMeter } from '../src/usage-meter.js';
import { createMetrics } from '../src/metrics.js';

let env: TestEnv;
let jsm: JetStreamManager;
let database: TestDatabase;
let db: Kysely<CredentialIssuerDatabase>;
let consumer: ReturnType<typeof createUsageConsumer>;
const apps: TestApp[] = [];
const logger = createLogger({ service: 'ws-fanout', level: 'silent' });

/** Report interval of the apps here, ms: short so the test waits little. */
const INTERVAL_MS = 300;

beforeAll(async () => {
  env = await startTestEnv();
  jsm = await jetstreamManager(env.nc);
  await ensureEventsStreams(jsm);
  database = await createTestDatabase('ws_usage');
  db = createDb<CredentialIssuerDatabase>({ url: database.url, schema: CREDENTIAL_ISSUER_SCHEMA });
  await migrate(db, CREDENTIAL_ISSUER_SCHEMA, credentialIssuerMigrations, logger);
  consumer = createUsageConsumer({ db, js: jetstream(env.nc), jsm, logger, registry: new Registry() });
  await consumer.start();
}, 30_000);

afterAll(async () => {
  for (const a of apps) await a.app.stop();
  await consumer?.stop();
  await db?.destroy();
  await database?.drop();
  await env?.stop();
});

/** A client whose every received frame is counted (messages, UTF-8 payload bytes) from the first one on. */
function countingClient(url: string): { client: TestClient; received: { messages: number; bytes: number } } {
  const client = new TestClient(url);
  const received = { messages: 0, bytes: 0 };
  client.ws.on('message', (data: Buffer) => {
    received.messages++;
    received.bytes += data.byteLength;
  });
  return { client, received };
}

/** What usage_daily holds for `key` over WebSocket, all days. */
async function stored(key: string): Promise<{ messages: number; bytes: number }> {
  const rows = await db.selectFrom('usage_daily').select(['messages', 'bytes']).where('limit_key', '=', key).where('transport', '=', 'websocket').execute();
  return rows.reduce((s, r) => ({ messages: s.messages + Number(r.messages), bytes: s.bytes + Number(r.bytes) }), { messages: 0, bytes: 0 });
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('WebSocket usage metering', () => {
  it('when a client receives trades, is moved to a new ws-fanout by a graceful stop, and receives more, then the stored usage equals exactly what it received, once', async () => {
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    // A longer interval for the first process: what it sends after its last periodic report reaches the store only
    // through the final report of its graceful stop.
    const first = await startTestApp(env, { USAGE_REPORT_INTERVAL_MS: 1_000 });
    apps.push(first);

    const a = countingClient(first.url);
    await a.client.opened;
    await a.client.next(); // challenge
    a.client.send({ jwt: creds.jwt, nkey: creds.seed });
    expect(await a.client.next()).toMatchObject({ type: 'authenticated' });
    a.client.send({ subject: 'basic.pumpfun' });
    expect(await a.client.next()).toMatchObject({ type: 'subscribed' });
    // What GET /api/usage reads (credential-issuer): ws-fanout writes its slot and request counter under the shared key names.
    const key = customer.spec.accountPublicKey;
    expect(await env.redis.zCount(wsConnectionSlotsKey(key), `(${Date.now()}`, '+inf')).toBe(1);
    const { window } = requestRateWindow(Date.now(), 60_000);
    expect(Number(await env.redis.get(wsRequestRateKey(key, window))) + Number(await env.redis.get(wsRequestRateKey(key, window - 1)))).toBe(2);
    for (let i = 0; i < 25; i++) env.nc.publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', n: i, text: 'é€😀'.repeat(i) }));
    let lastSeq = 0;
    for (let i = 0; i < 25; i++) lastSeq = Number((await a.client.next()).seq);
    // One periodic report goes out while the client is connected; then a few more trades just before the stop.
    await until(async () => (await stored(customer.spec.accountPublicKey)).messages > 0, 3_000);
    expect((await stored(customer.spec.accountPublicKey)).messages).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) env.nc.publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', late: i }));
    for (let i = 0; i < 5; i++) lastSeq = Number((await a.client.next()).seq);

    // Graceful stop: sockets closed with 1001, then the final report.
    await first.app.stop();
    apps.splice(apps.indexOf(first), 1);
    expect((await a.client.waitClosed()).code).toBe(1001);
    // When stop() resolves, everything the first process wrote is in acknowledged reports.
    expect(await first.metric('tradewind_ws_fanout_usage_reported_messages_total')).toBe(a.received.messages);
    expect(await first.metric('tradewind_ws_fanout_usage_reported_bytes_total')).toBe(a.received.bytes);

    const second = await startTestApp(env, { USAGE_REPORT_INTERVAL_MS: INTERVAL_MS });
    apps.push(second);
    const b = countingClient(second.url);
    await b.client.opened;
    await b.client.next();
    b.client.send({ jwt: creds.jwt, nkey: creds.seed });
    expect(await b.client.next()).toMatchObject({ type: 'authenticated' });
    b.client.send({ subject: 'basic.pumpfun', resume_after: lastSeq });
    expect(await b.client.next()).toMatchObject({ type: 'subscribed' });
    for (let i = 0; i < 7; i++) env.nc.publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', after: i }));
    // Control answers of the resume (e.g. caught up) may come first; they are counted like any frame.
    for (let trades = 0; trades < 7; ) if ('after' in (await b.client.next())) trades++;
    b.client.close();
    await b.client.waitClosed();

    const expected = { messages: a.received.messages + b.received.messages, bytes: a.received.bytes + b.received.bytes };
    expect(expected.messages).toBeGreaterThanOrEqual(2 * 3 + 25 + 5 + 7);
    await until(async () => (await stored(customer.spec.accountPublicKey)).messages >= expected.messages, 10_000);
    expect(await stored(customer.spec.accountPublicKey)).toEqual(expected);
    // Later reports add nothing (nothing was sent since): counted once.
    await new Promise((r) => setTimeout(r, INTERVAL_MS * 3));
    expect(await stored(customer.spec.accountPublicKey)).toEqual(expected);
    expect(await second.metric('tradewind_ws_fanout_usage_reports_total', { outcome: 'failed' })).toBe(0);
  }, 20_000);

  it('when a report is not acknowledged, then it is published again with the same event id and bytes until it is, and stored once', async () => {
    // A server of its own without EVENTS at first; a plain subscriber takes each attempt and never answers, so every publish times out.
    const server = await startNatsServer();
    const nc = await connect({ servers: server.url });
    try {
      const attempts: Array<{ id: string | undefined; data: Uint8Array }> = [];
      const tap = nc.subscribe('usage.reported', {
        callback: (_e, m) => {
          attempts.push({ id: m.headers?.get('Nats-Msg-Id'), data: m.data });
        },
      });
      const connection = { user: { limitKey: 'ATESTRETRY' }, outbox: { writtenFrames: 3, writtenPayloadBytes: 120 } };
      const metrics = createMetrics(new Registry());
      const meter = new UsageMeter(jetstream(nc), () => [connection], {
        intervalMs: 60_000,
        retryMs: 50,
        publishTimeoutMs: 150,
        maxCustomers: 100,
        finalTimeoutMs: 5_000,
        reporter: 'test',
        logger,
        metrics: { messages: metrics.usageMessages, bytes: metrics.usageBytes, reports: metrics.usageReports, lost: metrics.usageLost },
      });
      const reporting = meter.report();
      await until(async () => attempts.length >= 3, 5_000);
      // Meanwhile more is delivered: it waits for the next report instead of changing this one.
      connection.outbox.writtenFrames = 2;
      connection.outbox.writtenPayloadBytes = 10;
      void meter.report();
      await until(async () => attempts.length >= 4, 5_000);
      tap.unsubscribe();
      const serverJsm = await jetstreamManager(nc);
      await ensureEventsStreams(serverJsm);
      await reporting;
      expect(attempts.length).toBeGreaterThanOrEqual(4);
      expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
      for (const a of attempts) expect(Buffer.from(a.data).equals(Buffer.from(attempts[0]!.data))).toBe(true);
      const event = decodeEvent('usage.reported', attempts[0]!.data);
      expect(event.meta?.eventId).toBe(attempts[0]!.id);
      expect(event.customers).toEqual([{ limitKey: 'ATESTRETRY', messages: 3n, bytes: 120n }]);
      const failed = (await metrics.usageReports.get()).values.find((v) => v.labels.outcome === 'failed')?.value ?? 0;
      expect(failed).toBeGreaterThanOrEqual(3);
      // The counts that came during the retries go in the final report, under a new id.
      await meter.stop();
      const info = await serverJsm.streams.info(EVENTS_STREAM);
      expect(info.state.messages).toBe(2);
      const stored1 = decodeEvent('usage.reported', (await serverJsm.streams.getMessage(EVENTS_STREAM, { seq: info.state.first_seq }))!.data);
      const stored2 = decodeEvent('usage.reported', (await serverJsm.streams.getMessage(EVENTS_STREAM, { seq: info.state.last_seq }))!.data);
      expect(stored1.meta?.eventId).toBe(attempts[0]!.id);
      expect(stored2.meta?.eventId).not.toBe(attempts[0]!.id);
      expect(stored2.customers).toEqual([{ limitKey: 'ATESTRETRY', messages: 2n, bytes: 10n }]);
    } finally {
      await nc.close();
      await server.stop();
    }
  }, 20_000);

  it('when more customers delivered than one report holds, then they go in several reports at once; a connection never authenticated is reported for nobody', async () => {
    const server = await startNatsServer();
    const nc = await connect({ servers: server.url });
    try {
      const serverJsm = await jetstreamManager(nc);
      await ensureEventsStreams(serverJsm);
      const connections = [1, 2, 3, 4, 5].map((n) => ({ user: { limitKey: `ACUSTOMER${n}` }, outbox: { writtenFrames: n, writtenPayloadBytes: 100 * n } }));
      const anonymous = { user: undefined as { limitKey: string } | undefined, outbox: { writtenFrames: 1, writtenPayloadBytes: 40 } };
      const metrics = createMetrics(new Registry());
      const meter = new UsageMeter(jetstream(nc), () => [...connections, anonymous], {
        intervalMs: 60_000,
        retryMs: 50,
        publishTimeoutMs: 2_000,
        maxCustomers: 2,
        finalTimeoutMs: 5_000,
        reporter: 'test',
        logger,
        metrics: { messages: metrics.usageMessages, bytes: metrics.usageBytes, reports: metrics.usageReports, lost: metrics.usageLost },
      });
      await meter.report();
      // Not authenticated yet: its challenge stays on the connection until it authenticates (then it is the customer's).
      expect(anonymous.outbox.writtenFrames).toBe(1);
      let info = await serverJsm.streams.info(EVENTS_STREAM);
      expect(info.state.messages).toBe(3);
      const reported = new Map<string, [bigint, bigint]>();
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const event = decodeEvent('usage.reported', (await serverJsm.streams.getMessage(EVENTS_STREAM, { seq }))!.data);
        expect(event.customers.length).toBeLessThanOrEqual(2);
        for (const c of event.customers) reported.set(c.limitKey, [c.messages, c.bytes]);
      }
      expect(Object.fromEntries(reported)).toEqual(Object.fromEntries(connections.map((c, n) => [c.user.limitKey, [BigInt(n + 1), BigInt(100 * (n + 1))]])));
      expect((await metrics.usageMessages.get()).values[0]?.value).toBe(15);
      // Closed without authenticating: dropped, never reported.
      meter.collect(anonymous, true);
      expect(anonymous.outbox.writtenFrames).toBe(0);
      await meter.stop();
      info = await serverJsm.streams.info(EVENTS_STREAM);
      expect(info.state.messages).toBe(3);
    } finally {
      await nc.close();
      await server.stop();
    }
  });
});
