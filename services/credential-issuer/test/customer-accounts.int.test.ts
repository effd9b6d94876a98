/**
 * Per-customer accounts against a real operator-mode nats-server (Debian's 2.9 here): the
 * server itself refuses connections over the plan's limit, premium subscriptions and any
 * publish; reauthorize() applies plan changes and revocations to live connections.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '@tradewind/lib';
import type { PlanId } from '@tradewind/contracts';
import { freePort } from '@tradewind/dev';
import { encodeCustomerUser, newCustomerAccountKey, pushAccountJwt, encodeCustomerAccount, reauthorize, type CustomerAccountSpec } from '../src/index.js';
import { startLocalNats, type LocalNats } from '@tradewind/dev';

let stateDir: string;
let nats: LocalNats;
let svc: NatsConnection;
let sys: NatsConnection;
const opened: NatsConnection[] = [];

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-cust-'));
  nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
  svc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'svc' });
  sys = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'sys' });
});

afterAll(async () => {
  for (const nc of opened) await nc.close().catch(() => undefined);
  await svc?.close();
  await sys?.close();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

/** A customer on `plan` with one user: the account pushed to the resolver, and the user's credentials. */
async function customer(plan: PlanId) {
  const spec: CustomerAccountSpec = { accountPublicKey: newCustomerAccountKey(), name: `user-${plan}`, plan };
  await pushAccountJwt(sys, await encodeCustomerAccount(nats.identities, spec));
  const user = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 3600 });
  return { spec, user };
}

async function dial(user: { userJwt: string; userSeed: string }, options: { reconnect?: boolean } = {}): Promise<NatsConnection> {
  const nc = await connect({
    servers: nats.url,
    authenticator: jwtAuthenticator(user.userJwt, new TextEncoder().encode(user.userSeed)),
    reconnect: options.reconnect ?? false,
    reconnectTimeWait: 100,
    maxReconnectAttempts: -1,
  });
  opened.push(nc);
  return nc;
}

/**
 * Expects the server to refuse one more connection of `spec`'s account: the dial fails (the
 * server's -ERR sometimes arrives as a reset socket) and the account holds `limit` connections.
 */
async function expectLimit(spec: CustomerAccountSpec, user: { userJwt: string; userSeed: string }, limit: number): Promise<void> {
  await expect(dial(user)).rejects.toThrow(/maximum account active connections exceeded|ECONNRESET|EPIPE/);
  const connz = (await (await fetch(`${nats.monitorUrl}/connz?acc=${spec.accountPublicKey}`)).json()) as { num_connections: number };
  expect(connz.num_connections).toBe(limit);
}

/** Subscribes and resolves with the first message or the subscription's permission error. */
function firstOf(nc: NatsConnection, subject: string): Promise<string> {
  return new Promise((resolve) => {
    nc.subscribe(subject, { callback: (err, msg) => resolve(err ? `error: ${err.message}` : msg.string()) });
  });
}

describe('native limits enforced by nats-server', () => {
  it('when a starter opens a second connection, then the server refuses it', async () => {
    const { spec, user } = await customer('starter');
    await dial(user);
    await expectLimit(spec, user, 1);
  });

  it('when a pro opens a sixth connection, then the server refuses it', async () => {
    const { spec, user } = await customer('pro');
    for (let i = 0; i < 5; i++) await dial(user);
    await expectLimit(spec, user, 5);
  });

  it('when a starter subscribes to premium.* or publishes, then the server refuses; basic subjects flow', async () => {
    const { user } = await customer('starter');
    const nc = await dial(user);
    const premium = firstOf(nc, 'premium.pumpswap');
    const wildcard = firstOf(nc, 'premium.*');
    const basic = firstOf(nc, 'basic.bonk');
    await nc.flush();
    svc.publish('premium.pumpswap', 'premium-trade');
    svc.publish('basic.bonk', 'basic-trade');
    expect(await premium).toMatch(/Permissions Violation for Subscription to "premium.pumpswap"/);
    expect(await wildcard).toMatch(/Permissions Violation for Subscription to "premium\.\*"/);
    expect(await basic).toBe('basic-trade');
    const publishRefused = new Promise<string>((resolve) => {
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') resolve(String((s as { error?: unknown }).error));
      })();
    });
    nc.publish('basic.bonk', 'forged');
    expect(await publishRefused).toMatch(/Permissions Violation for Publish to "basic.bonk"/);
  });
});

describe('plan changes and revocation on live connections (reauthorize)', () => {
  it("when a starter is upgraded to plus, then the same credentials reconnect and premium.raydium flows; the connection limit stays the plan's", async () => {
    const { spec, user } = await customer('starter');
    const nc = await dial(user, { reconnect: true });
    await reauthorize(sys, nats.identities, { ...spec, plan: 'plus' });
    await vi.waitFor(
      async () => {
        const got = firstOf(nc, 'premium.raydium');
        await nc.flush();
        svc.publish('premium.raydium', 'upgraded');
        const first = await Promise.race([got, new Promise<string>((r) => setTimeout(() => r('timeout'), 300))]);
        expect(first).toBe('upgraded');
      },
      { timeout: 5_000, interval: 100 },
    );
    await expectLimit(spec, user, 1);
  });

  it('when a plus user is downgraded to starter, then within 5 s the server stops their premium stream and refuses it again', async () => {
    const { spec, user } = await customer('plus');
    const nc = await dial(user, { reconnect: true });
    const received: string[] = [];
    nc.subscribe('premium.pumpswap', {
      callback: (err, msg) => {
        if (!err) received.push(msg.string());
      },
    });
    await nc.flush();
    svc.publish('premium.pumpswap', 'before');
    await vi.waitFor(() => expect(received).toEqual(['before']));
    const started = Date.now();
    await reauthorize(sys, nats.identities, { ...spec, plan: 'starter' });
    await vi.waitFor(
      async () => {
        expect(await firstOf(nc, 'premium.pumpswap')).toMatch(/Permissions Violation/);
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    svc.publish('premium.pumpswap', 'after');
    await svc.flush();
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual(['before']);
  });

  it('when credentials are rotated, then connections with the revoked user are closed and cannot come back; the new user connects', async () => {
    const { spec, user } = await customer('starter');
    const old = await dial(user);
    const closed = old.closed();
    const fresh = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 3600, now: Date.now() + 1000 });
    await reauthorize(sys, nats.identities, { ...spec, revocations: { [user.userPublicKey]: user.issuedAt } });
    await closed;
    await expect(dial(user)).rejects.toThrow(/Authorization Violation/);
    const nc = await dial(fresh);
    const basic = firstOf(nc, 'basic.pumpfun');
    await nc.flush();
    svc.publish('basic.pumpfun', 'for-the-new-user');
    expect(await basic).toBe('for-the-new-user');
  });
});
