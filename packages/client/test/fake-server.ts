/**
 * A small in-test ws-fanout speaking protocol v2 (docs/websocket.md + protocol v2): challenge →
 * `{"jwt","sig"}` verified with nkeys → `authenticated`; live subscribe (with `seq` in
 * `subscribed`), `resume_after` (stored history after it, `replay_caught_up`, then live, or
 * `resume_too_old` with `oldest_seq`), filter changes, unsubscribe, heartbeats. The test drives
 * it: publish trades, drop connections, go silent, refuse credentials.
 */
import { randomBytes } from 'node:crypto';
import { createUser, fromPublic } from '@nats-io/nkeys';
import { WebSocketServer, type WebSocket } from 'ws';

/** A user key pair and a JWT-shaped token whose payload `sub` is the user's public key (the fake server trusts it). */
export function testUser(): { jwt: string; seed: string; publicKey: string } {
  const kp = createUser();
  const publicKey = kp.getPublicKey();
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const jwt = `${b64({ typ: 'JWT', alg: 'ed25519-nkey' })}.${b64({ sub: publicKey, nats: { type: 'user' } })}.${Buffer.from('not-checked').toString('base64url')}`;
  return { jwt, seed: new TextDecoder().decode(kp.getSeed()), publicKey };
}

/** One stored trade. */
export interface StoredTrade {
  readonly subject: string;
  readonly seq: number;
  readonly body: Record<string, unknown>;
}

/** What the source field of a test trade is, per subject (the client maps trades to subjects by it). */
const SOURCES: Record<string, string> = { 'basic.pumpfun': 'pumpfun', 'basic.bonk': 'bonk', 'premium.pumpswap': 'pumpswap', 'premium.raydium': 'raydium_cpmm' };

/** One client connection as the fake server sees it. */
export class FakeConnection {
  /** Every message the client sent, parsed. */
  readonly received: Array<Record<string, unknown>> = [];
  /** Raw text of every frame the client sent. */
  readonly receivedRaw: string[] = [];
  readonly nonce = randomBytes(24).toString('base64url');
  authenticated = false;
  /** Live subscriptions: subject → filter. */
  readonly live = new Map<string, unknown>();
  closed = false;
  /** Date.now() when the server last sent this connection a frame (0: never). */
  lastSentAt = 0;

  constructor(readonly ws: WebSocket) {
    ws.on('close', () => {
      this.closed = true;
    });
  }

  send(message: Record<string, unknown>): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(message));
    this.lastSentAt = Date.now();
  }
}

/** Knobs a test turns. */
export interface FakeServerBehaviour {
  /** Answer to authentication: accept, or an error code plus close code (e.g. revoked / 4401, connection_limit / 4429). */
  auth: 'accept' | { code: string; close: number };
  /** Send heartbeats every this many ms while a connection has subscriptions (undefined: none). */
  heartbeatMs: number | undefined;
  /** Send nothing at all (the link looks dead but stays open). */
  silent: boolean;
  /** Sequences below this are no longer held for resume (resume_after + 1 < it → resume_too_old). */
  oldestResumable: number;
  /** A buggy server: a resume also resends this many messages at or before resume_after (the client must drop them). */
  resumeOverlap: number;
  /** Add a `subject` field to error frames (protocol v2 does not promise one). */
  errorSubjects: boolean;
  /** Subjects refused on subscribe, with the error code (e.g. subject_not_in_plan). */
  refuse: Record<string, string>;
}

export class FakeTradewindServer {
  readonly connections: FakeConnection[] = [];
  readonly history: StoredTrade[] = [];
  readonly behaviour: FakeServerBehaviour = {
    auth: 'accept',
    heartbeatMs: undefined,
    silent: false,
    oldestResumable: 1,
    resumeOverlap: 0,
    errorSubjects: false,
    refuse: {},
  };
  private nextSeq = 1;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {
    wss.on('connection', (ws) => this.accept(ws));
    this.heartbeatTimer = setInterval(() => this.heartbeats(), 20);
  }

  /** Starts on 127.0.0.1, on `port` (0: any free one). */
  static async start(port = 0): Promise<FakeTradewindServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    const address = wss.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    return new FakeTradewindServer(wss, `ws://127.0.0.1:${bound}`);
  }

  /** Connections still open. */
  get open(): FakeConnection[] {
    return this.connections.filter((c) => !c.closed);
  }

  /** Every message any client sent, in order. */
  get allReceived(): Array<Record<string, unknown>> {
    return this.connections.flatMap((c) => c.received);
  }

  /** Stores a trade of `subject` and sends it to every connection live on it (unless silent); returns its seq. */
  publish(subject: string, fields: Record<string, unknown> = {}): number {
    const seq = this.nextSeq++;
    const body = { source: SOURCES[subject] ?? 'unknown', transaction_type: 'BUY', signature: `sig-${seq}`, ...fields };
    this.history.push({ subject, seq, body });
    for (const c of this.open) if (c.live.has(subject) && !this.behaviour.silent) this.sendTrade(c, seq, body);
    return seq;
  }

  /** Stores a trade without sending it to anyone (as if published while every link was down). */
  publishUnseen(subject: string, fields: Record<string, unknown> = {}): number {
    const silent = this.behaviour.silent;
    this.behaviour.silent = true;
    try {
      return this.publish(subject, fields);
    } finally {
      this.behaviour.silent = silent;
    }
  }

  /** Sends the trade frame `{"seq", …body}` to one connection (tests use it to inject duplicates). */
  sendTrade(c: FakeConnection, seq: number, body: Record<string, unknown>): void {
    c.send({ seq, ...body });
  }

  /** Closes every open connection with `code` (1001: going away), or cuts them without a close frame (`terminate`). */
  dropAll(code: number | 'terminate' = 1001, reason = 'server restart'): void {
    for (const c of this.open) {
      if (code === 'terminate') c.ws.terminate();
      else c.ws.close(code, reason);
    }
  }

  /** Resolves once `n` connections have been made in total. */
  async waitForConnections(n: number, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.connections.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${this.connections.length} of ${n} connections`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Resolves once a client message matching `predicate` arrived. */
  async waitForRequest(predicate: (m: Record<string, unknown>) => boolean, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.allReceived.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such request; got ${JSON.stringify(this.allReceived)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    for (const c of this.connections) c.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    const c = new FakeConnection(ws);
    this.connections.push(c);
    ws.on('message', (data) => {
      const text = data.toString();
      c.receivedRaw.push(text);
      const msg = JSON.parse(text) as Record<string, unknown>;
      c.received.push(msg);
      this.handle(c, msg);
    });
    if (!this.behaviour.silent) c.send({ type: 'challenge', nonce: c.nonce });
  }

  private error(c: FakeConnection, code: string, message: string, subject: string | undefined, extra: Record<string, unknown> = {}): void {
    c.send({ type: 'error', code, message, ...(this.behaviour.errorSubjects && subject ? { subject } : {}), ...extra });
  }

  private handle(c: FakeConnection, msg: Record<string, unknown>): void {
    if (this.behaviour.silent) return;
    if ('jwt' in msg) {
      const auth = this.behaviour.auth;
      const sub = JSON.parse(Buffer.from(String(msg.jwt).split('.')[1] ?? '', 'base64url').toString()) as { sub: string };
      const ok = typeof msg.sig === 'string' && fromPublic(sub.sub).verify(new TextEncoder().encode(c.nonce), Buffer.from(msg.sig, 'base64url'));
      if (!ok) {
        this.error(c, 'nkey_mismatch', 'the nonce signature does not verify', undefined);
        c.ws.close(4401, 'nkey_mismatch');
        return;
      }
      if (auth !== 'accept') {
        this.error(c, auth.code, `refused: ${auth.code}`, undefined);
        c.ws.close(auth.close, auth.code);
        return;
      }
      c.authenticated = true;
      c.send({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'], expires_at_ms: null });
      return;
    }
    if (typeof msg.unsubscribe === 'string') {
      c.live.delete(msg.unsubscribe);
      c.send({ type: 'unsubscribed', subject: msg.unsubscribe });
      return;
    }
    const subject = msg.subject;
    if (typeof subject !== 'string') return;
    const filter = msg.filter ?? null;
    const refusal = this.behaviour.refuse[subject];
    if (refusal) {
      this.error(c, refusal, `${subject} is refused: ${refusal}`, subject);
      return;
    }
    if (c.live.has(subject) && !('resume_after' in msg)) {
      if ('filter' in msg) c.live.set(subject, filter);
      c.send({ type: 'subscribed', subject, filter: c.live.get(subject) ?? null, seq: this.lastSeqOf(subject) });
      return;
    }
    if (typeof msg.resume_after === 'number') {
      const after = msg.resume_after;
      if (after + 1 < this.behaviour.oldestResumable) {
        this.error(
          c,
          'resume_too_old',
          `resume_after ${after} is too old; the oldest sequence still held for resume is ${this.behaviour.oldestResumable}`,
          subject,
          { oldest_seq: this.behaviour.oldestResumable },
        );
        return;
      }
      c.send({ type: 'subscribed', subject, resume_after: after, filter });
      const stored = this.history.filter((t) => t.subject === subject);
      const overlap = this.behaviour.resumeOverlap > 0 ? stored.filter((t) => t.seq <= after).slice(-this.behaviour.resumeOverlap) : [];
      for (const t of overlap) this.sendTrade(c, t.seq, t.body);
      const missed = stored.filter((t) => t.seq > after);
      for (const t of missed) this.sendTrade(c, t.seq, t.body);
      c.send({ type: 'replay_caught_up', subject, seq: missed.at(-1)?.seq ?? null });
      c.live.set(subject, filter);
      return;
    }
    c.live.set(subject, filter);
    c.send({ type: 'subscribed', subject, filter, seq: this.lastSeqOf(subject) });
  }

  private lastSeqOf(subject: string): number | null {
    return this.history.filter((t) => t.subject === subject).at(-1)?.seq ?? null;
  }

  private heartbeats(): void {
    const every = this.behaviour.heartbeatMs;
    if (every === undefined || this.behaviour.silent) return;
    const now = Date.now();
    for (const c of this.open) {
      const state = c as unknown as { nextHeartbeat?: number };
      if (c.live.size === 0) continue;
      if ((state.nextHeartbeat ?? 0) > now) continue;
      state.nextHeartbeat = now + every;
      const subjects = Object.fromEntries([...c.live.keys()].map((s) => [s, this.lastSeqOf(s)]));
      c.send({ type: 'heartbeat', slot: 1, seq: Math.max(0, ...Object.values(subjects).map((v) => v ?? 0)) || null, subjects });
    }
  }
}
