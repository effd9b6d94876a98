/**
 * The start-up retry (src/startup.ts) against real nats-servers: a refused connection retried with a
 * growing backoff until the server comes up or the deadline passes, an authorization violation and an
 * invalid stream config failing at once, an abort (what SIGTERM does) ending the wait, and one attempt
 * only outside a start-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startNatsServer, waitForPort, type TestNatsServer } from '@tradewind/dev';
import { connectNats, type NatsConnection } from '../src/nats.js';
import { ensureEventsStreams } from '../src/events.js';
import { createLogger } from '../src/logger.js';
import { isRetryableStartupError, retryStartup, runStartup, StartupAbortedError, StartupFailedError, startupBackoffDelay } from '../src/startup.js';

/** A logger whose lines are kept as objects. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ service: 'startup-test', level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  const retries = () => lines.filter((l) => l.level === 40 && typeof l.attempt === 'number');
  return { logger, lines, retries };
}

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

/** Spawns nats-server with `args` on `port` and waits until it listens. */
async function spawnNats(port: number, args: string[] = []): Promise<ChildProcess> {
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), ...args], {
    stdio: 'ignore',
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin` },
  });
  cleanup.push(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });
  await waitForPort(port, '127.0.0.1', 10_000, () => child.exitCode === null);
  return child;
}

describe('startupBackoffDelay', () => {
  it('when attempts fail in a row, then the delay bound doubles up to maxMs and each delay lies in [bound/2, bound]', () => {
    const backoff = { initialMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => startupBackoffDelay(n, backoff, () => 0.999999))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3, 4, 5, 6].map((n) => startupBackoffDelay(n, backoff, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
  });
});

describe('retryStartup against real NATS', () => {
  it('when no server listens yet, then the connection is retried with a growing backoff, each retry logged at warn, until the server comes up', async () => {
    const port = await freePort();
    const { logger, retries } = capturingLogger();
    const connecting = runStartup({ logger, deadlineMs: 60_000, backoff: { initialMs: 100, maxMs: 3_200 } }, () =>
      connectNats({ url: `nats://127.0.0.1:${port}`, name: 'startup-test' }),
    );
    // Four refusals logged (attempts 1-4), then the server appears.
    await expect.poll(() => retries().length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(4);
    await spawnNats(port);
    const nc: NatsConnection = await connecting;
    cleanup.push(() => nc.close());
    expect(nc.isClosed()).toBe(false);
    const logged = retries();
    expect(logged.slice(0, 4).map((l) => l.attempt)).toEqual([1, 2, 3, 4]);
    expect(logged[0]).toMatchObject({ startup_step: 'NATS connection startup-test', err: { type: 'ConnectionError' } });
    expect(String(logged[0]!.msg)).toMatch(/NATS connection startup-test failed \(attempt 1: connection refused\); retrying/);
    // Delay n lies in [b_n/2, b_n] with b_n = 100·2^(n-1): delay 3 ≥ 200 > 100 ≥ delay 1, delay 4 ≥ 400 > 200 ≥ delay 2.
    const delays = logged.slice(0, 4).map((l) => l.retry_in_ms as number);
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual((100 * 2 ** i) / 2);
      expect(d).toBeLessThanOrEqual(100 * 2 ** i);
    });
    expect(delays[2]!).toBeGreaterThan(delays[0]!);
    expect(delays[3]!).toBeGreaterThan(delays[1]!);
  });

  it('when the server never comes, then the step fails past the deadline with an error naming it, its attempts and the last error', async () => {
    const port = await freePort();
    const { logger, retries } = capturingLogger();
    const failure = await runStartup({ logger, deadlineMs: 2_000, backoff: { initialMs: 100, maxMs: 400 } }, () =>
      connectNats({ url: `nats://127.0.0.1:${port}`, name: 'never' }),
    ).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StartupFailedError);
    const err = failure as StartupFailedError;
    expect(err.step).toBe('NATS connection never');
    expect(err.attempts).toBeGreaterThanOrEqual(2);
    expect(err.message).toMatch(
      /^gave up waiting for NATS connection never after the start-up deadline of 2000 ms \(STARTUP_DEADLINE_MS\), \d+ attempts; last error: connection refused$/,
    );
    expect(retries().length).toBe(err.attempts);
  });

  it('when the credentials are refused (Authorization Violation), then it fails at once without retrying', async () => {
    const port = await freePort();
    await spawnNats(port, ['--user', 'tradewind', '--pass', 'right']);
    const { logger, retries } = capturingLogger();
    const failure = await runStartup({ logger, deadlineMs: 60_000 }, () =>
      connectNats({ url: `nats://wrong:credentials@127.0.0.1:${port}`, name: 'bad-creds' }),
    ).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StartupFailedError);
    expect((failure as StartupFailedError).attempts).toBe(1);
    expect((failure as Error).message).toBe('NATS connection bad-creds failed with an error that retrying cannot fix: Authorization Violation');
    expect(retries()).toEqual([]);
  });

  it('when the stream config can never be placed (3 replicas on a single server), then it fails at once naming the stream', async () => {
    const server: TestNatsServer = await startNatsServer();
    cleanup.push(() => server.stop());
    const nc = await connectNats({ url: server.url, name: 'r3-single' });
    cleanup.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    const { logger, retries } = capturingLogger();
    const failure = await runStartup({ logger, deadlineMs: 60_000 }, () => ensureEventsStreams(jsm, { duplicateWindowMs: 60_000, replicas: 3 })).catch(
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(StartupFailedError);
    expect((failure as Error).message).toBe('stream EVENTS failed with an error that retrying cannot fix: replicas > 1 not supported in non-clustered mode');
    expect(retries()).toEqual([]);
    // With one replica the same call succeeds: the failure above was the config, not the server.
    await runStartup({ logger, deadlineMs: 60_000 }, () => ensureEventsStreams(jsm, { duplicateWindowMs: 60_000, replicas: 1 }));
    expect((await jsm.streams.info('EVENTS')).config.num_replicas).toBe(1);
  });

  it('when the start-up is aborted while it waits (SIGTERM), then the wait ends with StartupAbortedError naming the step', async () => {
    const port = await freePort();
    const { logger, retries } = capturingLogger();
    const abort = new AbortController();
    const waiting = runStartup({ logger, deadlineMs: 120_000, signal: abort.signal, backoff: { initialMs: 100, maxMs: 200 } }, async (startup) => {
      expect(startup.waitingFor()).toEqual([]);
      return connectNats({ url: `nats://127.0.0.1:${port}`, name: 'aborted' });
    }).catch((err: unknown) => err);
    await expect.poll(() => retries().length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    abort.abort();
    const err = await waiting;
    expect(err).toBeInstanceOf(StartupAbortedError);
    expect((err as Error).message).toBe('start-up aborted while waiting for NATS connection aborted');
  });

  it('when called outside a start-up, then the step runs once and its own error is thrown', async () => {
    const port = await freePort();
    const err = await connectNats({ url: `nats://127.0.0.1:${port}`, name: 'once' }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('ConnectionError');
    let calls = 0;
    await expect(
      retryStartup('counted', async () => {
        calls += 1;
        throw err;
      }),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it('when a step retries inside another step, then only the outer one retries (no nested loops)', async () => {
    const { logger, retries } = capturingLogger();
    let inner = 0;
    const port = await freePort();
    const refused = await connectNats({ url: `nats://127.0.0.1:${port}`, name: 'x' }).catch((e: unknown) => e);
    expect(isRetryableStartupError(refused)).toBe(true);
    await runStartup({ logger, deadlineMs: 60_000, backoff: { initialMs: 10, maxMs: 20 } }, (startup) =>
      startup.step('outer', () =>
        retryStartup('inner', async () => {
          inner += 1;
          if (inner < 3) throw refused;
        }),
      ),
    );
    expect(inner).toBe(3);
    expect(retries().map((l) => l.startup_step)).toEqual(['outer', 'outer']);
  });
});
