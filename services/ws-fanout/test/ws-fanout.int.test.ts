/** The service in-process against a real operator-mode nats-server and Redis: authentication, subscriptions, limits. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { encodeAccount, encodeUser, createAccount, createUser, decode, type Account } from '@nats-io/jwt';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, TRADE_PUBLISHED_MS_HEADER, TRADES_STREAM, decodeEvent, type EventTypes } from '@tradewind/contracts';
import { ensureEventsStreams, type NatsConnection } from '@tradewind/lib';
import { FEED_CONSUMER_PREFIX } from '../src/delivery/subject-feed.js';
import {
  encodeCustomerAccount,
  encodeCustomerUser,
  issueUserCredentials,
  keyPairFromSeed,
  newCustomerAccountKey,
  pushAccountJwt,
  type UserCredentials,
} from '@tradewind/credential-issuer';
import type { LocalNats } from '@tradewind/dev';
import { startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let t: TestApp;
let nats: LocalNats;
let nc: NatsConnection;
let sysNc: NatsConnection;
let url: string;
let eventsJsm: JetStreamManager;
const CACHE_TTL_MS = 200;

beforeAll(async () => {
  env = await startTestEnv();
  ({ nats, nc, sysNc } = env);
  // EVENTS, as auth/billing create it in a deployment: connection.limited lands there.
  eventsJsm = await jetstreamManager(nc);
  await ensureEventsStreams(eventsJsm);
  // A fixed clock keeps every test inside one rate window (keys are per user, so runs never share them).
  t = await startTestApp(env, {}, { cacheTtlMs: CACHE_TTL_MS, rateClock: () => 1_800_000_030_000 });
  url = t.url;
});

afterAll(async () => {
  await t?.app.stop();
  await env?.stop();
});

/** Connects and authenticates with issued credentials (per-plan accounts) or a customer account's user. */
const authed = (cr: UserCredentials | { jwt: string; seed: string }): Promise<TestClient> =>
  TestClient.authed(url, 'jwt' in cr ? cr : { jwt: cr.user_jwt, seed: cr.user_nkey_seed });

const creds = (plan: 'starter' | 'plus' | 'pro', extra: { ttlSeconds?: number; now?: number } = {}) =>
  issueUserCredentials(nats.identities, { plan, natsUrl: nats.url, ttlSeconds: extra.ttlSeconds ?? 0, ...(extra.now ? { now: extra.now } : {}) });

async function expectRefusal(c: TestClient, code: string, closeCode: number) {
  const msg = await c.next();
  expect(msg).toMatchObject({ type: 'error', code });
  expect(typeof msg.message).toBe('string');
  expect((await c.waitClosed()).code).toBe(closeCode);
}

async function authAttempt(body: unknown): Promise<TestClient> {
  const c = new TestClient(url);
  await c.opened;
  await c.next(); // challenge
  c.send(body);
  return c;
}

describe('ws-fanout', () => {
  it('when a starter authenticates and subscribes, then it receives the published trade bytes unchanged, counted as a starter connection with its delivery latency', async () => {
    const c = await authed(await creds('starter'));
    expect(await t.metric('tradewind_ws_fanout_connections', { plan: 'starter' })).toBe(1);
    c.send({ subject: 'basic.pumpfun' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.pumpfun' });
    const payload = '{"source":"pumpfun","transaction_type":"BUY","signature":"abc",  "spacing":"kept as published"}';
    // As ingest stamps it; 250 ms in the past, so the observed latency is at least that.
    const stamped = natsHeaders();
    stamped.set(TRADE_PUBLISHED_MS_HEADER, String(Date.now() - 250));
    nc.publish('basic.pumpfun', payload, { headers: stamped });
    nc.publish('basic.bonk', '{"source":"bonk"}'); // not subscribed: must not arrive
    expect(await c.nextTradeRaw()).toBe(payload);
    const latency = 'tradewind_ws_fanout_delivery_latency_seconds';
    expect(await t.metric(`${latency}_count`, { subject: 'basic.pumpfun' })).toBe(1);
    expect(await t.metric(`${latency}_sum`, { subject: 'basic.pumpfun' })).toBeGreaterThanOrEqual(0.25);
    expect(await t.metric(`${latency}_sum`, { subject: 'basic.pumpfun' })).toBeLessThan(5);
    // Without the header (or with a bad one), a trade is delivered but not observed.
    nc.publish('basic.pumpfun', '{"n":2}');
    expect(await c.nextTradeRaw()).toBe('{"n":2}');
    const garbled = natsHeaders();
    garbled.set(TRADE_PUBLISHED_MS_HEADER, 'yesterday');
    nc.publish('basic.pumpfun', '{"n":3}', { headers: garbled });
    expect(await c.nextTradeRaw()).toBe('{"n":3}');
    expect(await t.metric(`${latency}_count`, { subject: 'basic.pumpfun' })).toBe(1);
    c.close();
    await c.waitClosed();
    await expect.poll(() => t.metric('tradewind_ws_fanout_connections', { plan: 'starter' })).toBe(0);
  });

  it('when the client signs the challenge nonce instead of sending its seed, then it is authenticated', async () => {
    const cr = await creds('plus');
    const c = new TestClient(url);
    await c.opened;
    const challenge = await c.next();
    const kp = keyPairFromSeed(cr.user_nkey_seed);
    const sig = Buffer.from(kp.sign(new TextEncoder().encode(String(challenge.nonce)))).toString('base64url');
    c.send({ jwt: cr.user_jwt, sig });
    expect(await c.next()).toMatchObject({
      type: 'authenticated',
      plan: 'plus',
      subjects: ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'],
    });
    c.close();
  });

  it('when two clients subscribe to one subject, then the process reads it with one JetStream consumer and both receive', async () => {
    const a = await authed(await creds('plus'));
    const b = await authed(await creds('plus'));
    a.send({ subject: 'premium.raydium' });
    b.send({ subject: 'premium.raydium' });
    await a.next();
    await b.next();
    const feeds: string[] = [];
    for await (const info of (await jetstreamManager(nc)).consumers.list(TRADES_STREAM)) {
      if (info.name.startsWith(FEED_CONSUMER_PREFIX) && info.config.filter_subject === 'premium.raydium') feeds.push(info.name);
    }
    expect(feeds).toHaveLength(1);
    nc.publish('premium.raydium', '{"x":1}');
    expect(await a.nextTradeRaw()).toBe('{"x":1}');
    expect(await b.nextTradeRaw()).toBe('{"x":1}');
    a.close();
    b.close();
  });

  it('when a message is not JSON, then bad_json and close 4400', async () => {
    await expectRefusal(await authAttempt('{not json'), 'bad_json', 4400);
  });

  it('when jwt or nkey is missing, then missing_fields and close 4400', async () => {
    const cr = await creds('starter');
    await expectRefusal(await authAttempt({ jwt: cr.user_jwt }), 'missing_fields', 4400);
    await expectRefusal(await authAttempt({ nkey: cr.user_nkey_seed }), 'missing_fields', 4400);
  });

  it('when the JWT is tampered with, then invalid_jwt and close 4401', async () => {
    const cr = await creds('starter');
    const [h, p, s] = cr.user_jwt.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as { nats: { sub: { allow: string[] } } };
    claims.nats.sub.allow.push('premium.pumpswap');
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    await expectRefusal(await authAttempt({ jwt: forged, nkey: cr.user_nkey_seed }), 'invalid_jwt', 4401);
  });

  it("when the JWT is signed by a key that is not its account's, then invalid_signature", async () => {
    const rogue = createAccount();
    const user = createUser();
    const jwt = await encodeUser('rogue', user, nats.identities.customers.pro.identity.public_key, { sub: { allow: ['>'] } }, { signer: rogue });
    await expectRefusal(await authAttempt({ jwt, nkey: new TextDecoder().decode(user.getSeed()) }), 'invalid_signature', 4401);
  });

  it('when the JWT comes from an account the operator never signed, then unknown_account', async () => {
    const rogue = createAccount();
    const user = createUser();
    const jwt = await encodeUser('rogue', user, rogue, { sub: { allow: ['>'] } });
    await expectRefusal(await authAttempt({ jwt, nkey: new TextDecoder().decode(user.getSeed()) }), 'unknown_account', 4401);
  });

  it("when the seed is not the JWT user's, then nkey_mismatch", async () => {
    const a = await creds('starter');
    const b = await creds('starter');
    await expectRefusal(await authAttempt({ jwt: a.user_jwt, nkey: b.user_nkey_seed }), 'nkey_mismatch', 4401);
    await expectRefusal(await authAttempt({ jwt: a.user_jwt, nkey: 'SUnotaseed' }), 'nkey_mismatch', 4401);
  });

  it('when the JWT has expired, then expired', async () => {
    const old = await creds('starter', { ttlSeconds: 60, now: Date.now() - 3_600_000 });
    await expectRefusal(await authAttempt({ jwt: old.user_jwt, nkey: old.user_nkey_seed }), 'expired', 4401);
  });

  it('when the user JWT expires while connected, then expired and close 4401, as nats-server closes native connections', async () => {
    const c = await authed(await creds('starter', { ttlSeconds: 2 }));
    c.send({ subject: 'basic.pumpfun' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.pumpfun' });
    const err = await c.next();
    expect(err).toMatchObject({ type: 'error', code: 'expired' });
    expect((await c.waitClosed()).code).toBe(4401);
  });

  it('when the account revokes the user on the server, then revoked (within the cache TTL)', async () => {
    const cr = await creds('starter');
    const ok = await authed(cr);
    ok.close();
    const account = nats.identities.customers.starter;
    const current = decode<Account>(account.jwt);
    const userKey = decode(cr.user_jwt).sub;
    const updated = await encodeAccount(
      account.name,
      keyPairFromSeed(account.identity.seed),
      { ...current.nats, revocations: { [userKey]: Math.floor(Date.now() / 1000) + 1 } },
      { signer: keyPairFromSeed(nats.identities.operator.identity.seed) },
    );
    const reply = await sysNc.request('$SYS.REQ.CLAIMS.UPDATE', updated, { timeout: 2000 });
    expect(reply.string()).toContain('jwt updated');
    await new Promise((r) => setTimeout(r, CACHE_TTL_MS + 50));
    await expectRefusal(await authAttempt({ jwt: cr.user_jwt, nkey: cr.user_nkey_seed }), 'revoked', 4401);
    const fresh = await authed(await creds('starter'));
    fresh.close();
  });

  it('when a starter subscribes to a premium subject, then it is refused naming Plus and stays connected', async () => {
    const c = await authed(await creds('starter'));
    c.send({ subject: 'premium.pumpswap' });
    const err = await c.next();
    expect(err).toMatchObject({ type: 'error', code: 'subject_not_in_plan' });
    expect(String(err.message)).toMatch(/Plus plan/);
    c.send({ subject: 'no.such' });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'unknown_subject' });
    c.send({ subject: 'basic.bonk' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.bonk' });
    c.close();
  });

  it("when per-customer account users (no own permissions) authenticate, then the account's plan tag and default permissions apply", async () => {
    const connectCustomer = async (plan: 'starter' | 'pro') => {
      const spec = { accountPublicKey: newCustomerAccountKey(), name: `customer-${plan}`, plan };
      await pushAccountJwt(sysNc, await encodeCustomerAccount(nats.identities, spec));
      const user = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 600 });
      const c = new TestClient(url);
      await c.opened;
      await c.next();
      c.send({ jwt: user.userJwt, nkey: user.userSeed });
      return { c, authenticated: await c.next() };
    };
    const pro = await connectCustomer('pro');
    expect(pro.authenticated).toMatchObject({
      type: 'authenticated',
      plan: 'pro',
      subjects: ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'],
    });
    pro.c.send({ subject: 'premium.raydium' });
    expect(await pro.c.next()).toMatchObject({ type: 'subscribed', subject: 'premium.raydium' });
    const starter = await connectCustomer('starter');
    expect(starter.authenticated).toMatchObject({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'] });
    starter.c.send({ subject: 'premium.raydium' });
    expect(await starter.c.next()).toMatchObject({ type: 'error', code: 'subject_not_in_plan' });
    for (const c of [pro.c, starter.c]) {
      c.close();
      await c.waitClosed();
    }
  });

  it('when a starter exceeds 100 control requests per minute, then rate_limited naming the Plus limit, and the connection stays open', async () => {
    const c = await authed(await creds('starter'));
    // The authentication was request 1; 99 more are allowed.
    for (let i = 0; i < 99; i++) c.send({ subject: i % 2 === 0 ? 'basic.pumpfun' : 'basic.bonk' });
    for (let i = 0; i < 99; i++) expect((await c.next()).type).toBe('subscribed');
    c.send({ subject: 'basic.bonk' });
    const refused = await c.next();
    expect(refused).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(String(refused.message)).toMatch(/the Starter plan allows 100 per minute; .*the Plus plan allows 1,000/);
    expect(c.closed).toBeUndefined();
    nc.publish('basic.bonk', '{"still":"delivered"}');
    expect(await c.nextTradeRaw()).toBe('{"still":"delivered"}');
    c.close();
    await c.waitClosed();
  });

  it('when a client subscribes before authenticating, then not_authenticated and close 4401', async () => {
    await expectRefusal(await authAttempt({ subject: 'basic.pumpfun' }), 'not_authenticated', 4401);
  });

  it('when a frame exceeds the limit, then the socket is closed with 1009', async () => {
    const c = new TestClient(url);
    await c.opened;
    await c.next();
    c.send({ jwt: 'x'.repeat(20 * 1024), nkey: 'y' });
    expect((await c.waitClosed()).code).toBe(1009);
  });

  it('when no credentials arrive in time, then auth_timeout and close 4408', async () => {
    const c = new TestClient(url);
    await c.opened;
    await c.next();
    await expectRefusal(c, 'auth_timeout', 4408);
  });

  it('when a starter opens a second connection, then connection_limit 4429; after closing the first, a new one is accepted', async () => {
    const cr = await creds('starter');
    const first = await authed(cr);
    const second = await authAttempt({ jwt: cr.user_jwt, nkey: cr.user_nkey_seed });
    const err = await second.next();
    expect(err).toMatchObject({ type: 'error', code: 'connection_limit' });
    expect(String(err.message)).toMatch(/starter plan allows 1 concurrent connection/);
    expect((await second.waitClosed()).code).toBe(4429);
    first.close();
    await first.waitClosed();
    await new Promise((r) => setTimeout(r, 100));
    const third = await authed(cr);
    third.close();
  });

  it("when a customer account's second user JWT connects while the first holds the starter slot, then connection_limit: slots are per customer account, and one connection.limited event names the user", async () => {
    // As credential-issuer does: the account and its users are named with the Tradewind user id.
    const userId = randomUUID();
    const spec = { accountPublicKey: newCustomerAccountKey(), name: userId, plan: 'starter' as const };
    await pushAccountJwt(sysNc, await encodeCustomerAccount(nats.identities, spec));
    const userA = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 600 });
    const userB = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 600 });
    const first = await authed({ jwt: userA.userJwt, seed: userA.userSeed });
    const suppressed = await t.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'suppressed' });
    const second = await authAttempt({ jwt: userB.userJwt, nkey: userB.userSeed });
    const err = await second.next();
    expect(err).toMatchObject({ type: 'error', code: 'connection_limit' });
    expect(String(err.message)).toMatch(/starter plan allows 1 concurrent connection/);
    expect((await second.waitClosed()).code).toBe(4429);
    // A reconnect loop within WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS (60 s here) publishes nothing more.
    const third = await authAttempt({ jwt: userB.userJwt, nkey: userB.userSeed });
    expect(await third.next()).toMatchObject({ type: 'error', code: 'connection_limit' });
    await third.waitClosed();
    expect(await t.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'suppressed' })).toBe(suppressed + 1);
    const limited = async () => {
      const info = await eventsJsm.streams.info(EVENTS_STREAM);
      const found: Array<EventTypes['connection.limited']> = [];
      for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
        const m = await eventsJsm.streams.getMessage(EVENTS_STREAM, { seq }).catch(() => null);
        if (m?.subject === 'connection.limited') found.push(decodeEvent('connection.limited', m.data));
      }
      return found.filter((e) => e.accountPublicKey === spec.accountPublicKey);
    };
    await vi.waitFor(async () => expect(await limited()).toHaveLength(1), { timeout: 5_000, interval: 50 });
    expect((await limited())[0]).toMatchObject({ userId, userPublicKey: userB.userPublicKey, plan: 'starter', limit: 1, transport: 'websocket' });
    first.close();
    await first.waitClosed();
    await new Promise((r) => setTimeout(r, 100));
    const again = await authed({ jwt: userB.userJwt, seed: userB.userSeed });
    again.close();
    await again.waitClosed();
  });

  it('when two users of the legacy shared starter account connect at once, then both are accepted: slots stay per user key there', async () => {
    const a = await authed(await creds('starter'));
    const b = await authed(await creds('starter'));
    for (const c of [a, b]) {
      c.close();
      await c.waitClosed();
    }
  });

  it('when two user JWTs of one starter customer send control requests, then they share the 100 per minute budget', async () => {
    const spec = { accountPublicKey: newCustomerAccountKey(), name: 'customer-starter-rpm', plan: 'starter' as const };
    await pushAccountJwt(sysNc, await encodeCustomerAccount(nats.identities, spec));
    const userA = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 600 });
    const userB = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 600 });
    const a = await authed({ jwt: userA.userJwt, seed: userA.userSeed });
    // Authentication was request 1; 98 more make 99.
    for (let i = 0; i < 98; i++) a.send({ subject: 'basic.pumpfun' });
    for (let i = 0; i < 98; i++) expect((await a.next()).type).toBe('subscribed');
    a.close();
    await a.waitClosed();
    await new Promise((r) => setTimeout(r, 100));
    const b = await authed({ jwt: userB.userJwt, seed: userB.userSeed }); // request 100
    b.send({ subject: 'basic.bonk' });
    expect(await b.next()).toMatchObject({ type: 'error', code: 'rate_limited' });
    b.close();
    await b.waitClosed();
  });
});
