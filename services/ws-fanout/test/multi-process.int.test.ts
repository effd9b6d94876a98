/**
 * Connection limits across real ws-fanout processes: two `node --import tsx src/main.ts` children
 * (started as scripts/start.ts starts the service) share one Redis and one operator-mode NATS
 * server. Proves the per-customer slots hold across processes, under a race, and free themselves
 * one lease after a process dies with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@tradewind/dev';
import { createCustomer, processEnv, startTestEnv, TestClient, type TestCustomer, type TestEnv } from './support.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Lease on a connection slot in the children (CONNECTION_LEASE_MS); renewed every 1 s (a third, at least 1 s). */
const LEASE_MS = 3000;

interface Child {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly url: string;
  readonly adminUrl: string;
  output: string;
}

let env: TestEnv;
const children: Child[] = [];
const killAll = () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
};

/** Starts one ws-fanout process and waits until its /readyz answers 200. */
async function startChild(name: string): Promise<Child> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, ['--import', 'tsx', 'services/ws-fanout/src/main.ts'], {
    cwd: ROOT,
    // One process each: this file is about limits across processes (pods); cluster.int.test.ts covers workers.
    env: processEnv(env, port, adminPort, { CONNECTION_LEASE_MS: String(LEASE_MS), WS_WORKERS: '1', LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child: Child = { name, proc, url: `ws://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}`, output: '' };
  children.push(child);
  const keep = (d: Buffer) => {
    child.output = (child.output + d.toString()).slice(-4000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}: ${child.output}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready after 30 s: ${child.output}`);
    const ready = await fetch(`${child.adminUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  process.once('exit', killAll); // even if the worker dies before afterAll
  env = await startTestEnv();
}, 60_000);

afterAll(async () => {
  killAll();
  await Promise.all(children.map((c) => (c.proc.exitCode !== null || c.proc.signalCode !== null ? undefined : new Promise((r) => c.proc.once('exit', r)))));
  await env?.stop();
});

/** One authentication attempt; resolves to the server's answer (`authenticated` or an error) and the client. */
async function attempt(url: string, customer: TestCustomer): Promise<{ client: TestClient; reply: Record<string, unknown> }> {
  const client = new TestClient(url);
  await client.opened;
  await client.next(); // challenge
  const user = await customer.user();
  client.send({ jwt: user.jwt, nkey: user.seed });
  return { client, reply: await client.next(5000) };
}

describe('two ws-fanout processes sharing Redis', () => {
  let a: Child;
  let b: Child;

  beforeAll(async () => {
    [a, b] = await Promise.all([startChild('ws-fanout-a'), startChild('ws-fanout-b')]);
  }, 60_000);

  it('when a pro customer opens connections on both processes, then exactly 5 are accepted and the 6th is refused on either, naming the limit', async () => {
    const pro = await createCustomer(env, 'pro');
    const open: TestClient[] = [];
    for (const url of [a.url, b.url, a.url, b.url, a.url]) {
      const { client, reply } = await attempt(url, pro);
      expect(reply).toMatchObject({ type: 'authenticated', plan: 'pro' });
      open.push(client);
    }
    for (const url of [a.url, b.url]) {
      const { client, reply } = await attempt(url, pro);
      expect(reply).toMatchObject({ type: 'error', code: 'connection_limit' });
      expect(String(reply.message)).toMatch(/the pro plan allows 5 concurrent connections/);
      expect((await client.waitClosed()).code).toBe(4429);
    }
    for (const c of open) c.close();
    await Promise.all(open.map((c) => c.waitClosed()));
  });

  it('when 10 connections of one starter customer race across both processes, then exactly 1 is accepted', async () => {
    const starter = await createCustomer(env, 'starter');
    const users = await Promise.all(Array.from({ length: 10 }, () => starter.user()));
    const clients = users.map((_, i) => new TestClient(i % 2 === 0 ? a.url : b.url));
    await Promise.all(
      clients.map(async (c) => {
        await c.opened;
        await c.next();
      }),
    );
    clients.forEach((c, i) => c.send({ jwt: users[i]!.jwt, nkey: users[i]!.seed }));
    const replies = await Promise.all(clients.map((c) => c.next(5000)));
    expect(replies.filter((r) => r.type === 'authenticated')).toHaveLength(1);
    expect(replies.filter((r) => r.code === 'connection_limit')).toHaveLength(9);
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.waitClosed()));
  });

  it('when a process holding connections is killed with SIGKILL, then its slots stay taken until the lease runs out and are free after at most one lease', async () => {
    const pro = await createCustomer(env, 'pro');
    const onB = (await attempt(b.url, pro)).client;
    const onA: TestClient[] = [];
    for (let i = 0; i < 4; i++) {
      const { client, reply } = await attempt(a.url, pro);
      expect(reply).toMatchObject({ type: 'authenticated' });
      onA.push(client);
    }
    a.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await Promise.all(onA.map((c) => c.waitClosed()));

    // Within the lease the dead process's 4 slots still count.
    const early = await attempt(b.url, pro);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS - 1000);
    expect(early.reply).toMatchObject({ type: 'error', code: 'connection_limit' });

    // After at most one lease they are all free: 4 more on the surviving process, then the limit again.
    // (Each lease runs out on its own: one taken after the last renewal expires up to a second later.)
    const more: TestClient[] = [];
    while (more.length < 4) {
      if (Date.now() - killedAt > LEASE_MS + 5000) throw new Error(`only ${more.length} of the dead process's 4 slots were freed`);
      const { client, reply } = await attempt(b.url, pro);
      if (reply.type === 'authenticated') more.push(client);
      else await new Promise((r) => setTimeout(r, 100));
    }
    const freedAfterMs = Date.now() - killedAt;
    console.info(`all slots of the killed process were free ${freedAfterMs} ms after SIGKILL (lease ${LEASE_MS} ms)`);
    expect(freedAfterMs).toBeLessThanOrEqual(LEASE_MS + 1000); // one lease, plus the polling and a loaded machine
    const sixth = await attempt(b.url, pro);
    expect(sixth.reply).toMatchObject({ type: 'error', code: 'connection_limit' });
    for (const c of [onB, ...more]) c.close();
  });
});
