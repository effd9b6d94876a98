/**
 * Usage metering in credential-issuer against a real operator-mode nats-server, PostgreSQL and Redis:
 * native usage from nats-server's per-connection counters, usage.reported counted once, the counter
 * bookkeeping (resets, stale samples, two replicas), and `GET /api/usage`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createClient } from 'redis';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { AppError, PLANS, USAGE_DAYS, encodeEvent, newEventMeta, type UsageReport } from '@tradewind/contracts';
import {
  connectNats,
  createDb,
  createLogger,
  ensureEventsStreams,
  ensureTradesStream,
  wsConnectionSlotsKey,
  wsRequestRateKey,
  type AccessTokenClaims,
  type Kysely,
} from '@tradewind/lib';
import { createTestDatabase, freePort, startLocalNats, type LocalNats, type TestDatabase } from '@tradewind/dev';
import { CREDENTIAL_ISSUER_SCHEMA, createApp, createSeedCipher, generateSeedKey, parseSeedKey, type CredentialIssuerDatabase } from '../src/index.js';
import { createNatsUsage } from '../src/usage/nats-usage.js';
import { usageReport } from '../src/usage/usage-report.js';
import { UsageReportSchema } from '../src/http/api.js';

let stateDir: string;
let nats: LocalNats;
let database: TestDatabase;
let db: Kysely<CredentialIssuerDatabase>;
let svc: NatsConnection;
let sys: NatsConnection;
let replayNc: NatsConnection;
let js: JetStreamClient;
let redis: ReturnType<typeof createClient>;
let app: ReturnType<typeof createApp>;
let baseUrl: string;
const logger = createLogger({ service: 'credential-issuer', level: 'silent' });
const opened: NatsConnection[] = [];

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-ci-usage-'));
  nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
  database = await createTestDatabase('ci_usage');
  db = createDb<CredentialIssuerDatabase>({ url: database.url, schema: CREDENTIAL_ISSUER_SCHEMA });
  svc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'svc' });
  sys = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'sys' });
  replayNc = await connectNats({ url: nats.url, creds: nats.identities.replay_user_creds, name: 'replay' });
  const jsm = await jetstreamManager(svc);
  await ensureEventsStreams(jsm);
  await ensureTradesStream(jsm);
  js = jetstream(svc);
  redis = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  app = createApp(
    {
      PORT: port,
      HOST: '127.0.0.1',
      NATS_PUBLIC_URL: 'nats://localhost:4223',
      WS_PUBLIC_URL: undefined,
      CREDENTIALS_TTL_SECONDS: 3600,
      CREDENTIALS_ROTATIONS_PER_DAY: 3,
      RESOLVER_RESYNC_INTERVAL_MS: 60_000,
      PUBLIC_URL: 'http://localhost:8080',
      AUTH_JWKS_URL: 'http://127.0.0.1:1/unused',
      AUTH_ISSUER: undefined,
      OUTBOX_POLL_MS: 50,
      OUTBOX_BATCH_SIZE: 100,
      HTTP_BODY_LIMIT_BYTES: 4096,
      // Polls are run by the tests (app.natsUsage.poll()), not the timer.
      USAGE_NATS_POLL_INTERVAL_MS: 3_600_000,
      USAGE_REPORT_INTERVAL_MS: 10_000,
      USAGE_NATS_GATHER_MS: 300,
    },
    {
      db,
      logger,
      registry: new Registry(),
      identities: nats.identities,
      cipher: createSeedCipher(parseSeedKey(generateSeedKey())),
      js,
      jsm,
      sysNc: sys,
      replayJsm: await jetstreamManager(replayNc),
      redis: redis as never,
      // "Bearer <user id>": the access-token check itself is tested in credential-issuer.int.test.ts.
      verifyAccessToken: async (authorization): Promise<AccessTokenClaims> => {
        const userId = authorization?.replace(/^Bearer /, '');
        if (!userId || !/^[0-9a-f-]{36}$/.test(userId)) throw new AppError('unauthenticated', 'No active session');
        return { userId, sessionId: 's', plan: 'starter', email: `${userId.slice(0, 8)}@example.com`, expiresAt: 0 };
      },
    },
  );
  await app.start();
}, 30_000);

afterAll(async () => {
  for (const nc of opened) await nc.close().catch(() => undefined);
  await app?.stop();
  await redis?.quit();
  await svc?.close();
  await sys?.close();
  await replayNc?.close();
  await db?.destroy();
  await database?.drop();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

/** A customer with credentials issued (their account pushed to the resolver). */
async function customer(): Promise<{ userId: string; account: string; jwt: string; seed: string }> {
  const userId = randomUUID();
  const c = await app.service.credentials(userId, `${userId.slice(0, 8)}@example.com`);
  return { userId, account: c.account_public_key, jwt: c.user_jwt, seed: c.user_nkey_seed };
}

async function stored(key: string, transport: 'websocket' | 'nats'): Promise<{ messages: number; bytes: number }> {
  const rows = await db.selectFrom('usage_daily').select(['messages', 'bytes']).where('limit_key', '=', key).where('transport', '=', transport).execute();
  return rows.reduce((s, r) => ({ messages: s.messages + Number(r.messages), bytes: s.bytes + Number(r.bytes) }), { messages: 0, bytes: 0 });
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('native NATS usage', () => {
  it('when a customer connection receives M messages, then the stored nats usage grows by M messages and their payload bytes, and not again after it closed', async () => {
    const c = await customer();
    const nc = await connect({ servers: nats.url, authenticator: jwtAuthenticator(c.jwt, new TextEncoder().encode(c.seed)) });
    opened.push(nc);
    const received = { messages: 0, bytes: 0 };
    nc.subscribe('basic.pumpfun', {
      callback: (_e, m) => {
        received.messages++;
        received.bytes += m.data.byteLength;
      },
    });
    await nc.flush();
    expect((await app.natsUsage.poll()).outcome).toBe('ok');
    const before = await stored(c.account, 'nats');
    // Published without headers: nats-server's out_bytes is then exactly the payload (server/client.go, msg size minus CRLF).
    const M = 40;
    for (let i = 0; i < M; i++) svc.publish('basic.pumpfun', JSON.stringify({ n: i, pad: 'x'.repeat(i * 7) }));
    await svc.flush();
    await until(async () => received.messages === M, 5_000);
    expect(received.messages).toBe(M);
    expect((await app.natsUsage.poll()).outcome).toBe('ok');
    const after = await stored(c.account, 'nats');
    expect({ messages: after.messages - before.messages, bytes: after.bytes - before.bytes }).toEqual(received);

    // Closed: the server keeps its final counters in its ring of closed connections; polling them again adds nothing.
    // nc.close() resolves before the server has dropped the connection: until it has, the server would still send
    // (and count) the late message, so it is published only once the account has no connection left.
    await nc.close();
    await until(async () => (await app.natsUsage.connections(c.account)) === 0, 5_000);
    svc.publish('basic.pumpfun', '{"late":true}');
    await svc.flush();
    expect((await app.natsUsage.poll()).outcome).toBe('ok');
    expect(await stored(c.account, 'nats')).toEqual(after);
  }, 15_000);

  it('when two replicas poll at once, then each delivery is counted once', async () => {
    const c = await customer();
    const nc = await connect({ servers: nats.url, authenticator: jwtAuthenticator(c.jwt, new TextEncoder().encode(c.seed)) });
    opened.push(nc);
    let got = 0;
    nc.subscribe('basic.bonk', {
      callback: () => {
        got++;
      },
    });
    await nc.flush();
    for (let i = 0; i < 9; i++) svc.publish('basic.bonk', 'abcdefghij');
    await svc.flush();
    await until(async () => got === 9, 5_000);
    const replica = createNatsUsage({
      db,
      sysNc: sys,
      logger,
      registry: new Registry(),
      intervalMs: 3_600_000,
      gatherMs: 300,
      pageSize: 2,
      retentionMs: 3_600_000,
    });
    const results = await Promise.all([app.natsUsage.poll(), replica.poll(), replica.poll()]);
    expect(results.map((r) => r.outcome)).toContain('ok');
    await replica.poll();
    expect(await stored(c.account, 'nats')).toEqual({ messages: 9, bytes: 90 });
  }, 15_000);

  it("when a server's counter is lower than last seen, a sample is stale, or one comes twice, then only new deliveries are counted", async () => {
    const c = await customer();
    const serverId = `NTEST${randomUUID().replace(/-/g, '').toUpperCase()}`;
    // Recent sample times: counters not seen for USAGE_NATS_COUNTER_RETENTION_MS (by sample time) are deleted.
    const t0 = Date.now() - 60_000;
    const sample = (at: number, outMsgs: number, outBytes: number) => [
      { serverId, sampledAtMs: at, connections: [{ cid: 7, account: c.account, out_msgs: outMsgs, out_bytes: outBytes }] },
    ];
    const day = async () => {
      const row = await db
        .selectFrom('usage_daily')
        .select(['messages', 'bytes'])
        .where('limit_key', '=', c.account)
        .where('transport', '=', 'nats')
        .where('day', '=', new Date(t0).toISOString().slice(0, 10))
        .executeTakeFirst();
      return { messages: Number(row?.messages ?? 0), bytes: Number(row?.bytes ?? 0) };
    };
    await app.natsUsage.store(sample(t0, 10, 1000));
    expect(await day()).toEqual({ messages: 10, bytes: 1000 });
    await app.natsUsage.store(sample(t0 + 1000, 15, 1500));
    expect(await day()).toEqual({ messages: 15, bytes: 1500 });
    // The same sample again (another replica read it too): nothing.
    await app.natsUsage.store(sample(t0 + 1000, 15, 1500));
    // An older sample committed late: nothing.
    await app.natsUsage.store(sample(t0 + 500, 12, 1200));
    expect(await day()).toEqual({ messages: 15, bytes: 1500 });
    // Lower than last seen: the counter started again, the new value is all new.
    await app.natsUsage.store(sample(t0 + 2000, 4, 400));
    expect(await day()).toEqual({ messages: 19, bytes: 1900 });
    await app.natsUsage.store(sample(t0 + 3000, 6, 600));
    expect(await day()).toEqual({ messages: 21, bytes: 2100 });
    // Connections of accounts that are no customer's (the services' own) are not stored.
    await app.natsUsage.store([{ serverId, sampledAtMs: t0 + 4000, connections: [{ cid: 8, account: 'ANOTACUSTOMER', out_msgs: 5, out_bytes: 5 }] }]);
    expect(await db.selectFrom('usage_daily').select('limit_key').where('limit_key', '=', 'ANOTACUSTOMER').execute()).toEqual([]);
  });
});

describe('usage.reported', () => {
  it('when the same report is delivered twice (re-published under another Nats-Msg-Id), then it is counted once', async () => {
    const key = `ATWICE${randomUUID().replace(/-/g, '').toUpperCase()}`;
    const event = {
      meta: newEventMeta('usage.reported', 'ws-fanout'),
      transport: 'websocket',
      reporter: 'test/1',
      collectedAt: new Date(),
      customers: [{ limitKey: key, messages: 12n, bytes: 3456n }],
    };
    const bytes = encodeEvent('usage.reported', event);
    for (const msgId of [event.meta.eventId, randomUUID()]) {
      const h = natsHeaders();
      h.set('Nats-Msg-Id', msgId);
      const ack = await js.publish('usage.reported', bytes, { headers: h });
      expect(ack.duplicate).toBe(false);
    }
    const second = { ...event, meta: newEventMeta('usage.reported', 'ws-fanout'), customers: [{ limitKey: key, messages: 1n, bytes: 4n }] };
    await js.publish('usage.reported', encodeEvent('usage.reported', second), { msgID: second.meta.eventId });
    await until(async () => (await stored(key, 'websocket')).messages >= 13, 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await stored(key, 'websocket')).toEqual({ messages: 13, bytes: 3460 });
  });
});

describe('GET /api/usage', () => {
  it('when there is no bearer token, then 401 {"status":401,"message":"No active session"}', async () => {
    const res = await fetch(`${baseUrl}/api/usage`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ status: 401, message: 'No active session' });
  });

  it('when a customer asks, then 30 UTC days oldest first with zeros filled, totals, and connections and requests in use from Redis and nats-server', async () => {
    const c = await customer();
    const today = new Date().toISOString().slice(0, 10);
    await db
      .insertInto('usage_daily')
      .values([
        { limit_key: c.account, day: today, transport: 'websocket', messages: 5, bytes: 500 },
        { limit_key: c.account, day: today, transport: 'nats', messages: 2, bytes: 20 },
        { limit_key: c.account, day: '2000-01-01', transport: 'websocket', messages: 99, bytes: 99 },
      ])
      .execute();
    const now = Date.now();
    await redis.zAdd(wsConnectionSlotsKey(c.account), [
      { score: now + 30_000, value: 'conn-a' },
      { score: now + 30_000, value: 'conn-b' },
      { score: now - 1, value: 'conn-expired' },
    ]);
    await redis.pExpire(wsConnectionSlotsKey(c.account), 60_000);
    const window = Math.floor(now / 60_000);
    await redis.set(wsRequestRateKey(c.account, window), '7', { PX: 120_000 });
    const nc = await connect({ servers: nats.url, authenticator: jwtAuthenticator(c.jwt, new TextEncoder().encode(c.seed)) });
    opened.push(nc);

    const res = await fetch(`${baseUrl}/api/usage`, { headers: { authorization: `Bearer ${c.userId}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as UsageReport;
    expect(UsageReportSchema.safeParse(body).success).toBe(true);
    expect(body.plan).toBe('starter');
    expect(body.report_interval_ms).toBe(3_600_000);
    expect(body.days).toHaveLength(USAGE_DAYS);
    expect(body.days.at(-1)).toEqual({ day: today, websocket: { messages: 5, bytes: 500 }, nats: { messages: 2, bytes: 20 } });
    expect(body.days.slice(0, -1).every((d) => d.websocket.messages === 0 && d.nats.bytes === 0)).toBe(true);
    expect([...body.days.map((d) => d.day)].sort()).toEqual(body.days.map((d) => d.day));
    expect(body.totals).toEqual({ websocket: { messages: 5, bytes: 500 }, nats: { messages: 2, bytes: 20 } });
    expect(body.connections).toEqual({
      websocket: { in_use: 2, limit: PLANS.starter.connections },
      nats: { in_use: 1, limit: PLANS.starter.connections },
    });
    // The previous window holds nothing, so the weighted count is this window's 7 whatever the time.
    expect(body.requests_per_minute).toEqual({ in_use: 7, limit: PLANS.starter.requestsPerMinute });
    await nc.close();
  });

  it('when the previous window has requests, then they count by the share of it still inside the last minute, as ws-fanout counts them', async () => {
    const c = await customer();
    const windowMs = 60_000;
    const start = Math.floor(Date.now() / windowMs) * windowMs;
    const now = start + windowMs / 4;
    const window = start / windowMs;
    await redis.set(wsRequestRateKey(c.account, window - 1), '10', { PX: 120_000 });
    await redis.set(wsRequestRateKey(c.account, window), '3', { PX: 120_000 });
    const deps = {
      db,
      redis: redis as never,
      natsUsage: { connections: async () => 0 },
      logger,
      reportIntervalMs: 60_000,
      requestRateWindowMs: windowMs,
      liveTimeoutMs: 1_000,
      now: () => now,
    };
    // 10 × 0.75 + 3 = 10.5 → 10, as ws-fanout's script floors it.
    expect((await usageReport(deps, c.userId, 'starter')).requests_per_minute.in_use).toBe(10);
    // Without Redis the in-use WebSocket figures cannot be measured: null, and the page still answers.
    const without = await usageReport({ ...deps, redis: undefined, natsUsage: { connections: async () => null } }, c.userId, 'starter');
    expect(without.connections.websocket.in_use).toBeNull();
    expect(without.connections.nats.in_use).toBeNull();
    expect(without.requests_per_minute.in_use).toBeNull();
    expect(without.days).toHaveLength(USAGE_DAYS);
  });

  it('when a user has no customer account yet, then zeros on the plan of their token', async () => {
    const res = await fetch(`${baseUrl}/api/usage`, { headers: { authorization: `Bearer ${randomUUID()}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as UsageReport;
    expect(body.totals).toEqual({ websocket: { messages: 0, bytes: 0 }, nats: { messages: 0, bytes: 0 } });
    expect(body.connections.websocket.in_use).toBe(0);
    expect(body.days).toHaveLength(USAGE_DAYS);
  });
});
