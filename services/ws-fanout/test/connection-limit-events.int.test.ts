/**
 * connection.limited against a real operator-mode nats-server and Redis: one event per customer
 * per WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS, one across processes in the same interval, and a
 * refusal that never waits for (or fails with) the publish.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, decodeEvent, type EventTypes } from '@tradewind/contracts';
import { ensureEventsStreams } from '@tradewind/lib';
import { startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';
import { encodeCustomerAccount, encodeCustomerUser, newCustomerAccountKey, pushAccountJwt } from '@tradewind/credential-issuer';
import { uuidFromName } from '../src/connection-limit-events.js';

let env: TestEnv;
let jsm: JetStreamManager;
const apps: TestApp[] = [];

beforeAll(async () => {
  env = await startTestEnv();
  jsm = await jetstreamManager(env.nc);
});

afterAll(async () => {
  for (const a of apps) await a.app.stop();
  await env?.stop();
});

async function app(intervalMs: number): Promise<TestApp> {
  const started = await startTestApp(env, { WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS: intervalMs });
  apps.push(started);
  return started;
}

/** A starter customer account named after a Tradewind user id, as credential-issuer creates them. */
async function starterCustomer() {
  const userId = randomUUID();
  const spec = { accountPublicKey: newCustomerAccountKey(), name: userId, plan: 'starter' as const };
  await pushAccountJwt(env.sysNc, await encodeCustomerAccount(env.nats.identities, spec));
  const user = await encodeCustomerUser(env.nats.identities, spec.accountPublicKey, { name: userId, ttlSeconds: 600 });
  return { userId, account: spec.accountPublicKey, jwt: user.userJwt, seed: user.userSeed, userKey: user.userPublicKey };
}

/** Opens a connection that must be refused with connection_limit; @returns ms from sending credentials to the refusal. */
async function refused(url: string, creds: { jwt: string; seed: string }): Promise<number> {
  const c = new TestClient(url);
  await c.opened;
  await c.next();
  const sent = Date.now();
  c.send({ jwt: creds.jwt, nkey: creds.seed });
  expect(await c.next()).toMatchObject({ type: 'error', code: 'connection_limit' });
  const ms = Date.now() - sent;
  expect((await c.waitClosed()).code).toBe(4429);
  return ms;
}

/** connection.limited events stored in EVENTS for `account`, with their Nats-Msg-Id. */
async function limitedEvents(account: string): Promise<Array<{ msgId: string | undefined; event: EventTypes['connection.limited'] }>> {
  const info = await jsm.streams.info(EVENTS_STREAM);
  const out = [];
  for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(EVENTS_STREAM, { seq }).catch(() => null);
    if (!m || m.subject !== 'connection.limited') continue;
    const event = decodeEvent('connection.limited', m.data);
    if (event.accountPublicKey === account) out.push({ msgId: m.header?.get('Nats-Msg-Id'), event });
  }
  return out;
}

/** Waits until no refusal of the current `intervalMs` window is near its end (so two quick refusals share one window). */
async function awayFromWindowEnd(intervalMs: number, marginMs: number): Promise<void> {
  const into = Date.now() % intervalMs;
  if (intervalMs - into < marginMs) await new Promise((r) => setTimeout(r, intervalMs - into + 20));
}

describe('connection.limited', () => {
  it('when EVENTS cannot take the event, then the login is still refused at once and the failure is counted', async () => {
    const a = await app(60_000);
    const customer = await starterCustomer();
    const holder = await TestClient.authed(a.url, customer);
    const ms = await refused(a.url, customer);
    expect(ms).toBeLessThan(1_000);
    await vi.waitFor(async () => expect(await a.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'failed' })).toBe(1), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await a.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'published' })).toBe(0);
    holder.close();
    await holder.waitClosed();
  });

  it('when a customer keeps reconnecting past the limit, then one event per interval, naming the user, account, plan and limit', async () => {
    await ensureEventsStreams(jsm);
    const intervalMs = 1_000;
    const a = await app(intervalMs);
    const customer = await starterCustomer();
    const holder = await TestClient.authed(a.url, customer);
    await awayFromWindowEnd(intervalMs, 400);
    await refused(a.url, customer);
    await refused(a.url, customer);
    await vi.waitFor(async () => expect(await limitedEvents(customer.account)).toHaveLength(1), { timeout: 5_000, interval: 50 });
    expect(await a.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'suppressed' })).toBe(1);
    const [first] = await limitedEvents(customer.account);
    expect(first!.event).toMatchObject({
      userId: customer.userId,
      accountPublicKey: customer.account,
      userPublicKey: customer.userKey,
      plan: 'starter',
      limit: 1,
      transport: 'websocket',
    });
    expect(first!.event.meta).toMatchObject({ producer: 'ws-fanout', schemaVersion: 1 });
    expect(first!.msgId).toBe(first!.event.meta!.eventId);
    await new Promise((r) => setTimeout(r, intervalMs + 50));
    await refused(a.url, customer);
    await vi.waitFor(async () => expect(await limitedEvents(customer.account)).toHaveLength(2), { timeout: 5_000, interval: 50 });
    const ids = (await limitedEvents(customer.account)).map((e) => e.event.meta!.eventId);
    expect(new Set(ids).size).toBe(2);
    expect(await a.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'published' })).toBe(2);
    holder.close();
    await holder.waitClosed();
  });

  it('when two ws-fanout processes refuse the same customer in one interval, then EVENTS stores one event', async () => {
    await ensureEventsStreams(jsm);
    const intervalMs = 60_000;
    const a = await app(intervalMs);
    const b = await app(intervalMs);
    const customer = await starterCustomer();
    const holder = await TestClient.authed(a.url, customer);
    await awayFromWindowEnd(intervalMs, 5_000);
    await refused(a.url, customer);
    await refused(b.url, customer);
    await vi.waitFor(async () => expect(await b.metric('tradewind_ws_fanout_connection_limit_events_total', { outcome: 'duplicate' })).toBe(1), {
      timeout: 5_000,
      interval: 50,
    });
    const stored = await limitedEvents(customer.account);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.event.meta!.eventId).toBe(
      uuidFromName(`connection.limited\n${customer.account}\n${intervalMs}\n${Math.floor(stored[0]!.event.meta!.occurredAt!.getTime() / intervalMs)}`),
    );
    holder.close();
    await holder.waitClosed();
  });

  it('when the event id is derived, then it is a stable RFC 9562 version 8 UUID', () => {
    const id = uuidFromName('connection.limited\nAKEY\n60000\n1');
    expect(id).toBe(uuidFromName('connection.limited\nAKEY\n60000\n1'));
    expect(id).not.toBe(uuidFromName('connection.limited\nAKEY\n60000\n2'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
