import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '@tradewind/lib';
import { freePort } from '@tradewind/dev';
import { issueUserCredentials, type UserCredentials } from '../src/index.js';
import { startLocalNats, type LocalNats } from '@tradewind/dev';

let stateDir: string;
let nats: LocalNats;
let svc: NatsConnection;

const connectUser = (c: UserCredentials) =>
  connect({ servers: nats.url, authenticator: jwtAuthenticator(c.user_jwt, new TextEncoder().encode(c.user_nkey_seed)) });

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-ci-'));
  nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
  svc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'svc' });
});

afterAll(async () => {
  await svc?.close();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

describe('native NATS with issued credentials', () => {
  it('when a starter subscribes to basic.pumpfun, then it receives trades; premium.pumpswap is refused by the server', async () => {
    const creds = await issueUserCredentials(nats.identities, { plan: 'starter', natsUrl: nats.url, ttlSeconds: 3600 });
    const nc = await connectUser(creds);
    const got: string[] = [];
    const basic = nc.subscribe('basic.pumpfun', {
      callback: (_e, m) => {
        got.push(m.string());
      },
    });
    const refused = new Promise<Error>((resolve) => {
      nc.subscribe('premium.pumpswap', {
        callback: (err) => {
          if (err) resolve(err);
          else got.push('LEAKED premium');
        },
      });
    });
    await nc.flush();
    svc.publish('basic.pumpfun', '{"trade":1}');
    svc.publish('premium.pumpswap', '{"trade":"premium"}');
    const err = await refused;
    expect(err.message).toMatch(/Permissions Violation for Subscription to "premium.pumpswap"/);
    await svc.flush();
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toEqual(['{"trade":1}']);
    expect(basic.isClosed()).toBe(false);
    await nc.close();
  });

  it('when a starter publishes, then the server refuses it', async () => {
    const creds = await issueUserCredentials(nats.identities, { plan: 'starter', natsUrl: nats.url, ttlSeconds: 3600 });
    const nc = await connectUser(creds);
    const statuses: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') statuses.push(String((s as { error?: Error }).error?.message));
    })();
    nc.publish('basic.pumpfun', 'fake trade');
    await nc.flush();
    await new Promise((r) => setTimeout(r, 200));
    expect(statuses.join('\n')).toMatch(/Permissions Violation for Publish to "basic.pumpfun"/);
    await nc.close();
  });

  it('when a plus user subscribes to premium.raydium, then it receives', async () => {
    const creds = await issueUserCredentials(nats.identities, { plan: 'plus', natsUrl: nats.url, ttlSeconds: 3600 });
    const nc = await connectUser(creds);
    const sub = nc.subscribe('premium.raydium', { max: 1 });
    await nc.flush();
    svc.publish('premium.raydium', 'swap');
    for await (const m of sub) expect(m.string()).toBe('swap');
    await nc.close();
  });
});
