/**
 * Pieces of the edge chaos runs (edge.ts) around ws-fanout: a ws-fanout child process started
 * from its real entry point (services/ws-fanout/src/main.ts, as scripts/start.ts does), a
 * WebSocket subscriber that keeps every trade `seq` it received, and the accounting of lost
 * and duplicated sequences.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { freePort } from '@tradewind/dev';
import { stopProcess } from './redis-server.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** One ws-fanout process. */
export interface FanoutProcess {
  readonly name: string;
  readonly proc: ChildProcess;
  /** ws://127.0.0.1:<port> */
  readonly url: string;
  /** http://127.0.0.1:<admin port> */
  readonly adminUrl: string;
  /** The last 8,000 characters of its stdout and stderr. */
  output(): string;
  /** True while the process runs. */
  alive(): boolean;
  /** SIGKILL (or SIGTERM with a 5 s grace) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Where a ws-fanout child finds NATS and Redis: the state directory of startLocalNats and a Redis URL. */
export interface FanoutEnv {
  readonly natsUrl: string;
  /** startLocalNats's stateDir (holds nats/service.creds, nats/sys.creds, nats/operator.jwt). */
  readonly natsStateDir: string;
  readonly redisUrl: string;
}

/**
 * Starts ws-fanout (one worker) on free ports and waits until /readyz answers 200.
 * @param extra further environment (e.g. CONNECTION_LEASE_MS in ms).
 * @throws Error when it exits or is not ready within 30 s (the process is killed first).
 */
export async function startFanout(name: string, env: FanoutEnv, extra: Record<string, string> = {}): Promise<FanoutProcess> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const natsDir = join(env.natsStateDir, 'nats');
  const proc = spawn(process.execPath, ['--import', 'tsx', 'services/ws-fanout/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NATS_URL: env.natsUrl,
      NATS_CREDS: join(natsDir, 'service.creds'),
      NATS_SYSTEM_CREDS: join(natsDir, 'sys.creds'),
      NATS_OPERATOR_JWT: join(natsDir, 'operator.jwt'),
      REDIS_URL: env.redisUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      WS_WORKERS: '1',
      LOG_LEVEL: 'warn',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-8000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  const fanout: FanoutProcess = {
    name,
    proc,
    url: `ws://127.0.0.1:${port}`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    output: () => output,
    alive,
    stop: (signal: NodeJS.Signals = 'SIGKILL') => stopProcess(proc, signal),
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!alive()) throw new Error(`${name} exited (${proc.exitCode ?? proc.signalCode}) before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      await fanout.stop();
      throw new Error(`${name} not ready after 30 s:\n${output}`);
    }
    if (
      await fetch(`${fanout.adminUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return fanout;
    await sleep(100);
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A WebSocket client that queues control messages and records trade sequences. */
export class EdgeClient {
  readonly ws: WebSocket;
  /** `seq` of every trade received, in arrival order. */
  readonly seqs: number[] = [];
  /** Control messages (with a `type` other than "trade") not yet taken by {@link next}. */
  private readonly control: Array<Record<string, unknown>> = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | undefined;
  readonly opened: Promise<void>;

  constructor(
    url: string,
    private readonly onTrade?: (seq: number) => void,
  ) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((ok, fail) => {
      this.ws.once('open', () => ok());
      this.ws.once('error', fail);
    });
    this.ws.on('message', (data) => {
      const text = data.toString();
      const m = /^\{"seq":(\d+)/.exec(text);
      if (m) {
        const seq = Number(m[1]);
        this.seqs.push(seq);
        this.onTrade?.(seq);
      } else {
        this.control.push(JSON.parse(text) as Record<string, unknown>);
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

  /** The next control message. @throws Error when the socket closed first or after `timeoutMs` ms. */
  async next(timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (this.control.length === 0) {
      if (this.closed) throw new Error(`closed ${this.closed.code} ${this.closed.reason}`);
      if (Date.now() > deadline) throw new Error(`no control message within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.control.shift() as Record<string, unknown>;
  }

  /** Resolves when `predicate` holds (checked on every message and every 50 ms). @throws Error after `timeoutMs` ms. */
  async until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** Waits for the close. @returns its code and reason. @throws Error after `timeoutMs` ms. */
  async waitClosed(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closed !== undefined, timeoutMs, 'close');
    return this.closed as { code: number; reason: string };
  }

  send(value: unknown) {
    this.ws.send(JSON.stringify(value));
  }

  /** Closes the socket; with `hard`, without a close handshake. */
  close(hard = false) {
    if (hard) this.ws.terminate();
    else this.ws.close();
  }
}

/**
 * Connects, reads the challenge and sends the credentials.
 * @returns the client and the server's answer: `{type: "authenticated", …}` or `{type: "error", code, …}`
 *   (or `{type: "closed", code}` when the socket closed without an answer).
 * @throws Error when the server cannot be reached or sends no challenge within `timeoutMs` ms.
 */
export async function login(
  url: string,
  creds: { jwt: string; seed: string },
  timeoutMs = 5000,
  onTrade?: (seq: number) => void,
): Promise<{ client: EdgeClient; reply: Record<string, unknown> }> {
  const client = new EdgeClient(url, onTrade);
  await client.opened;
  const challenge = await client.next(timeoutMs);
  if (challenge.type !== 'challenge') throw new Error(`expected a challenge, got ${JSON.stringify(challenge)}`);
  client.send({ jwt: creds.jwt, nkey: creds.seed });
  try {
    return { client, reply: await client.next(timeoutMs) };
  } catch (err) {
    if (client.closed) return { client, reply: { type: 'closed', code: client.closed.code } };
    throw err;
  }
}

/** Lost and duplicated sequences of one subscriber. */
export interface SeqTally {
  /** Sequences of (after, last] never received. */
  readonly lost: number;
  /** Receptions beyond the first of a sequence (counted once per extra copy). */
  readonly duplicated: number;
  /** Sequences received out of order (a later one before an earlier one). */
  readonly reordered: number;
  /** The first few lost sequences, for the notes. */
  readonly lostSample: number[];
}

/**
 * Tallies what a subscriber received against the contiguous stream range (after, last]: every
 * sequence of the range must arrive exactly once, in order (the subject is the only one in the
 * stream, so its sequences are contiguous). Sequences outside the range are ignored.
 */
export function tallySeqs(received: readonly number[], after: number, last: number): SeqTally {
  const seen = new Map<number, number>();
  let reordered = 0;
  let previous = -Infinity;
  for (const seq of received) {
    if (seq <= after || seq > last) continue;
    seen.set(seq, (seen.get(seq) ?? 0) + 1);
    if (seq < previous) reordered++;
    previous = Math.max(previous, seq);
  }
  let lost = 0;
  let duplicated = 0;
  const lostSample: number[] = [];
  for (let seq = after + 1; seq <= last; seq++) {
    const n = seen.get(seq) ?? 0;
    if (n === 0) {
      lost++;
      if (lostSample.length < 5) lostSample.push(seq);
    } else duplicated += n - 1;
  }
  return { lost, duplicated, reordered, lostSample };
}
