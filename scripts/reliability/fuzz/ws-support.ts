/**
 * What the WebSocket fuzzer (websocket.ts) runs against: an operator-mode nats-server with the TRADES
 * stream, the real Redis and ws-fanout in-process on a free port (as services/ws-fanout/test/support.ts
 * does, without vitest), plus a small client that records every frame and the close.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createClient } from 'redis';
import { Registry } from 'prom-client';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createLogger, ensureTradesStream, type NatsConnection } from '@tradewind/lib';
import type { PlanId } from '@tradewind/contracts';
import { freePort, startLocalNats, type LocalNats } from '@tradewind/dev';
import { encodeCustomerAccount, encodeCustomerUser, newCustomerAccountKey, pushAccountJwt, type CustomerAccountSpec } from '@tradewind/credential-issuer';
import { ConnectionLimiter, CredentialVerifier, createApp, resolverLookup, type WsFanoutApp, type WsFanoutAppConfig } from '@tradewind/ws-fanout';
import { RequestRateLimiter } from '@tradewind/ws-fanout';

/** The app's config in the fuzz runs: the defaults of config.ts, short timeouts, a trusted X-Forwarded-For. */
export const WS_FUZZ_CONFIG: WsFanoutAppConfig = {
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
  // Each input class logs in from its own (forwarded) address, so one class's failed logins never throttle another's.
  WS_TRUST_FORWARDED_FOR: true,
  WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS: 60_000,
};

/** A customer account pushed to the resolver and a way to issue its users. */
export interface WsFuzzCustomer {
  readonly spec: CustomerAccountSpec;
  /** A new user of the account; `nowMs` backdates its issue time (ms since the epoch), `ttlSeconds` its life (default 600 s). */
  user(options?: { nowMs?: number; ttlSeconds?: number }): Promise<{ jwt: string; seed: string; publicKey: string }>;
  /** Pushes the account again with `revocations` (user public key → epoch seconds). */
  revoke(revocations: Record<string, number>): Promise<void>;
}

/** The running environment of one fuzz run. */
export interface WsFuzzEnv {
  readonly url: string;
  readonly nats: LocalNats;
  /** Services' user: publishes trades. */
  readonly nc: NatsConnection;
  readonly app: WsFanoutApp;
  customer(plan: PlanId): Promise<WsFuzzCustomer>;
  /** Stops the app, the connections, nats-server, and removes the state directory; never throws. */
  stop(): Promise<void>;
}

/**
 * Starts nats-server (operator mode, free ports, temp state dir), Redis client and ws-fanout on port 0.
 * @throws Error when a component cannot start (whatever was started is stopped first).
 */
export async function startWsFuzzEnv(overrides: Partial<WsFanoutAppConfig> = {}): Promise<WsFuzzEnv> {
  const stateDir = await mkdtemp(join(tmpdir(), 'tw-fuzz-ws-'));
  const stops: Array<() => Promise<unknown>> = [() => rm(stateDir, { recursive: true, force: true })];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
    stops.push(() => nats.stop());
    const nc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'ws-fuzz' });
    stops.push(() => nc.close());
    const sysNc = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'ws-fuzz-sys' });
    stops.push(() => sysNc.close());
    await ensureTradesStream(await jetstreamManager(nc));
    const redis: ReturnType<typeof createClient> = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await redis.connect();
    stops.push(() => redis.quit());
    const verifier = new CredentialVerifier(nats.identities.operator.jwt, resolverLookup(sysNc), 5_000);
    const app = createApp(
      { ...WS_FUZZ_CONFIG, ...overrides },
      {
        logger: createLogger({ service: 'ws-fanout', level: 'silent' }),
        registry: new Registry(),
        nc,
        sysNc,
        verifier,
        limiter: new ConnectionLimiter(redis, 30_000),
        rateLimiter: new RequestRateLimiter(redis, 60_000),
      },
    );
    const { port } = await app.start();
    stops.push(() => app.stop());
    const customer = async (plan: PlanId): Promise<WsFuzzCustomer> => {
      const spec: CustomerAccountSpec = { accountPublicKey: newCustomerAccountKey(), name: `fuzz-${plan}`, plan };
      await pushAccountJwt(sysNc, await encodeCustomerAccount(nats.identities, spec));
      return {
        spec,
        async user(options = {}) {
          const u = await encodeCustomerUser(nats.identities, spec.accountPublicKey, {
            name: spec.name,
            ttlSeconds: options.ttlSeconds ?? 600,
            now: options.nowMs,
          });
          return { jwt: u.userJwt, seed: u.userSeed, publicKey: u.userPublicKey };
        },
        async revoke(revocations) {
          await pushAccountJwt(sysNc, await encodeCustomerAccount(nats.identities, { ...spec, revocations }));
        },
      };
    };
    return { url: `ws://127.0.0.1:${port}`, nats, nc, app, customer, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** A control frame (has `type`) or a trade (no `type`, or `"trade"`) as received. */
export type WsFrame = Record<string, unknown>;

/** A WebSocket client that keeps every frame, parsed, and the close; never throws on socket errors. */
export class FuzzClient {
  readonly ws: WebSocket;
  /** Control frames not yet taken (trades, heartbeats and replay_caught_up are not queued here). */
  private readonly control: WsFrame[] = [];
  /** Frames that were not JSON objects (a protocol violation by the server). */
  readonly malformed: string[] = [];
  /** Stream sequences of the trades received, in order. */
  readonly tradeSeqs: number[] = [];
  /** Called with each trade's seq, when set. */
  onTrade: ((seq: number, body: WsFrame) => void) | undefined;
  closed: { code: number; reason: string } | undefined;
  readonly opened: Promise<boolean>;
  private waiters: Array<() => void> = [];

  /** Connects to `url`; `address` is sent as X-Forwarded-For (the app trusts it in the fuzz config). */
  constructor(url: string, address?: string) {
    this.ws = new WebSocket(url, { headers: address ? { 'x-forwarded-for': address } : {}, maxPayload: 64 * 1024 * 1024 });
    this.opened = new Promise((resolve) => {
      this.ws.once('open', () => resolve(true));
      this.ws.once('error', () => resolve(false));
      this.ws.once('close', () => resolve(false));
    });
    this.ws.on('message', (data, isBinary) => {
      const text = isBinary ? `<binary ${String((data as Buffer).length)} bytes>` : data.toString();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        this.malformed.push(text.slice(0, 200));
      } else {
        const frame = body as WsFrame;
        if (frame.type === undefined || frame.type === 'trade') {
          this.tradeSeqs.push(Number(frame.seq));
          this.onTrade?.(Number(frame.seq), frame);
        } else if (frame.type !== 'heartbeat' && frame.type !== 'replay_caught_up') {
          this.control.push(frame);
        }
      }
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
    for (const f of w) f();
  }

  private async waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, Math.min(left, 100));
      });
    }
    return true;
  }

  /** The next control frame, or undefined when the socket closed or `timeoutMs` passed first. */
  async nextControl(timeoutMs: number): Promise<WsFrame | undefined> {
    await this.waitFor(() => this.control.length > 0 || this.closed !== undefined, timeoutMs);
    return this.control.shift();
  }

  /** Waits for the close; its code, or undefined after `timeoutMs`. */
  async closeCode(timeoutMs: number): Promise<number | undefined> {
    await this.waitFor(() => this.closed !== undefined, timeoutMs);
    return this.closed?.code;
  }

  /** Waits until `done()` holds (checked on every frame), at most `timeoutMs`; whether it held. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    return this.waitFor(done, timeoutMs);
  }

  /** Sends text (a string) or a binary frame (a Buffer); a send on a closed socket is ignored. */
  send(data: string | Buffer, options: { binary?: boolean } = {}) {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(data, { binary: options.binary ?? typeof data !== 'string' }, () => undefined);
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN && this.closed === undefined;
  }

  /** Closes (1000) and waits up to 2 s for the socket to end, then terminates it. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.ws.close(1000);
    } catch {
      this.ws.terminate();
    }
    if (!(await this.waitFor(() => this.closed !== undefined, 2000))) this.ws.terminate();
  }
}
