/**
 * ws-fanout through a Redis outage (issue 24; policy in docs/websocket.md §6 and the chaos run
 * scripts/reliability/chaos/edge.ts): a real ws-fanout process (src/main.ts) on a private
 * redis-server that is stopped and started again empty. Live connections keep streaming, a login
 * during the outage is refused at once with `unavailable` (4503), and once Redis is back the live
 * connections' slots are written back before anyone else is admitted, so plan limits hold.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { freePort, waitForPort } from '@tradewind/dev';
import { ConnectionLimiter } from '../src/domain/connection-limiter.js';
import { createCustomer, processEnv, startTestEnv, TestClient, type TestCustomer, type TestEnv } from './support.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let env: TestEnv;
let redisPort: number;
let redisProc: ChildProcess | undefined;
let fanout: ChildProcess | undefined;
let fanoutUrl: string;
let fanoutOutput = '';

const alive = (p: ChildProcess | undefined) => p !== undefined && p.exitCode === null && p.signalCode === null;

async function startRedis(): Promise<void> {
  const proc = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redisProc = proc;
  await waitForPort(redisPort, '127.0.0.1', 10_000, () => alive(proc));
}

async function stopRedis(): Promise<void> {
  const proc = redisProc;
  if (!alive(proc)) return;
  const exited = new Promise((r) => proc!.once('exit', r));
  proc!.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  env = await startTestEnv();
  redisPort = await freePort();
  await startRedis();
  const [port, adminPort] = [await freePort(), await freePort()];
  fanoutUrl = `ws://127.0.0.1:${port}`;
  fanout = spawn(process.execPath, ['--import', 'tsx', 'services/ws-fanout/src/main.ts'], {
    cwd: ROOT,
    env: processEnv(env, port, adminPort, { REDIS_URL: `redis://127.0.0.1:${redisPort}`, WS_WORKERS: '1', LOG_LEVEL: 'warn', CONNECTION_LEASE_MS: '30000' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d: Buffer) => {
    fanoutOutput = (fanoutOutput + d.toString()).slice(-4000);
  };
  fanout.stdout?.on('data', keep);
  fanout.stderr?.on('data', keep);
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`http://127.0.0.1:${adminPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (!alive(fanout) || Date.now() > deadline) throw new Error(`ws-fanout not ready: ${fanoutOutput}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  for (const p of [fanout, redisProc]) {
    if (!alive(p)) continue;
    const exited = new Promise((r) => p!.once('exit', r));
    p!.kill('SIGKILL');
    await exited;
  }
  await env?.stop();
});

/** One login; the server's answer and the client. */
async function attempt(customer: TestCustomer): Promise<{ client: TestClient; reply: Record<string, unknown> }> {
  const client = new TestClient(fanoutUrl);
  await client.opened;
  await client.next();
  const user = await customer.user();
  client.send({ jwt: user.jwt, nkey: user.seed });
  return { client, reply: await client.next(5000) };
}

describe('ws-fanout when Redis restarts', () => {
  it('when Redis is down, then a live connection keeps streaming and a new login is refused at once with unavailable (4503); when it is back, logins work again and the starter limit still counts the live connection', async () => {
    const starter = await createCustomer(env, 'starter');
    const live = await attempt(starter);
    expect(live.reply).toMatchObject({ type: 'authenticated' });
    live.client.send({ subject: 'basic.bonk' });
    expect(await live.client.next()).toMatchObject({ type: 'subscribed' });

    await stopRedis();
    const js = jetstream(env.nc);
    await js.publish('basic.bonk', JSON.stringify({ source: 'bonk', transaction_type: 'BUY', signature: 'during-outage', slot: 1 }));
    expect(await live.client.nextRaw(5000)).toMatch(/during-outage/);

    const started = Date.now();
    const refused = await attempt(await createCustomer(env, 'pro'));
    expect(refused.reply).toMatchObject({ type: 'error', code: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await refused.client.waitClosed()).code).toBe(4503);

    await startRedis();
    const upAt = Date.now();
    const pro = await createCustomer(env, 'pro');
    for (;;) {
      const { client, reply } = await attempt(pro);
      client.close();
      if (reply.type === 'authenticated') break;
      expect(reply).toMatchObject({ code: 'unavailable' });
      expect(Date.now() - upAt).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The live starter connection's slot was written back: a second one is over the plan's limit.
    const second = await attempt(starter);
    expect(second.reply).toMatchObject({ type: 'error', code: 'connection_limit' });
    live.client.close();
    expect(alive(fanout)).toBe(true);
  }, 40_000);

  it('when Redis comes back empty, then the limiter writes its held slots back before the next acquisition', async () => {
    const redis = createClient({ url: `redis://127.0.0.1:${redisPort}`, disableOfflineQueue: true });
    redis.on('error', () => undefined);
    await redis.connect();
    const limiter = new ConnectionLimiter(redis, 30_000);
    limiter.start(() => undefined);
    try {
      expect(await limiter.acquire('chaos-user', 'conn-1', 1)).toBe(true);
      await stopRedis();
      await expect(limiter.acquire('chaos-user', 'conn-2', 1)).rejects.toThrow();
      await startRedis();
      const deadline = Date.now() + 10_000;
      while (!redis.isReady) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await limiter.acquire('chaos-user', 'conn-2', 1)).toBe(false);
      expect(await redis.zCard('tw:ws:conns:chaos-user')).toBe(1);
    } finally {
      await limiter.stop().catch(() => undefined);
      await redis.quit().catch(() => undefined);
    }
  }, 30_000);
});
