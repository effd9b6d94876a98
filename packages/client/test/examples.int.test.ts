/**
 * The starter templates against the real stack, as their users run them (plain node, built code):
 * examples/websocket/client.mjs (this library, built to dist/) against ws-fanout, and
 * examples/typescript/src/resume.ts (compiled with tsc) against a Pro customer's native replay
 * consumer. Each is stopped and started again: the second run must print exactly the trades
 * published in between, once, in order.
 */
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connectNats, ensureTradesStream, type NatsConnection } from '@tradewind/lib';
import { ensureReplayMirror } from '@tradewind/credential-issuer';
import { createCustomer, startTestApp, startTestEnv, type TestApp, type TestEnv } from '../../../services/ws-fanout/test/support.js';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(pkgDir, '../..');
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');

let env: TestEnv;
let app: TestApp;
let js: JetStreamClient;
let replayNc: NatsConnection;
let work: string;
/** How long ws-fanout's app.stop() may take in afterAll, ms. */
const STOP_TIMEOUT_MS = 15_000;

beforeAll(async () => {
  // Inside the repository (so the compiled example finds node_modules) but git-ignored.
  mkdirSync(join(pkgDir, 'node_modules'), { recursive: true });
  work = mkdtempSync(join(pkgDir, 'node_modules', '.examples-test-'));
  // What a user of the published package gets: dist/ built by tsc (the exports map points there).
  execFileSync(process.execPath, [tsc, '-p', join(pkgDir, 'tsconfig.build.json')], { stdio: 'pipe' });
  execFileSync(process.execPath, [tsc, '-p', join(repoRoot, 'examples/typescript/tsconfig.json'), '--outDir', join(work, 'ts')], { stdio: 'pipe' });
  env = await startTestEnv();
  await ensureTradesStream(await jetstreamManager(env.nc));
  js = jetstream(env.nc);
  replayNc = await connectNats({ url: env.nats.url, creds: env.nats.identities.replay_user_creds, name: 'examples-test-replay' });
  await ensureReplayMirror(await jetstreamManager(replayNc));
  app = await startTestApp(env);
}, 120_000);

afterAll(async () => {
  // Bounded: a shutdown that never finishes is reported as a failure instead of hanging the run.
  const stopped = app ? await Promise.race([app.app.stop().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), STOP_TIMEOUT_MS))]) : true;
  await replayNc?.close();
  await env?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  if (!stopped) throw new Error(`ws-fanout's app.stop() did not finish within ${STOP_TIMEOUT_MS} ms`);
});

let counter = 0;
async function publish(subject: string): Promise<number> {
  const n = ++counter;
  const body = JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY', signature: `sig-examples-${Date.now()}-${n}`, n });
  return (await js.publish(subject, body, { msgID: `examples:${Date.now()}:${n}` })).seq;
}

/** A running example: its stdout lines parsed, its stderr kept. */
class Run {
  readonly lines: Array<Record<string, unknown>> = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(args: string[], envVars: Record<string, string>) {
    this.child = spawn(process.execPath, args, { env: { ...process.env, ...envVars }, cwd: work });
    let buffer = '';
    this.child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const p of parts) if (p) this.lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((r) => this.child.on('exit', (code) => r(code)));
  }

  async waitFor(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

describe('examples', () => {
  it('when the websocket example is stopped and started again with TRADEWIND_STATE, then the second run prints exactly the trades published in between', async () => {
    const user = await (await createCustomer(env, 'starter')).user();
    const vars = { TRADEWIND_JWT: user.jwt, TRADEWIND_NKEY_SEED: user.seed, TRADEWIND_WS_URL: app.url, TRADEWIND_STATE: join(work, 'positions.json') };
    const script = join(repoRoot, 'examples/websocket/client.mjs');
    const first = new Run([script, 'basic.pumpfun'], vars);
    await first.waitFor(() => first.stderr.includes('subscribed to basic.pumpfun'), 'subscribed');
    const seqs1: number[] = [];
    for (let i = 0; i < 5; i++) seqs1.push(await publish('basic.pumpfun'));
    await first.waitFor(() => first.lines.length >= 5, '5 trades');
    expect(await first.stop()).toBe(0);
    expect(first.lines.map((l) => l.seq)).toEqual(seqs1);
    expect(first.stderr).toContain('authenticated: plan starter');
    expect(JSON.parse(readFileSync(vars.TRADEWIND_STATE, 'utf8'))).toEqual({ 'basic.pumpfun': seqs1.at(-1) });

    const seqs2: number[] = [];
    for (let i = 0; i < 5; i++) seqs2.push(await publish('basic.pumpfun')); // while no client runs
    const second = new Run([script, 'basic.pumpfun'], vars);
    await second.waitFor(() => second.lines.length >= 5, '5 resumed trades');
    await new Promise((r) => setTimeout(r, 300));
    expect(await second.stop()).toBe(0);
    expect(second.lines.map((l) => l.seq)).toEqual(seqs2);
    expect(second.stderr).toContain(`resuming after seq ${seqs1.at(-1)}`);
  }, 60_000);

  it('when the websocket example gets a seed that is not the JWT’s, then it says so and exits 2 without connecting', async () => {
    const user = await (await createCustomer(env, 'starter')).user();
    const other = await (await createCustomer(env, 'starter')).user();
    const run = new Run([join(repoRoot, 'examples/websocket/client.mjs')], {
      TRADEWIND_JWT: user.jwt,
      TRADEWIND_NKEY_SEED: other.seed,
      TRADEWIND_WS_URL: app.url,
    });
    expect(await run.exited).toBe(2);
    expect(run.stderr).toMatch(/bad settings: the NKey seed belongs to U[A-Z0-9]+, not to the JWT's user/);
  });

  it('when the native resumable reader is stopped and started again, then it resumes from the saved stream sequence: every trade once, in order (Pro)', async () => {
    const user = await (await createCustomer(env, 'pro')).user();
    const state = join(work, 'pumpfun.seq');
    const vars = { TRADEWIND_JWT: user.jwt, TRADEWIND_NKEY_SEED: user.seed, TRADEWIND_NATS_URL: env.nats.url };
    const script = join(work, 'ts/resume.js');
    const seqs1: number[] = [];
    for (let i = 0; i < 5; i++) seqs1.push(await publish('basic.pumpfun'));
    await publish('basic.bonk'); // another subject: filtered out
    const first = new Run([script, 'basic.pumpfun', '--from', String(seqs1[0]), '--state', state], vars);
    await first.waitFor(() => first.lines.length >= 5, '5 trades');
    expect(await first.stop()).toBe(0);
    expect(first.lines.map((l) => l.seq)).toEqual(seqs1);
    expect(readFileSync(state, 'utf8').trim()).toBe(String(seqs1.at(-1)));

    const seqs2: number[] = [];
    for (let i = 0; i < 5; i++) seqs2.push(await publish('basic.pumpfun'));
    const second = new Run([script, 'basic.pumpfun', '--state', state], vars);
    await second.waitFor(() => second.lines.length >= 5, '5 resumed trades');
    const seqs3 = [await publish('basic.pumpfun')]; // live after the catch-up
    await second.waitFor(() => second.lines.length >= 6, 'the live trade');
    await new Promise((r) => setTimeout(r, 300));
    expect(await second.stop()).toBe(0);
    expect(second.lines.map((l) => l.seq)).toEqual([...seqs2, ...seqs3]);
    expect(second.stderr).toContain(`resuming basic.pumpfun after stream sequence ${seqs1.at(-1)}`);
  }, 60_000);

  it('when the native slot example runs, then each trade is printed at once and its slot is later marked confirmed, final or void (starter)', async () => {
    const user = await (await createCustomer(env, 'starter')).user();
    const vars = { TRADEWIND_JWT: user.jwt, TRADEWIND_NKEY_SEED: user.seed, TRADEWIND_NATS_URL: env.nats.url };
    const run = new Run([join(work, 'ts/slots.js'), 'basic.pumpfun'], vars);
    await run.waitFor(() => run.stderr.includes('connected'), 'connected');
    const slot = 7_000_000 + (Date.now() % 1_000_000);
    const trade = async (s: number, signature: string) =>
      js.publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', type: 'trade', transaction_type: 'BUY', signature, slot: s, commitment: 'processed' }), {
        msgID: `examples-slots:${signature}`,
      });
    const status = async (s: number, st: string, extra: Record<string, unknown> = {}) =>
      js.publish(
        'slots',
        JSON.stringify({
          type: 'slot',
          slot: s,
          parent: s - 1,
          status: st,
          trades: { 'basic.pumpfun': 1 },
          source: 'yellowstone',
          observed_at_ms: Date.now(),
          schema_version: 1,
          ...extra,
        }),
        { msgID: `examples-slots:${s}:${st}` },
      );
    await trade(slot, `sigA${slot}`);
    await trade(slot + 1, `sigB${slot}`);
    await status(slot, 'processed');
    await status(slot, 'confirmed');
    await status(slot + 1, 'dead', { reason: 'skipped' });
    await status(slot, 'finalized');
    await run.waitFor(() => run.lines.length >= 5, '2 trades and 3 statuses');
    expect(await run.stop()).toBe(0);
    expect(run.lines).toEqual([
      { event: 'trade', slot, signature: `sigA${slot}` },
      { event: 'trade', slot: slot + 1, signature: `sigB${slot}` },
      { event: 'confirmed', slot, signatures: [`sigA${slot}`] },
      { event: 'void', slot: slot + 1, signatures: [`sigB${slot}`], reason: 'skipped' },
      { event: 'final', slot, signatures: [`sigA${slot}`] },
    ]);
  }, 60_000);
});
