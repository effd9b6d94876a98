/**
 * Subscriber process of the fan-out bench (scripts/bench/fanout.ts), forked with an IPC channel so the
 * subscribers never share an event loop with the server under test or the publisher.
 *
 * It holds a set of subscribers of one kind at a time, on one subject:
 *  - `ws`: WebSocket clients (`ws` package) of ws-fanout: challenge → {"jwt","nkey"} → authenticated
 *    → {"subject"} → subscribed (docs/websocket.md §1–2);
 *  - `nats`: plain nats.js connections (one per subscriber) with the services' creds, the baseline.
 * Every received payload is checked by its bench fields (scripts/bench/fanout-message.ts): per step and
 * per subscriber, unique messages, duplicates, reordered ones (lower `bench_n` than one already seen),
 * and latency from `bench_t`.
 *
 * Requests come as `{id, ...ClientRequest}` and are answered `{id, ok, result | error}`. The process
 * exits when the IPC channel closes (the parent ended, however it ended).
 */
import WebSocket from 'ws';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jwtAuthenticator, type BenchUser } from './fanout-users.js';
import { LatencyHistogram, benchNow, parseBenchFields } from './fanout-message.js';
import { closeWebSocket } from './child-cleanup.js';

/** What the parent asks. */
export type ClientRequest =
  | {
      cmd: 'connect';
      kind: 'ws' | 'nats';
      url: string;
      subject: string;
      /** ws: one user per subscriber; nats: one entry used by every subscriber (the services' creds). */
      users: BenchUser[];
      count: number;
      /** Per attempt: socket open to `subscribed` (ws) or connect to subscription flushed (nats), ms. */
      timeoutMs: number;
      /** Attempts per subscriber (the first wave is all at once; later ones `retryConcurrency` at a time). */
      attempts: number;
      retryConcurrency: number;
    }
  /** Re-opens subscribers that were closed (slow consumer, server restart); answers {@link EnsureResult}. */
  | { cmd: 'ensure' }
  /** Messages `first` .. `first + count - 1` of step `step` are about to be published. */
  | { cmd: 'step'; step: number; first: number; count: number }
  | { cmd: 'progress'; step: number }
  /** Final figures of a step (its state is then dropped). */
  | { cmd: 'report'; step: number }
  | { cmd: 'disconnect' };

/** Outcome of `connect`. Times are epoch ms on the bench clock ({@link benchNow}). */
export interface ConnectResult {
  startedAt: number;
  /** The all-at-once first attempt of every subscriber. */
  firstWave: { ok: number; lastAuthAt: number | null; lastSubscribedAt: number | null; failures: Record<string, number> };
  connected: number;
  /** When the last subscriber was subscribed, retries included; null when some never were. */
  allSubscribedAt: number | null;
  failures: Record<string, number>;
}

export interface EnsureResult {
  reopened: number;
  failures: Record<string, number>;
}

export interface ProgressResult {
  unique: number;
  completeSubscribers: number;
}

/** Outcome of `disconnect`: subscribers closed, and messages of already reported steps received since the last report. */
export interface DisconnectResult {
  subscribers: number;
  stray: number;
}

/** One step's figures of this process's subscribers. */
export interface StepReport {
  subscribers: number;
  open: number;
  expected: number;
  unique: number;
  duplicates: number;
  reordered: number;
  /** Fewest unique messages one subscriber got. */
  minPerSubscriber: number;
  latency: ReturnType<LatencyHistogram['toJSON']>;
  /** Messages of no known step since the last report (late ones of a reported step). */
  stray: number;
  /** Close codes/reasons of subscribers since the last report. */
  closes: Record<string, number>;
  /**
   * Messages missing at subscribers the server closed (ws-fanout: with a close code and reason, e.g.
   * 4413 slow_consumer): told, and recoverable with resume_after, unlike a silent loss.
   */
  lostByClosed: number;
}

interface Subscriber {
  readonly slot: number;
  last: number;
  open: boolean;
  close(): Promise<void>;
}

interface StepState {
  readonly first: number;
  readonly count: number;
  readonly seen: Uint8Array[];
  readonly perSubscriber: Int32Array;
  unique: number;
  duplicates: number;
  reordered: number;
  readonly latency: LatencyHistogram;
}

let subscribers: Subscriber[] = [];
let setup: Extract<ClientRequest, { cmd: 'connect' }> | undefined;
const steps = new Map<number, StepState>();
let stray = 0;
let closes: Record<string, number> = {};

const tally = (into: Record<string, number>, key: string) => {
  into[key] = (into[key] ?? 0) + 1;
};

function onData(sub: Subscriber, data: Uint8Array): void {
  const f = parseBenchFields(data);
  if (!f) return; // control messages (subscribed, heartbeat, ...)
  const now = benchNow();
  const st = steps.get(f.step);
  const i = st ? f.n - st.first : -1;
  if (!st || i < 0 || i >= st.count) {
    stray++;
    return;
  }
  const seen = st.seen[sub.slot]!;
  if (seen[i]) {
    st.duplicates++;
    return;
  }
  seen[i] = 1;
  st.unique++;
  st.perSubscriber[sub.slot]!++;
  if (f.n < sub.last) st.reordered++;
  else sub.last = f.n;
  st.latency.record(now - f.t);
}

class SetupError extends Error {}

/** One WebSocket subscriber: resolves once `subscribed` arrived. */
function openWs(
  slot: number,
  url: string,
  user: BenchUser,
  subject: string,
  timeoutMs: number,
  previous?: Subscriber,
): Promise<{ sub: Subscriber; authAt: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true, handshakeTimeout: timeoutMs });
    let phase: 'challenge' | 'authenticate' | 'subscribe' | 'live' = 'challenge';
    let authAt = 0;
    const sub: Subscriber = {
      slot,
      last: previous?.last ?? -1,
      open: true,
      close: () => closeWebSocket(ws),
    };
    const fail = (reason: string) => {
      if (phase === 'live') return;
      phase = 'live'; // nothing more from this attempt
      clearTimeout(timer);
      sub.open = false;
      ws.terminate();
      reject(new SetupError(reason));
    };
    const timer = setTimeout(() => fail(`timeout:${phase}`), timeoutMs);
    ws.on('message', (data: Buffer) => {
      if (phase === 'live') return onData(sub, data);
      let m: { type?: string; code?: string };
      try {
        m = JSON.parse(data.toString()) as typeof m;
      } catch {
        return fail('bad_json');
      }
      if (m.type === 'error') return fail(`error:${m.code ?? '?'}`);
      if (phase === 'challenge' && m.type === 'challenge') {
        phase = 'authenticate';
        ws.send(JSON.stringify({ jwt: user.jwt, nkey: user.seed }));
      } else if (phase === 'authenticate' && m.type === 'authenticated') {
        authAt = benchNow();
        phase = 'subscribe';
        ws.send(JSON.stringify({ subject }));
      } else if (phase === 'subscribe' && m.type === 'subscribed') {
        phase = 'live';
        clearTimeout(timer);
        resolve({ sub, authAt });
      }
    });
    ws.on('close', (code, reason) => {
      if (sub.open && phase === 'live') tally(closes, `${code}${reason.length ? ` ${reason.toString()}` : ''}`);
      sub.open = false;
      fail(`closed:${code}`);
    });
    ws.on('error', (err) => fail(`socket:${(err as NodeJS.ErrnoException).code ?? err.message}`));
  });
}

/** One plain NATS subscriber on its own connection: resolves once the subscription reached the server. */
async function openNats(
  slot: number,
  url: string,
  user: BenchUser,
  subject: string,
  timeoutMs: number,
  previous?: Subscriber,
): Promise<{ sub: Subscriber; authAt: number }> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: url,
      authenticator: jwtAuthenticator(user),
      name: `bench-subscriber-${slot}`,
      timeout: timeoutMs,
      reconnect: false,
      noEcho: true,
    });
  } catch (err) {
    throw new SetupError(`connect:${(err as Error).message.slice(0, 60)}`);
  }
  const authAt = benchNow();
  const sub: Subscriber = { slot, last: previous?.last ?? -1, open: true, close: () => nc.close() };
  nc.subscribe(subject, {
    callback: (err, msg) => {
      if (!err) onData(sub, msg.data);
    },
  });
  void nc.closed().then((err) => {
    if (sub.open) tally(closes, err ? `closed: ${err.message.slice(0, 60)}` : 'closed');
    sub.open = false;
  });
  try {
    await nc.flush();
  } catch (err) {
    await nc.close();
    throw new SetupError(`flush:${(err as Error).message.slice(0, 60)}`);
  }
  return { sub, authAt };
}

function open(slot: number, previous?: Subscriber): Promise<{ sub: Subscriber; authAt: number }> {
  const s = setup!;
  const user = s.kind === 'ws' ? s.users[slot]! : s.users[0]!;
  return (s.kind === 'ws' ? openWs : openNats)(slot, s.url, user, s.subject, s.timeoutMs, previous);
}

/** Runs `fn` over `slots`, `concurrency` at a time; returns the slots that failed with their reasons. */
async function limited(slots: number[], concurrency: number, fn: (slot: number) => Promise<void>): Promise<Map<number, string>> {
  const failed = new Map<number, string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, slots.length) }, async () => {
      while (next < slots.length) {
        const slot = slots[next++]!;
        try {
          await fn(slot);
        } catch (err) {
          failed.set(slot, err instanceof SetupError ? err.message : `internal:${String(err).slice(0, 60)}`);
        }
      }
    }),
  );
  return failed;
}

async function handleConnect(req: Extract<ClientRequest, { cmd: 'connect' }>): Promise<ConnectResult> {
  if (subscribers.length) throw new Error('already connected: disconnect first');
  if (req.kind === 'ws' ? req.users.length < req.count : req.users.length < 1) throw new Error('connect: not enough users for the subscribers');
  setup = req;
  const startedAt = benchNow();
  const slots = Array.from({ length: req.count }, (_, i) => i);
  subscribers = new Array<Subscriber>(req.count);
  let lastAuthAt: number | null = null;
  let lastSubscribedAt: number | null = null;
  const take = async (slot: number) => {
    const { sub, authAt } = await open(slot);
    subscribers[slot] = sub;
    lastAuthAt = Math.max(lastAuthAt ?? 0, authAt);
    lastSubscribedAt = Math.max(lastSubscribedAt ?? 0, benchNow());
  };
  let failed = await limited(slots, req.count, take);
  const firstWave = { ok: req.count - failed.size, lastAuthAt, lastSubscribedAt, failures: {} as Record<string, number> };
  for (const reason of failed.values()) tally(firstWave.failures, reason);
  for (let attempt = 2; attempt <= req.attempts && failed.size > 0; attempt++) {
    failed = await limited([...failed.keys()], req.retryConcurrency, take);
  }
  const failures: Record<string, number> = {};
  for (const reason of failed.values()) tally(failures, reason);
  // Subscribers that never connected stay as closed placeholders (counted as missing every message).
  for (const slot of failed.keys()) subscribers[slot] = { slot, last: -1, open: false, close: async () => undefined };
  closes = {};
  return { startedAt, firstWave, connected: req.count - failed.size, allSubscribedAt: failed.size ? null : lastSubscribedAt, failures };
}

async function handleEnsure(): Promise<EnsureResult> {
  if (!setup) return { reopened: 0, failures: {} };
  const closed = subscribers.filter((s) => !s.open).map((s) => s.slot);
  const failed = await limited(closed, setup.retryConcurrency, async (slot) => {
    const { sub } = await open(slot, subscribers[slot]);
    subscribers[slot] = sub;
  });
  const failures: Record<string, number> = {};
  for (const reason of failed.values()) tally(failures, reason);
  return { reopened: closed.length - failed.size, failures };
}

function handleReport(step: number): StepReport {
  const st = steps.get(step);
  if (!st) throw new Error(`no step ${step}`);
  steps.delete(step);
  const report: StepReport = {
    subscribers: subscribers.length,
    open: subscribers.filter((s) => s.open).length,
    expected: st.count * subscribers.length,
    unique: st.unique,
    duplicates: st.duplicates,
    reordered: st.reordered,
    minPerSubscriber: subscribers.length ? Math.min(...st.perSubscriber) : 0,
    latency: st.latency.toJSON(),
    stray,
    closes,
    lostByClosed: subscribers.filter((s) => !s.open).reduce((n, s) => n + (st.count - st.perSubscriber[s.slot]!), 0),
  };
  stray = 0;
  closes = {};
  return report;
}

async function handle(req: ClientRequest): Promise<unknown> {
  switch (req.cmd) {
    case 'connect':
      return handleConnect(req);
    case 'ensure':
      return handleEnsure();
    case 'step': {
      steps.set(req.step, {
        first: req.first,
        count: req.count,
        unique: 0,
        duplicates: 0,
        reordered: 0,
        latency: new LatencyHistogram(),
        seen: subscribers.map(() => new Uint8Array(req.count)),
        perSubscriber: new Int32Array(subscribers.length),
      });
      return null;
    }
    case 'progress': {
      const st = steps.get(req.step);
      return { unique: st?.unique ?? 0, completeSubscribers: st ? st.perSubscriber.filter((n) => n === st.count).length : 0 } satisfies ProgressResult;
    }
    case 'report':
      return handleReport(req.step);
    case 'disconnect': {
      const all = subscribers;
      subscribers = [];
      setup = undefined;
      steps.clear();
      await Promise.all(all.map((s) => s.close().catch(() => undefined)));
      const result: DisconnectResult = { subscribers: all.length, stray };
      stray = 0;
      return result;
    }
  }
}

if (process.send) {
  process.on('message', (msg: { id: number } & ClientRequest) => {
    handle(msg).then(
      (result) => process.send?.({ id: msg.id, ok: true, result }),
      (err: unknown) => process.send?.({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The parent is gone (finished, crashed or killed): nothing will ask for results any more.
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
