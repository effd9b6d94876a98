/**
 * credential-issuer as a service: the real app in-process against a scratch PostgreSQL database
 * and a real operator-mode nats-server (JetStream EVENTS in the TRADEWIND account). Access tokens
 * are ES256 JWTs verified exactly as in production (issuer, audience, expiry).
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { SignJWT } from 'jose';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { decode, type Account } from '@nats-io/jwt';
import { EVENTS_STREAM, TRADES_STREAM, decodeEvent, encodeEvent, newEventMeta, type EventTypes } from '@tradewind/contracts';
import { bearerToken, ensureTradesStream, connectNats, createDb, createLogger, ensureEventsStreams, verifyAccessToken, type Kysely } from '@tradewind/lib';
import { createTestDatabase, freePort, type TestDatabase } from '@tradewind/dev';
import {
  CREDENTIAL_ISSUER_SCHEMA,
  REPLAY_API_PREFIX,
  createApp,
  createSeedCipher,
  generateSeedKey,
  parseSeedKey,
  type CredentialIssuerDatabase,
  type NatsCredentialsView,
} from '../src/index.js';
import { startLocalNats, type LocalNats } from '@tradewind/dev';

const PUBLIC_URL = 'http://localhost:8080';
let stateDir: string;
let nats: LocalNats;
let database: TestDatabase;
let db: Kysely<CredentialIssuerDatabase>;
let svc: NatsConnection;
let sys: NatsConnection;
let js: JetStreamClient;
let replayNc: NatsConnection;
let app: ReturnType<typeof createApp>;
let baseUrl: string;
let privateKey: KeyObject;
const logLines: string[] = [];
const opened: NatsConnection[] = [];

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-ci-svc-'));
  nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
  database = await createTestDatabase('credential_issuer');
  db = createDb<CredentialIssuerDatabase>({ url: database.url, schema: CREDENTIAL_ISSUER_SCHEMA });
  svc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'svc' });
  sys = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'sys' });
  replayNc = await connectNats({ url: nats.url, creds: nats.identities.replay_user_creds, name: 'replay' });
  const jsm = await jetstreamManager(svc);
  await ensureEventsStreams(jsm);
  await ensureTradesStream(jsm);
  js = jetstream(svc);
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  privateKey = keys.privateKey;
  const logger = createLogger({
    service: 'credential-issuer',
    level: 'debug',
    destination: new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  app = createApp(
    {
      PORT: port,
      HOST: '127.0.0.1',
      NATS_PUBLIC_URL: 'nats://localhost:4223',
      WS_PUBLIC_URL: 'wss://ws.tradewind.test',
      CREDENTIALS_TTL_SECONDS: 3600,
      CREDENTIALS_ROTATIONS_PER_DAY: 3,
      RESOLVER_RESYNC_INTERVAL_MS: 60_000,
      PUBLIC_URL,
      AUTH_JWKS_URL: 'http://127.0.0.1:1/unused',
      AUTH_ISSUER: undefined,
      OUTBOX_POLL_MS: 50,
      OUTBOX_BATCH_SIZE: 100,
      HTTP_BODY_LIMIT_BYTES: 4096,
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
      verifyAccessToken: (authorization) => verifyAccessToken(bearerToken(authorization), keys.publicKey, `${PUBLIC_URL}/auth`),
    },
  );
  await app.start();
});

afterAll(async () => {
  for (const nc of opened) await nc.close().catch(() => undefined);
  await app?.stop();
  await svc?.close();
  await sys?.close();
  await replayNc?.close();
  await db?.destroy();
  await database?.drop();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

async function bearer(userId: string, email = `${userId.slice(0, 8)}@example.com`): Promise<string> {
  const token = await new SignJWT({ sid: randomUUID(), email, plan: 'starter' })
    .setProtectedHeader({ alg: 'ES256', kid: 'test' })
    .setSubject(userId)
    .setIssuer(`${PUBLIC_URL}/auth`)
    .setAudience('tradewind')
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(privateKey);
  return `Bearer ${token}`;
}

async function getCreds(userId: string): Promise<NatsCredentialsView> {
  const res = await fetch(`${baseUrl}/api/nats`, { headers: { authorization: await bearer(userId) } });
  expect(res.status).toBe(200);
  return (await res.json()) as NatsCredentialsView;
}

async function publishEvent<S extends 'user.created' | 'subscription.changed'>(subject: S, event: EventTypes[S]): Promise<void> {
  const h = natsHeaders();
  h.set('Nats-Msg-Id', event.meta!.eventId);
  await js.publish(subject, encodeEvent(subject, event), { headers: h });
}

async function announce(userId: string): Promise<void> {
  await publishEvent('user.created', {
    meta: newEventMeta('user.created', 'auth'),
    userId,
    email: `${userId.slice(0, 8)}@example.com`,
    name: 'N',
    avatarUrl: '',
    plan: 'starter',
    billingPeriod: 'indefinite',
    identityProvider: 'local-oidc',
  });
}

async function changePlan(userId: string, plan: string, version: number, status = 'active'): Promise<void> {
  await publishEvent('subscription.changed', {
    meta: newEventMeta('subscription.changed', 'billing'),
    userId,
    plan,
    previousPlan: '',
    billingPeriod: 'monthly',
    subscriptionStatus: status,
    subscriptionType: 'paid',
    trialEndDate: undefined,
    stripeCustomerId: '',
    stripeSubscriptionId: '',
    previousBillingPeriod: '',
    previousSubscriptionStatus: '',
    version: BigInt(version),
    reason: 'plan_changed',
    currentPeriodEnd: undefined,
    cancelAtPeriodEnd: false,
  });
}

/** A native connection with the credentials; reconnects quickly (as bots should) so re-authorisation is observable. */
async function connectNative(creds: Pick<NatsCredentialsView, 'user_jwt' | 'user_nkey_seed'>): Promise<NatsConnection> {
  const nc = await connect({
    servers: nats.url,
    authenticator: jwtAuthenticator(creds.user_jwt, new TextEncoder().encode(creds.user_nkey_seed)),
    reconnectTimeWait: 100,
    maxReconnectAttempts: -1,
  });
  opened.push(nc);
  return nc;
}

async function accountOnResolver(account: string): Promise<Partial<Account>> {
  const reply = await sys.request(`$SYS.REQ.ACCOUNT.${account}.CLAIMS.LOOKUP`, '', { timeout: 2000 });
  return decode<Account>(reply.string()).nats;
}

/** The server refuses one more connection with `creds` (its -ERR sometimes arrives as a reset socket) and the account holds `limit`. */
async function expectLimit(creds: NatsCredentialsView, limit: number): Promise<void> {
  await expect(
    connect({ servers: nats.url, authenticator: jwtAuthenticator(creds.user_jwt, new TextEncoder().encode(creds.user_nkey_seed)), reconnect: false }),
  ).rejects.toThrow(/maximum account active connections exceeded|ECONNRESET|EPIPE/);
  const connz = (await (await fetch(`${nats.monitorUrl}/connz?acc=${creds.account_public_key}`)).json()) as { num_connections: number };
  expect(connz.num_connections).toBe(limit);
}

/** Subscribes and resolves with the first message, the subscription's permission error, or "timeout" after 300 ms. */
function firstOf(nc: NatsConnection, subject: string): Promise<string> {
  return new Promise((resolve) => {
    const sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        sub.unsubscribe();
        resolve(err ? `error: ${err.message}` : msg.string());
      },
    });
    setTimeout(() => {
      sub.unsubscribe();
      resolve('timeout');
    }, 300);
  });
}

async function row(userId: string) {
  return db.selectFrom('customers').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

describe('GET /api/nats', () => {
  it('when user.created arrives, then the user has their own account on the resolver and GET returns working starter credentials', async () => {
    const userId = randomUUID();
    await announce(userId);
    await vi.waitFor(async () => expect(await row(userId)).toBeDefined(), { timeout: 5000 });
    const creds = await getCreds(userId);
    expect(creds).toMatchObject({
      nats_connection: 'nats://localhost:4223',
      ws_connection: 'wss://ws.tradewind.test',
      plan: 'starter',
      subjects: ['basic.pumpfun', 'basic.bonk'],
      max_connections: 1,
      replay: false,
    });
    expect(creds.user_nkey_seed).toMatch(/^SU[A-Z2-7]{56}$/);
    const account = await accountOnResolver(creds.account_public_key);
    expect(account.limits?.conn).toBe(1);
    expect(account.tags).toContain('plan:starter');
    // The same credentials on a second call.
    expect((await getCreds(userId)).user_jwt).toBe(creds.user_jwt);

    const nc = await connectNative(creds);
    const sub = nc.subscribe('basic.pumpfun', { max: 1 });
    await nc.flush();
    svc.publish('basic.pumpfun', '{"n":1}');
    for await (const m of sub) expect(m.string()).toBe('{"n":1}');
    // One connection on starter: the server refuses a second.
    await expectLimit(creds, 1);
  });

  it('when GET comes before user.created, then the user is provisioned on the spot and the late event changes nothing', async () => {
    const userId = randomUUID();
    const creds = await getCreds(userId);
    expect(creds.plan).toBe('starter');
    await announce(userId);
    await new Promise((r) => setTimeout(r, 300));
    expect((await getCreds(userId)).user_jwt).toBe(creds.user_jwt);
  });

  it('when seeds are stored, then the database holds them sealed and no log line contains one', async () => {
    const userId = randomUUID();
    const creds = await getCreds(userId);
    const stored = await row(userId);
    expect(stored?.user_seed_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(creds.user_nkey_seed);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(creds.user_nkey_seed);
  });

  it('when ?format=creds, then the standard creds file is returned', async () => {
    const userId = randomUUID();
    const creds = await getCreds(userId);
    const res = await fetch(`${baseUrl}/api/nats?format=creds`, { headers: { authorization: await bearer(userId) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('tradewind.creds');
    const text = await res.text();
    expect(text).toContain('-----BEGIN NATS USER JWT-----');
    expect(text).toContain(creds.user_jwt);
    expect(text).toContain(creds.user_nkey_seed);
  });

  it('when there is no valid session or the request is malformed, then the answer says so', async () => {
    const none = await fetch(`${baseUrl}/api/nats`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ status: 401, message: 'No active session' });
    const forged = await fetch(`${baseUrl}/api/nats`, { headers: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln' } });
    expect(forged.status).toBe(401);
    const userId = randomUUID();
    const format = await fetch(`${baseUrl}/api/nats?format=xml`, { headers: { authorization: await bearer(userId) } });
    expect(format.status).toBe(400);
    expect(await format.json()).toEqual({ error: 'invalid_argument', message: 'format must be "json" or "creds", not "xml"' });
    const body = await fetch(`${baseUrl}/api/nats`, {
      method: 'POST',
      headers: { authorization: await bearer(userId), 'content-type': 'application/json' },
      body: '{"seed":"x"}',
    });
    expect(body.status).toBe(400);
    expect(((await body.json()) as { error: string }).error).toBe('invalid_argument');
    const badJson = await fetch(`${baseUrl}/api/nats`, {
      method: 'POST',
      headers: { authorization: await bearer(userId), 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    // Nothing was provisioned by refused requests.
    expect(await row(userId)).toBeUndefined();
  });
});

describe('POST /api/nats (rotation)', () => {
  it('when a user rotates, then the old credential is revoked and its connection closed for good, the new one works, and credentials.rotated is emitted', async () => {
    const userId = randomUUID();
    const old = await getCreds(userId);
    const nc = await connectNative(old);
    const statuses: string[] = [];
    void (async () => {
      for await (const s of nc.status()) statuses.push(s.type);
    })();
    await nc.flush();

    const started = Date.now();
    const res = await fetch(`${baseUrl}/api/nats`, { method: 'POST', headers: { authorization: await bearer(userId) } });
    expect(res.status).toBe(200);
    const fresh = (await res.json()) as NatsCredentialsView;
    expect(fresh.user_public_key).not.toBe(old.user_public_key);
    expect(fresh.account_public_key).toBe(old.account_public_key);
    expect(fresh.user_nkey_seed).not.toBe(old.user_nkey_seed);

    // The old connection is dropped and cannot come back.
    await vi.waitFor(() => expect(statuses).toContain('disconnect'), { timeout: 5000 });
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(
      connect({ servers: nats.url, authenticator: jwtAuthenticator(old.user_jwt, new TextEncoder().encode(old.user_nkey_seed)), reconnect: false }),
    ).rejects.toThrow(/Authorization Violation/i);
    const account = await accountOnResolver(old.account_public_key);
    expect(Object.keys(account.revocations ?? {})).toContain(old.user_public_key);

    await nc.close();
    const next = await connectNative(fresh);
    await next.flush();
    expect((await getCreds(userId)).user_jwt).toBe(fresh.user_jwt);

    // credentials.rotated on EVENTS.
    const jsm = await jetstreamManager(svc);
    const consumer = await jsm.consumers.add(EVENTS_STREAM, {
      filter_subject: 'credentials.rotated',
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      inactive_threshold: 10_000_000_000,
    });
    const events: Array<EventTypes['credentials.rotated']> = [];
    await vi.waitFor(
      async () => {
        const c = await js.consumers.get(EVENTS_STREAM, consumer.name);
        const batch = await c.fetch({ max_messages: 100, expires: 1000 });
        for await (const m of batch) events.push(decodeEvent(m.subject, m.data) as EventTypes['credentials.rotated']);
        expect(events.some((e) => e.userId === userId)).toBe(true);
      },
      { timeout: 5000 },
    );
    const event = events.find((e) => e.userId === userId)!;
    expect(event).toMatchObject({ userPublicKey: fresh.user_public_key, previousUserPublicKey: old.user_public_key, accountPublicKey: old.account_public_key });
  });

  it('when a user rotates more often than the daily limit, then 429 says when the next is possible and nothing changes', async () => {
    const userId = randomUUID();
    await getCreds(userId);
    const auth = await bearer(userId);
    for (let i = 0; i < 3; i++) expect((await fetch(`${baseUrl}/api/nats`, { method: 'POST', headers: { authorization: auth } })).status).toBe(200);
    const before = await getCreds(userId);
    const refused = await fetch(`${baseUrl}/api/nats`, { method: 'POST', headers: { authorization: auth } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error: 'resource_exhausted',
      message: expect.stringMatching(/at most 3 credential rotations per 24 hours; the next is possible at \d{4}-/),
    });
    expect((await getCreds(userId)).user_jwt).toBe(before.user_jwt);
  });
});

describe('subscription.changed', () => {
  it('when a starter upgrades to pro and later falls back, then the account follows within seconds and live native connections are re-authorised', async () => {
    const userId = randomUUID();
    await announce(userId);
    await vi.waitFor(async () => expect(await row(userId)).toBeDefined(), { timeout: 5000 });
    const creds = await getCreds(userId);
    const nc = await connectNative(creds);
    const statuses: string[] = [];
    void (async () => {
      for await (const st of nc.status()) statuses.push(st.type);
    })();
    expect(await firstOf(nc, 'premium.raydium')).toMatch(/Permissions Violation/);

    const upgradedAt = Date.now();
    await changePlan(userId, 'pro', 1);
    await vi.waitFor(async () => expect((await row(userId))?.plan).toBe('pro'), { timeout: 5000 });
    expect((await accountOnResolver(creds.account_public_key)).limits?.conn).toBe(5);
    // The server dropped the live connection (re-authorisation) within 5 s ...
    await vi.waitFor(() => expect(statuses).toContain('disconnect'), { timeout: 5000, interval: 50 });
    expect(Date.now() - upgradedAt).toBeLessThan(5000);
    await nc.close();
    // ... and the same credentials, connecting again, receive premium trades.
    const upgraded = await connectNative(creds);
    const got = firstOf(upgraded, 'premium.raydium');
    await upgraded.flush();
    svc.publish('premium.raydium', 'swap-on-pro');
    expect(await got).toBe('swap-on-pro');
    const view = await getCreds(userId);
    expect(view).toMatchObject({ plan: 'pro', max_connections: 5, replay: true, user_jwt: creds.user_jwt });
    // Pro: five connections in all, the sixth refused by the server.
    const extra: NatsConnection[] = [];
    for (let i = 0; i < 4; i++) extra.push(await connectNative(creds));
    await expectLimit(creds, 5);
    for (const c of extra) await c.close();

    // Stale event: ignored.
    await changePlan(userId, 'plus', 1);
    await new Promise((r) => setTimeout(r, 300));
    expect((await row(userId))?.plan).toBe('pro');
    // Payment failure beyond grace: unpaid -> starter. The live premium connection is dropped within 5 s.
    const liveStatuses: string[] = [];
    void (async () => {
      for await (const st of upgraded.status()) liveStatuses.push(st.type);
    })();
    const premium: string[] = [];
    upgraded.subscribe('premium.raydium', {
      callback: (err, m) => {
        if (!err) premium.push(m.string());
      },
    });
    await upgraded.flush();
    const changedAt = Date.now();
    await changePlan(userId, 'pro', 2, 'unpaid');
    await vi.waitFor(async () => expect((await row(userId))?.plan).toBe('starter'), { timeout: 5000 });
    await vi.waitFor(() => expect(liveStatuses).toContain('disconnect'), { timeout: 5000, interval: 50 });
    expect(Date.now() - changedAt).toBeLessThan(5000);
    await upgraded.close();
    const received = premium.length;
    svc.publish('premium.raydium', 'swap-after-downgrade');
    await svc.flush();
    const downgraded = await connectNative(creds);
    expect(await firstOf(downgraded, 'premium.raydium')).toMatch(/Permissions Violation/);
    expect(premium.length).toBe(received);
    expect((await row(userId))?.subscription_version).toBe('2');
    expect((await accountOnResolver(creds.account_public_key)).tags).toContain('plan:starter');
  });
});

describe("native Pro replay (JetStream consumer with the customer's own credentials)", () => {
  it('when a pro replays from a stream sequence, then exactly the stored trades from there arrive; other names, starters and downgraded users are refused', async () => {
    const userId = randomUUID();
    await changePlan(userId, 'pro', 1);
    await vi.waitFor(async () => expect((await row(userId))?.plan).toBe('pro'), { timeout: 5000 });
    const creds = await getCreds(userId);
    const tag = randomUUID().slice(0, 8);
    const seqs: number[] = [];
    for (let i = 0; i < 6; i++) seqs.push((await js.publish('basic.bonk', JSON.stringify({ signature: `${tag}-${i}` }), { msgID: `${tag}-${i}` })).seq);
    const from = seqs[2]!;

    const nc = await connectNative(creds);
    const jsm = await jetstreamManager(nc, { apiPrefix: REPLAY_API_PREFIX, checkAPI: false });
    // The mirror in REPLAY keeps TRADES' sequence numbers; wait until it has caught up.
    await vi.waitFor(
      async () => {
        const info = await jsm.consumers.add(TRADES_STREAM, {
          name: creds.account_public_key,
          filter_subject: 'basic.bonk',
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: from,
          ack_policy: AckPolicy.None,
          inactive_threshold: 60_000_000_000,
        });
        expect(info.num_pending).toBeGreaterThanOrEqual(4);
      },
      { timeout: 5000, interval: 200 },
    );
    const consumer = await jetstream(nc, { apiPrefix: REPLAY_API_PREFIX, checkAPI: false }).consumers.get(TRADES_STREAM, creds.account_public_key);
    const got: Array<{ seq: number; signature: string }> = [];
    for await (const m of await consumer.fetch({ max_messages: 100, expires: 1000 }))
      got.push({ seq: m.seq, signature: m.json<{ signature: string }>().signature });
    const mine = got.filter((g) => g.signature.startsWith(tag));
    expect(mine.map((g) => g.seq)).toEqual(seqs.slice(2));
    expect(mine.map((g) => g.signature)).toEqual([2, 3, 4, 5].map((i) => `${tag}-${i}`));

    // Any other consumer name is unreachable from this account.
    await expect(jsm.consumers.add(TRADES_STREAM, { name: 'someone-else', ack_policy: AckPolicy.None })).rejects.toThrow();

    // A starter has no replay API at all.
    const starter = await getCreds(randomUUID());
    const snc = await connectNative(starter);
    const sjsm = await jetstreamManager(snc, { apiPrefix: REPLAY_API_PREFIX, checkAPI: false, timeout: 1000 });
    await expect(sjsm.consumers.add(TRADES_STREAM, { name: starter.account_public_key, ack_policy: AckPolicy.None })).rejects.toThrow(
      /Permissions Violation|timeout|no responders/i,
    );

    // Falling back to starter deletes the replay consumer.
    const replayJsm = await jetstreamManager(replayNc);
    await replayJsm.consumers.info(TRADES_STREAM, creds.account_public_key);
    await changePlan(userId, 'pro', 2, 'canceled');
    await vi.waitFor(async () => expect((await row(userId))?.plan).toBe('starter'), { timeout: 5000 });
    await expect(replayJsm.consumers.info(TRADES_STREAM, creds.account_public_key)).rejects.toThrow(/consumer not found/i);
  });
});
