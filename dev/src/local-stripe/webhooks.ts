/**
 * Webhook delivery of the local Stripe stand-in: one sequential queue, oldest event first. Each
 * attempt POSTs the event's exact JSON text with a `Stripe-Signature` header made by stripe-node's
 * `generateTestHeaderString` (the scheme `constructEvent` verifies:
 * https://docs.stripe.com/webhooks#verify-manually), so the receiving endpoint runs its real
 * verification code. Unlike Stripe, which retries each event independently for up to three days,
 * an event's retries hold back the events after it; this keeps local deliveries in creation order.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from '@tradewind/lib';
import Stripe from 'stripe';

/** Default waits between attempts (ms): three retries, then the event is given up. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [1000, 5000, 30000];
/** How long one attempt may take before it counts as failed (ms); Stripe's own limit is in the same range. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** The User-Agent Stripe sends with webhook deliveries. */
const USER_AGENT = 'Stripe/1.0 (+https://stripe.com/docs/webhooks)';

interface QueuedEvent {
  id: string;
  type: string;
  payload: string;
}

/** The delivery queue; `enqueue` never throws and deliveries never reject into the caller. */
export class WebhookQueue {
  private readonly queue: QueuedEvent[] = [];
  private running = false;
  private stopped = false;
  private paused = false;
  private waiters: Array<() => void> = [];
  private wakeSleep: (() => void) | undefined;
  private sleepTimer: NodeJS.Timeout | undefined;
  private abortAttempt: (() => void) | undefined;

  /**
   * @param options.url endpoint URL; undefined = events are only recorded, never sent.
   * @param options.secret the endpoint's signing secret (`whsec_...`); never logged.
   * @param options.retryDelaysMs waits between attempts in ms; attempts = length + 1.
   */
  constructor(private readonly options: { url: string | undefined; secret: string; retryDelaysMs: readonly number[]; logger: Logger | undefined }) {}

  /** Queues one event's JSON text for delivery (no-op without a URL or after stop). */
  enqueue(event: { id: string; type: string }, payload: string): void {
    if (this.options.url === undefined || this.stopped) return;
    this.queue.push({ id: event.id, type: event.type, payload });
    this.kick();
  }

  /**
   * Resolves once every queued event was delivered with a 2xx or given up. Resolves at once when
   * idle or stopped, and, while paused, once the event in flight (if any) is done: paused events
   * stay queued, so waiting for them would never end.
   */
  flush(): Promise<void> {
    if (!this.running || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Holds deliveries back (events are still recorded and queued) until `resume`. */
  pause(): void {
    this.paused = true;
  }

  /** Delivers what was held back, oldest first, and everything after. */
  resume(): void {
    this.paused = false;
    this.kick();
  }

  private kick(): void {
    if (this.running || this.paused || this.stopped || this.queue.length === 0) return;
    this.running = true;
    void this.run();
  }

  /** Stops delivering: cancels the pending retry wait and the attempt in flight; queued events are dropped. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    if (this.sleepTimer !== undefined) clearTimeout(this.sleepTimer);
    this.wakeSleep?.();
    this.abortAttempt?.();
    this.settle();
  }

  private settle(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped && !this.paused) {
        const next = this.queue[0];
        if (next === undefined) break;
        await this.deliver(next);
        this.queue.shift();
      }
    } catch (err) {
      // deliver() handles its own failures; this only guards the loop so it never rejects unobserved.
      this.options.logger?.error({ err }, 'local stripe: webhook queue failed');
    } finally {
      this.running = false;
      this.settle();
    }
  }

  private async deliver(event: QueuedEvent): Promise<void> {
    const delays = this.options.retryDelaysMs;
    let lastFailure = '';
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (this.stopped) return;
      const outcome = await this.attempt(event.payload);
      if (outcome.ok) {
        this.options.logger?.debug({ eventId: event.id, type: event.type, attempt: attempt + 1, status: outcome.status }, 'local stripe: webhook delivered');
        return;
      }
      lastFailure = outcome.failure;
      const delay = delays[attempt];
      if (delay === undefined) break;
      this.options.logger?.debug(
        { eventId: event.id, type: event.type, attempt: attempt + 1, failure: lastFailure, retryInMs: delay },
        'local stripe: webhook attempt failed',
      );
      await this.sleep(delay);
    }
    if (this.stopped) return;
    // The endpoint URL may carry a token in its query, so only its origin and path are logged.
    const target = new URL(this.options.url ?? 'http://invalid');
    this.options.logger?.warn(
      { eventId: event.id, type: event.type, attempts: delays.length + 1, failure: lastFailure, endpoint: `${target.origin}${target.pathname}` },
      'local stripe: webhook delivery given up',
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeSleep = () => {
        this.wakeSleep = undefined;
        this.sleepTimer = undefined;
        resolve();
      };
      this.sleepTimer = setTimeout(() => this.wakeSleep?.(), ms);
    });
  }

  /** One POST; resolves with the outcome, never rejects. */
  private attempt(payload: string): Promise<{ ok: true; status: number } | { ok: false; failure: string }> {
    const url = new URL(this.options.url ?? 'http://invalid');
    // Signed with the real wall clock, not the stand-in's `now`: receivers check the timestamp
    // against their own clock (300 s tolerance in constructEvent) and each retry is re-signed, as Stripe does.
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: this.options.secret, timestamp: Math.floor(Date.now() / 1000) });
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let done = false;
      const finish = (outcome: { ok: true; status: number } | { ok: false; failure: string }): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.abortAttempt = undefined;
        resolve(outcome);
      };
      const req = send(
        url,
        {
          method: 'POST',
          // A fresh connection per attempt: nothing stays open in the receiver after the queue is idle.
          agent: false,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(payload),
            'stripe-signature': signature,
            'user-agent': USER_AGENT,
            'cache-control': 'no-cache',
            accept: '*/*; q=0.5, application/xml',
          },
        },
        (res) => {
          // The status decides, as at Stripe; the body is drained and ignored.
          const status = res.statusCode ?? 0;
          res.on('error', () => undefined);
          res.resume();
          finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, failure: `HTTP ${status}` });
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        finish({ ok: false, failure: `no answer within ${ATTEMPT_TIMEOUT_MS} ms` });
      }, ATTEMPT_TIMEOUT_MS);
      this.abortAttempt = () => {
        req.destroy();
        finish({ ok: false, failure: 'stopped' });
      };
      req.on('error', (err) => finish({ ok: false, failure: err.message }));
      req.end(payload);
    });
  }
}
