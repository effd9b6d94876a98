import WebSocket from 'ws';
import { createClient } from 'redis';
import { Registry } from 'prom-client';
import { type NatsConnection } from '@tradewind/lib';
import { type PlanId } from '@tradewind/contracts';
import { type CustomerAccountSpec } from '@tradewind/credential-issuer';
import { type LocalNats } from '@tradewind/dev';
import { type WsFanoutApp, type WsFanoutAppConfig } from '../src/app.js';
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
/** Starts an operator-mode nats-server in a fresh state directory and connects to it and to Redis. */
export declare function startTestEnv(): Promise<TestEnv>;
/**
 * The environment of a ws-fanout process started from its real entry point (src/main.ts) against `env`:
 * its NATS creds, operator JWT and Redis, on 127.0.0.1 at `port` / `adminPort`, plus `extra`.
 */
export declare function processEnv(env: TestEnv, port: number, adminPort: number, extra?: Record<string, string>): NodeJS.ProcessEnv;
/** The defaults of config.ts, for tests on port 0. */
export declare const TEST_APP_CONFIG: WsFanoutAppConfig;
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
export declare function startTestApp(
  env: TestEnv,
  overrides?: Partial<WsFanoutAppConfig>,
  options?: {
    cacheTtlMs?: number;
    rateClock?: () => number;
  },
): Promise<TestApp>;
/** A per-customer NATS account pushed to the resolver, and helpers to issue its users and change it. */
export interface TestCustomer {
  spec: CustomerAccountSpec;
  /** A new user JWT + seed of this account (no permissions of its own). */
  user(): Promise<{
    jwt: string;
    seed: string;
    publicKey: string;
  }>;
}
/** Creates and pushes a customer account on `plan`, with a unique account key (so Redis keys never collide). */
export declare function createCustomer(env: TestEnv, plan: PlanId): Promise<TestCustomer>;
/** A WebSocket client that queues every text message and records the close. */
export declare class TestClient {
  readonly ws: WebSocket;
  private readonly queue;
  private waiters;
  closed:
    | {
        code: number;
        reason: string;
      }
    | undefined;
  readonly opened: Promise<void>;
  constructor(target: string);
  private wake;
  /** Messages received and not yet taken. */
  get pending(): number;
  /** Next message as text; rejects after `timeoutMs`. */
  nextRaw(timeoutMs?: number): Promise<string>;
  /**
   * Next message, which must be a trade: its text with the `"seq":<n>,` that ws-fanout puts first
   * removed, i.e. the bytes as published on NATS.
   */
  nextTradeRaw(timeoutMs?: number): Promise<string>;
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Waits `ms` and returns every message that arrived meanwhile (parsed). */
  drain(ms: number): Promise<Array<Record<string, unknown>>>;
  waitClosed(timeoutMs?: number): Promise<{
    code: number;
    reason: string;
  }>;
  send(value: unknown): void;
  /** Connects, consumes the challenge and authenticates; returns the client and the `authenticated` message. */
  static authed(
    url: string,
    creds: {
      jwt: string;
      seed: string;
    },
  ): Promise<TestClient>;
  close(): void;
}
