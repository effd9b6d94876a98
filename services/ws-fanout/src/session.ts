/**
 * One WebSocket connection: its identity and authentication state, its subscriptions and its
 * outbox (every frame to the client goes through the outbox, so control messages and trades keep
 * their order). Pure state plus the send/close primitives; the protocol lives in app.ts and
 * subscriptions.ts.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { PlanId, TradeSubject } from '@tradewind/contracts';
import { controlFrame } from './delivery/frame.js';
import type { Outbox } from './delivery/outbox.js';
import type { FeedMember } from './delivery/subject-feed.js';
import type { TradesReplay } from './trades-replay.js';
import type { VerifiedUser } from './domain/verifier.js';

/** A catch-up read of stored history (Pro replay or resume_after) before the subscription joins the live feed. */
export interface CatchUp {
  /**
   * `join`: a subscription with slot status started while its feed was not running yet reads from where it
   * started until it can join (no `replay_caught_up`: the client asked for neither).
   */
  readonly kind: 'replay' | 'resume' | 'join';
  /** Replay: `from` as the client sent it (echoed in `subscribed`); resume: the `resume_after` sequence. */
  readonly from: string | number;
  handle: TradesReplay | undefined;
  stopped: boolean;
}

/** One subject a connection receives. */
export interface Subscription {
  readonly subject: TradeSubject;
  /** The feed membership: outbox, filter and the last sequence sent (or passed over by the filter). */
  readonly member: FeedMember;
  /** Set while stored history is being read; the member joins the feed when it ends. */
  catchUp: CatchUp | undefined;
}

/** One connection. */
export class Session {
  user: VerifiedUser | undefined;
  /** The user JWT the client authenticated with: its rights are re-derived from it on account updates. */
  userJwt: string | undefined;
  authenticating = false;
  readonly subscriptions = new Map<TradeSubject, Subscription>();
  authTimer: NodeJS.Timeout | undefined;
  /** Fires when the user JWT expires. */
  expiryTimer: NodeJS.Timeout | undefined;
  /** The plan under which the connections gauge counts this client; undefined until it authenticates and once it closed. */
  countedPlan: PlanId | undefined;
  /** Pings sent without a pong since (the ping timer terminates the connection at two). */
  missedPongs = 0;
  /** When the client was last sent anything, as seen by the heartbeat timer (ms since epoch). */
  lastActivityMs = Date.now();
  /** Set once the server started closing the connection: nothing more is sent. */
  closing = false;

  /**
   * @param id connection id (UUID) used for connection slots and logs.
   * @param address the peer's IP address (per-address login limits).
   * @param nonce the challenge the client may sign instead of sending its seed (24 random bytes, base64url).
   */
  constructor(
    readonly id: string,
    readonly ws: WebSocket,
    readonly socket: Socket,
    readonly outbox: Outbox,
    readonly address: string,
    readonly nonce: string,
  ) {}

  /** Whether the socket is open and the server has not started closing it. */
  get open(): boolean {
    return !this.closing && this.ws.readyState === this.ws.OPEN;
  }

  /** Queues a control message (`{"type": …}`). */
  send(message: Record<string, unknown>): void {
    if (this.open) this.outbox.push(controlFrame(message));
  }

  /**
   * Sends everything queued, then a close frame; the socket is destroyed if the peer has not finished
   * the close handshake within `timeoutMs` (ws itself would wait 30 s).
   * @param flush false for a slow consumer: its queue was dropped and nothing more is written before the close frame.
   */
  close(code: number, reason: string, timeoutMs: number, flush = true): void {
    if (this.closing) return;
    if (flush) this.outbox.flush(true);
    this.closing = true;
    this.outbox.close();
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
    const timer = setTimeout(() => this.ws.terminate(), timeoutMs);
    timer.unref();
    this.ws.once('close', () => clearTimeout(timer));
  }
}
