/**
 * Shared helpers for ws-fanout integration tests: a real operator-mode nats-server per test file
 * (startLocalNats), the real Redis, the app in-process on port 0, and a WebSocket test client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { createClient } from 'redis';
import { Registry } from 'prom-client';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createLogger, ensureTradesStream, type NatsConnection } from '@tradewind/lib';
import type { PlanId } from '@tradewind/contracts';
import { freePort } from '@tradewind/dev';
import { encodeCustomerAccount, encodeCustomerUser, newCustomerAccountKey, pushAccountJwt, type CustomerAccountSpec } from '@tradewind/credential-issuer';
import { startLocalNats, type LocalNats } from '@tradewind/dev';
import { createApp, type WsFanoutApp, type WsFanoutAppConfig } from '../src/app.js';
import { CredentialVerifier } from '../src/domain/verifier.js';
import { ConnectionLimiter } from '../src/domain/connection-limiter.js';
import { RequestRateLimiter } from '../src/domain/request-rate-limiter.js';
import { resolverLookup } from '../src/resolver-lookup.js';

/** NATS (services and system connections) and Redis for one test file. */
export interface TestEnv {
  readonly stateDir: string;
  readonly nats: LocalNats;
  /** TRADEWIND services' user: publishes trades, owns the TRADES stream. */
  readonly nc: NatsConnection;
  /** System-account user: pushes account JWTs. */
  readonly sysNc: NatsConnection;
  readonly redis: ReturnType<typeof createClient>;
  stop(): Promise<void>;
}

/**
 * Starts an operator-mode nats-server in a fresh state directory and connects to it and to Redis.
 * @param options.natsBin the nats-server binary (default the system's; slot status needs 2.10+: the cluster tests' one).
 */
export async function startTestEnv(options: { natsBin?: string } = {}): Promise<TestEnv> {
  const stateDir = await mkdtemp(join(tmpdir(), 'tw-ws-'));
  const nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort(), ...(options.natsBin ? { bin: options.natsBin } : {}) });
  const nc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'ws-fanout-test' });
  const sysNc = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'ws-fanout-test-sys' });
  // ws-fanout reads the TRADES stream; trades published with nc.publish on its subjects are stored in it.
  await ensureTradesStream(await jetstreamManager(nc));
  const redis: ReturnType<typeof createClient> = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  return {
    stateDir,
    nats,
    nc,
    sysNc,
    redis,
    async stop() {
      await nc.close();
      await sysNc.close();
      await redis.quit();
      await nats.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of a ws-fanout process started from its real entry point (src/main.ts) against `env`:
 * its NATS creds, operator JWT and Redis, on 127.0.0.1 at `port` / `adminPort`, plus `extra`.
 */
export function processEnv(env: TestEnv, port: number, adminPort: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const natsDir = join(env.stateDir, 'nats');
  return {
    ...process.env,
    NATS_URL: env.nats.url,
    NATS_CREDS: join(natsDir, 'service.creds'),
    NATS_SYSTEM_CREDS: join(natsDir, 'sys.creds'),
    NATS_OPERATOR_JWT: join(natsDir, 'operator.jwt'),
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    ...extra,
  };
}

/** The defaults of config.ts, for tests on port 0. */
export const TEST_APP_CONFIG: WsFanoutAppConfig = {
  PORT: 0,
  HOST: '127.0.0.1',
  WS_MAX_FRAME_BYTES: 16 * 1024,
  WS_AUTH_TIMEOUT_MS: 1500,
  WS_MAX_BUFFERED_BYTES: 8 * 1024 * 1024,
  WS_MAX_REPLAYS_PER_CONNECTION: 4,
  WS_REPLAY_BATCH_MESSAGES: 256,
  WS_REPLAY_PAUSE_BYTES: 1024 * 1024,
  WS_REPLAY_STALL_MS: 30_000,
  WS_LOGIN_FAILURES_PER_MINUTE: 1000,
  WS_FILTER_MAX_ITEMS: 1000,
  WS_RESUME_WINDOW_MS: 5 * 60_000,
  WS_HEARTBEAT_INTERVAL_MS: 5_000,
  WS_PING_INTERVAL_MS: 10_000,
  WS_SOCKET_HIGH_WATER_BYTES: 256 * 1024,
  WS_CLOSE_TIMEOUT_MS: 2_000,
  WS_TRUST_FORWARDED_FOR: false,
  WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS: 60_000,
};

/** A running app of one test file. */
export interface TestApp {
  readonly app: WsFanoutApp;
  readonly url: string;
  readonly registry: Registry;
  /**
   * Current value of a counter or gauge of the app, or of a histogram's `<name>_count` / `<name>_sum`
   * (0 when the series does not exist yet).
   */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

/**
 * Starts the app in-process on port 0 against `env` (its account-update listener on `env.sysNc`),
 * with its own metrics registry.
 * @param options.cacheTtlMs account cache TTL (default 5000 ms, the config default).
 * @param options.rateClock clock of the request rate limiter (ms); a fixed one keeps a test inside one window.
 */
export async function startTestApp(
  env: TestEnv,
  overrides: Partial<WsFanoutAppConfig> = {},
  options: { cacheTtlMs?: number; rateClock?: () => number } = {},
): Promise<TestApp> {
  const logger = createLogger({ service: 'ws-fanout', level: 'silent' });
  const registry = new Registry();
  const verifier = new CredentialVerifier(env.nats.identities.operator.jwt, resolverLookup(env.sysNc), options.cacheTtlMs ?? 5_000);
  const app = createApp(
    { ...TEST_APP_CONFIG, ...overrides },
    {
      logger,
      registry,
      nc: env.nc,
      sysNc: env.sysNc,
      verifier,
      limiter: new ConnectionLimiter(env.redis, 30_000),
      rateLimiter: new RequestRateLimiter(env.redis, 60_000, options.rateClock),
    },
  );
  const { port } = await app.start();
  return {
    app,
    url: `ws://127.0.0.1:${port}`,
    registry,
    async metric(name, labels = {}) {
      const sample = /_(count|sum)$/.exec(name);
      const metric = registry.getSingleMetric(name) ?? (sample ? registry.getSingleMetric(name.slice(0, sample.index)) : undefined);
      if (!metric) return 0;
      const series = (await metric.get()).values.find(
        (v) => [undefined, name].includes((v as { metricName?: string }).metricName) && Object.entries(labels).every(([k, value]) => v.labels[k] === value),
      );
      return series?.value ?? 0;
    },
  };
}

/** A per-customer NATS account pushed to the resolver, and helpers to issue its users and change it. */
export interface TestCustomer {
  spec: CustomerAccountSpec;
  /** A new user JWT + seed of this account (no permissions of its own). */
  user(): Promise<{ jwt: string; seed: string; publicKey: string }>;
}

/** Creates and pushes a customer account on `plan`, with a unique account key (so Redis keys never collide). */
export async function createCustomer(env: TestEnv, plan: PlanId): Promise<TestCustomer> {
  const spec: CustomerAccountSpec = { accountPublicKey: newCustomerAccountKey(), name: `customer-${plan}`, plan };
  await pushAccountJwt(env.sysNc, await encodeCustomerAccount(env.nats.identities, spec));
  return {
    spec,
    async user() {
      const u = await encodeCustomerUser(env.nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 600 });
      return { jwt: u.userJwt, seed: u.userSeed, publicKey: u.userPublicKey };
    },
  };
}

/** A WebSocket client that queues every text message and records the close. */
export class TestClient {
  readonly ws: WebSocket;
  private readonly queue: string[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | undefined;
  readonly opened: Promise<void>;

  constructor(target: string) {
    this.ws = new WebSocket(target);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.ws.on('message', (data) => {
      this.queue.push(data.toString());
      this.wake();
    });
    this.ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    this.ws.on('error', () => undefined);
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  /** Messages received and not yet taken. */
  get pending(): number {
    return this.queue.length;
  }

  /** Next message as text; rejects after `timeoutMs`. */
  async nextRaw(timeoutMs = 3000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.closed) throw new Error(`closed ${this.closed.code} ${this.closed.reason}`);
      if (Date.now() > deadline) throw new Error('no message');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.queue.shift()!;
  }

  /**
   * Next message, which must be a trade: its text with the `"seq":<n>,` that ws-fanout puts first
   * removed, i.e. the bytes as published on NATS.
   */
  async nextTradeRaw(timeoutMs = 3000): Promise<string> {
    const raw = await this.nextRaw(timeoutMs);
    const m = /^\{"seq":(\d+),?/.exec(raw);
    if (!m) throw new Error(`not a trade message with seq: ${raw}`);
    return `{${raw.slice(m[0].length)}`;
  }

  async next(timeoutMs = 3000): Promise<Record<string, unknown>> {
    return JSON.parse(await this.nextRaw(timeoutMs)) as Record<string, unknown>;
  }

  /** Waits `ms` and returns every message that arrived meanwhile (parsed). */
  async drain(ms: number): Promise<Array<Record<string, unknown>>> {
    await new Promise((r) => setTimeout(r, ms));
    return this.queue.splice(0).map((m) => JSON.parse(m) as Record<string, unknown>);
  }

  async waitClosed(timeoutMs = 3000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('not closed');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.closed;
  }

  send(value: unknown) {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** Connects, consumes the challenge and authenticates; returns the client and the `authenticated` message. */
  static async authed(url: string, creds: { jwt: string; seed: string }): Promise<TestClient> {
    const c = new TestClient(url);
    await c.opened;
    expect((await c.next()).type).toBe('challenge');
    c.send({ jwt: creds.jwt, nkey: creds.seed });
    expect(await c.next()).toMatchObject({ type: 'authenticated' });
    return c;
  }

  close() {
    this.ws.close();
  }
}
