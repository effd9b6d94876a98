/**
 * A WebSocket subscriber of the rolling-restart class (chaos/rolling.ts) that behaves like a well-written
 * client of docs/websocket.md: it logs in with its user JWT and NKey seed, subscribes to every subject its
 * plan allows, keeps each subject's last `seq`, and when its connection closes it reconnects through the
 * load balancer at once and sends `resume_after` with that `seq` for every subject (§2 "Resume after a
 * disconnect"). It records every trade (`seq`, subject, arrival time), every close (code, reason) and every
 * connection attempt after the first, so the tally can count loss, duplicates and reconnects.
 */
import WebSocket from 'ws';
import type { PlanId, TradeSubject } from '@tradewind/contracts';
import { subjectOf } from '@tradewind/ingest';

/** Credentials of one user: JWT and NKey seed (chaos/edge.ts createCustomer). */
export type WsCreds = { jwt: string; seed: string };

/** One close of the client's connection. */
export interface WsClose {
  /** Epoch ms. */
  readonly at: number;
  readonly code: number;
  readonly reason: string;
}

/** One connection attempt after the first (a reconnect), with how it ended. */
export interface WsAttempt {
  /** Epoch ms it began. */
  readonly at: number;
  /** `ok`, or why it failed (`connection_limit`, `unavailable`, `no challenge`, a socket error…). */
  readonly outcome: string;
}

/** How long a reconnecting client keeps trying before it gives up, ms. */
export const RECONNECT_DEADLINE_MS = 60_000;
/** First wait after a failed reconnect attempt, ms; doubles up to 1 s (the first attempt is immediate). */
const RECONNECT_BACKOFF_MS = 100;
/** Each protocol step (open, challenge, login answer, subscribe answer) must happen within this long, ms. */
const STEP_TIMEOUT_MS = 10_000;

const SOURCE = /"source":"([a-z_]+)"/;
const SEQ = /^\{"seq":(\d+)/;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A subscriber; see the module comment. Call {@link start}, later {@link stop}. */
export class RollingWsClient {
  readonly kind = 'WebSocket';
  /** `seq` of every trade received, over all connections, in arrival order. */
  readonly seqs: number[] = [];
  /** Arrival time (epoch ms) of each entry of {@link seqs}. */
  readonly times: number[] = [];
  /** The subjects the server allowed (from `authenticated`), subscribed on every connection. */
  subjects: TradeSubject[] = [];
  /** Per subject: the subject's last sequence when the first subscription started (0: none yet). */
  readonly after = new Map<string, number>();
  /** Per subject: the highest `seq` received. */
  readonly last = new Map<string, number>();
  readonly closes: WsClose[] = [];
  readonly attempts: WsAttempt[] = [];
  /** Protocol errors the server sent (`resume_too_old`, `bad_resume`, …) and reconnects given up, with times. */
  readonly problems: Array<{ at: number; what: string }> = [];
  private ws: WebSocket | undefined;
  private stopping = false;
  private reconnecting: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly plan: PlanId,
    private readonly creds: WsCreds,
    private readonly url: string,
  ) {}

  /** Opens the first connection and subscribes. @throws Error when that fails (the run cannot count this client). */
  async start(): Promise<void> {
    const failure = await this.connect(false);
    if (failure) throw new Error(`${this.id} (${this.plan}): first connection failed: ${failure}`);
  }

  /** The highest `seq` received on `subject` (its start when none). */
  lastSeq(subject: string): number {
    return this.last.get(subject) ?? this.after.get(subject) ?? 0;
  }

  /** Closes the connection for good (no reconnect); waits for a reconnect in progress to settle. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.ws?.terminate();
    await this.reconnecting;
  }

  /** One connection: open, challenge, login, subscribe to every subject (resuming when `resume`). @returns why it failed, or undefined. */
  private async connect(resume: boolean): Promise<string | undefined> {
    const ws = new WebSocket(this.url);
    const control: Array<Record<string, unknown>> = [];
    let wake: (() => void) | undefined;
    let closedWith: WsClose | undefined;
    const next = async (): Promise<Record<string, unknown> | string> => {
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (control.length === 0) {
        if (closedWith) return `closed ${closedWith.code}`;
        if (Date.now() > deadline) return 'no answer within 10 s';
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      }
      return control.shift()!;
    };
    let established = false;
    ws.on('message', (data) => {
      const text = data.toString();
      const m = SEQ.exec(text);
      if (m) {
        const seq = Number(m[1]);
        const source = SOURCE.exec(text)?.[1];
        this.seqs.push(seq);
        this.times.push(Date.now());
        if (source) {
          const subject = subjectOf({ source } as Parameters<typeof subjectOf>[0]);
          if (seq > (this.last.get(subject) ?? 0)) this.last.set(subject, seq);
        }
        return;
      }
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(text) as Record<string, unknown>;
      } catch {
        this.problems.push({ at: Date.now(), what: `a frame that is neither a trade nor JSON: ${text.slice(0, 80)}` });
        return;
      }
      if (established) {
        if (msg.type === 'error') this.problems.push({ at: Date.now(), what: `${String(msg.code)}: ${String(msg.message).slice(0, 160)}` });
        return;
      }
      control.push(msg);
      wake?.();
    });
    ws.on('error', () => undefined);
    ws.on('close', (code, reason) => {
      closedWith = { at: Date.now(), code, reason: reason.toString() };
      wake?.();
      if (this.ws !== ws || !established) return;
      this.closes.push(closedWith);
      this.scheduleReconnect();
    });
    const fail = (why: string) => {
      ws.terminate();
      return why;
    };
    const opened = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve('open timed out'), STEP_TIMEOUT_MS);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
      ws.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        resolve(`HTTP ${res.statusCode}`);
      });
      ws.once('error', (err) => {
        clearTimeout(timer);
        resolve((err as NodeJS.ErrnoException).code ?? err.message);
      });
    });
    if (opened) return fail(opened);
    const challenge = await next();
    if (typeof challenge === 'string' || challenge.type !== 'challenge') return fail(`no challenge (${JSON.stringify(challenge).slice(0, 80)})`);
    ws.send(JSON.stringify({ jwt: this.creds.jwt, nkey: this.creds.seed }));
    const auth = await next();
    if (typeof auth === 'string') return fail(auth);
    if (auth.type !== 'authenticated') return fail(String(auth.code ?? auth.type));
    if (!resume) this.subjects = (auth.subjects as TradeSubject[]) ?? [];
    for (const subject of this.subjects) {
      ws.send(JSON.stringify(resume ? { subject, resume_after: this.lastSeq(subject) } : { subject }));
      // The answer; a `replay_caught_up` of the subject resumed before it (or a heartbeat) is passed over.
      for (;;) {
        const ok = await next();
        if (typeof ok === 'string') return fail(ok);
        if (ok.type === 'error') return fail(`subscribe ${subject}: ${String(ok.code)}`);
        if (ok.type !== 'subscribed' || ok.subject !== subject) continue;
        if (!resume) this.after.set(subject, typeof ok.seq === 'number' ? ok.seq : 0);
        break;
      }
    }
    established = true;
    this.ws = ws;
    // A close that came while subscribing counts as this connection's close (the handler saw established false).
    if (closedWith) {
      this.closes.push(closedWith);
      this.scheduleReconnect();
    }
    return undefined;
  }

  private scheduleReconnect(): void {
    if (this.stopping) return;
    const running: Promise<void> = this.reconnect().finally(() => {
      if (this.reconnecting === running) this.reconnecting = undefined;
    });
    this.reconnecting = running;
  }

  private async reconnect(): Promise<void> {
    const started = Date.now();
    let wait = RECONNECT_BACKOFF_MS;
    while (!this.stopping) {
      const at = Date.now();
      const failure = await this.connect(true);
      this.attempts.push({ at, outcome: failure ?? 'ok' });
      if (!failure) return;
      if (Date.now() - started > RECONNECT_DEADLINE_MS) {
        this.problems.push({ at: Date.now(), what: `gave up reconnecting after ${RECONNECT_DEADLINE_MS} ms: ${failure}` });
        return;
      }
      await sleep(wait);
      wait = Math.min(1_000, wait * 2);
    }
  }
}
