/**
 * Usage metering (docs/websocket.md "Usage metering", issue 34): what this process delivered to each
 * customer, reported on EVENTS as `usage.reported` for credential-issuer to store per UTC day.
 *
 * Counting: each connection's outbox counts the frames it hands to the socket and their payload
 * bytes (delivery/outbox.ts: two number increments per frame, nothing else on the hot path). The
 * meter moves those counts into a per-customer pending delta (key: the connection-limit key,
 * verifier.ts `limitKey`) when a connection closes and at every report tick, resetting them, so each
 * frame is taken exactly once.
 *
 * Reporting: every `intervalMs` the pending deltas become one report (a fresh event id) that is
 * published until JetStream acknowledges it; a failed or timed-out publish is retried after
 * `retryMs`, doubling with each failure in a row up to `intervalMs`, with the same id (`Nats-Msg-Id`) and the same bytes, and no new report is built while
 * one is unacknowledged (counts keep accumulating in the pending delta), so the stream's duplicate
 * window and the consumers' processed_events count each report once. `stop()` publishes a final
 * report (retrying until `finalTimeoutMs`). A crash loses what was counted since the last
 * acknowledged report: at most one interval (plus the retries of an unacknowledged report).
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Counter } from 'prom-client';
import { UsageReported, encodeEvent, newEventMeta } from '@tradewind/contracts';
import type { Logger } from '@tradewind/lib';

/** Subject of the event (EVENT_SUBJECTS of @tradewind/contracts). */
export const USAGE_REPORTED_SUBJECT = 'usage.reported';

/** Defaults of the config keys (config.ts documents each). */
export const DEFAULT_USAGE_REPORT_INTERVAL_MS = 60_000;
export const DEFAULT_USAGE_REPORT_RETRY_MS = 1_000;
export const DEFAULT_USAGE_REPORT_PUBLISH_TIMEOUT_MS = 5_000;
export const DEFAULT_USAGE_REPORT_MAX_CUSTOMERS = 2_000;
export const DEFAULT_USAGE_FINAL_REPORT_TIMEOUT_MS = 5_000;

/** While publishes keep failing, every this many failures in a row is logged at warn (the others at debug). */
export const USAGE_FAILURE_LOG_EVERY = 10;

/** What the meter reads of a connection: its customer key (undefined until authenticated) and its outbox's counters. */
export interface MeteredConnection {
  readonly user: { readonly limitKey: string } | undefined;
  readonly outbox: { writtenFrames: number; writtenPayloadBytes: number };
}

/** Messages and bytes of one customer. */
interface Delta {
  messages: number;
  bytes: number;
}

/** A built report: published (and re-published) as these exact bytes under this id until acknowledged. */
interface Report {
  readonly id: string;
  readonly payload: Uint8Array;
  readonly messages: number;
  readonly bytes: number;
  readonly customers: number;
}

export interface UsageMeterOptions {
  /** USAGE_REPORT_INTERVAL_MS: time between two reports, ms. */
  intervalMs: number;
  /** USAGE_REPORT_RETRY_MS: delay before an unacknowledged report is published again, ms; doubles with each failure in a row, up to intervalMs. */
  retryMs: number;
  /** USAGE_REPORT_PUBLISH_TIMEOUT_MS: how long one publish waits for the JetStream ack, ms. */
  publishTimeoutMs: number;
  /** USAGE_REPORT_MAX_CUSTOMERS: customers in one report; the rest go in the next one, published right after. */
  maxCustomers: number;
  /** USAGE_FINAL_REPORT_TIMEOUT_MS: how long `stop()` keeps retrying the final report, ms. */
  finalTimeoutMs: number;
  /** The process named in the reports (`<host>/<pid>`). */
  reporter: string;
  logger: Logger;
  metrics: {
    /** Messages in acknowledged reports. */
    messages: Counter;
    /** Payload bytes in acknowledged reports. */
    bytes: Counter;
    /** Publish attempts by outcome: published, duplicate (acknowledged as already stored), failed. */
    reports: Counter<'outcome'>;
    /** Messages given up when the final report could not be published within the final timeout. */
    lost: Counter;
  };
  /** Clock, ms since the epoch (tests). */
  now?: () => number;
}

/** Per-customer delivery counts of one process and their reports. */
export class UsageMeter {
  private pending = new Map<string, Delta>();
  private unacked: Report | undefined;
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Set by stop(): retries end at this time (ms since the epoch). */
  private deadline: number | undefined;
  /** Failed publishes in a row (the retry delay doubles with each; reset by an acknowledgement). */
  private failures = 0;
  /** Set when the last report built left customers pending because of maxCustomers. */
  private overflowed = false;
  private readonly now: () => number;

  /**
   * @param connections the live connections, read at each tick.
   */
  constructor(
    private readonly js: JetStreamClient,
    private readonly connections: () => Iterable<MeteredConnection>,
    private readonly options: UsageMeterOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Customers with counts not yet in a report. */
  get pendingCustomers(): number {
    return this.pending.size;
  }

  /** Starts the report timer. */
  start(): void {
    this.timer = setInterval(() => {
      this.report().catch((err: unknown) => this.options.logger.error({ err }, 'usage report failed'));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /**
   * Moves a connection's counts into its customer's pending delta and resets them. A connection that never
   * authenticated keeps its counts (the challenge, a refusal) until it does, and they are dropped when it closes
   * unauthenticated (`closed`): they belong to no customer.
   */
  collect(connection: MeteredConnection, closed = false): void {
    const outbox = connection.outbox;
    const messages = outbox.writtenFrames;
    if (messages === 0) return;
    const key = connection.user?.limitKey;
    if (key === undefined && !closed) return;
    const bytes = outbox.writtenPayloadBytes;
    outbox.writtenFrames = 0;
    outbox.writtenPayloadBytes = 0;
    if (key === undefined) return;
    const delta = this.pending.get(key);
    if (delta) {
      delta.messages += messages;
      delta.bytes += bytes;
    } else {
      this.pending.set(key, { messages, bytes });
    }
  }

  /** One tick: collects every live connection and publishes (or keeps retrying) a report. Never throws. */
  report(): Promise<void> {
    for (const connection of this.connections()) this.collect(connection);
    return this.flush();
  }

  /**
   * After the sockets are closed: collects what is left, publishes the final report (retrying until
   * `finalTimeoutMs`), and stops. Counts still unacknowledged then are logged and counted as lost.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.deadline = this.now() + this.options.finalTimeoutMs;
    for (const connection of this.connections()) this.collect(connection, true);
    // A loop already running may end with the report it holds; then the final counts need one more.
    while ((this.unacked || this.pending.size > 0) && this.now() < this.deadline) await this.flush();
    let messages = this.unacked?.messages ?? 0;
    let bytes = this.unacked?.bytes ?? 0;
    for (const delta of this.pending.values()) {
      messages += delta.messages;
      bytes += delta.bytes;
    }
    if (messages > 0) {
      this.options.metrics.lost.inc(messages);
      this.options.logger.error(
        { messages, bytes, event_id: this.unacked?.id },
        `final usage report not acknowledged within ${this.options.finalTimeoutMs} ms (USAGE_FINAL_REPORT_TIMEOUT_MS): these deliveries go unbilled`,
      );
    }
    this.unacked = undefined;
    this.pending = new Map();
  }

  /** Publishes until nothing is pending, or (stopping) the deadline passed. One loop at a time. */
  private flush(): Promise<void> {
    this.flushing ??= this.publishAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async publishAll(): Promise<void> {
    for (;;) {
      if (!this.unacked) {
        if (this.pending.size === 0) return;
        this.unacked = this.build();
      }
      const report = this.unacked;
      const remaining = this.deadline === undefined ? Number.POSITIVE_INFINITY : this.deadline - this.now();
      if (remaining <= 0) return;
      try {
        const h = natsHeaders();
        h.set('Tradewind-Event-Id', report.id);
        const ack = await this.js.publish(USAGE_REPORTED_SUBJECT, report.payload, {
          msgID: report.id,
          headers: h,
          timeout: Math.max(100, Math.min(this.options.publishTimeoutMs, remaining)),
        });
        this.unacked = undefined;
        this.failures = 0;
        this.options.metrics.reports.inc({ outcome: ack.duplicate ? 'duplicate' : 'published' });
        this.options.metrics.messages.inc(report.messages);
        this.options.metrics.bytes.inc(report.bytes);
        // More customers than one report holds: the rest go now; otherwise the next tick publishes what came since.
        if (!this.overflowed) return;
      } catch (err) {
        this.options.metrics.reports.inc({ outcome: 'failed' });
        this.failures++;
        // A long outage (EVENTS missing, NATS away) logs its first failure and then every USAGE_FAILURE_LOG_EVERY-th, not one line per retry.
        const level = this.failures === 1 || this.failures % USAGE_FAILURE_LOG_EVERY === 0 ? 'warn' : 'debug';
        this.options.logger[level](
          { err, event_id: report.id, customers: report.customers, failures: this.failures },
          'publishing usage.reported failed; retrying with the same id',
        );
        // retryMs doubling per failure in a row, capped at one interval (at least retryMs).
        const backoff = Math.min(this.options.retryMs * 2 ** Math.min(this.failures - 1, 20), Math.max(this.options.retryMs, this.options.intervalMs));
        const wait = Math.min(backoff, Math.max(0, (this.deadline ?? Number.POSITIVE_INFINITY) - this.now()));
        if (this.deadline !== undefined && wait <= 0) return;
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  }

  /** Takes up to maxCustomers pending deltas into a new report with a fresh event id. */
  private build(): Report {
    const customers: Array<{ limitKey: string; messages: bigint; bytes: bigint }> = [];
    let messages = 0;
    let bytes = 0;
    for (const [limitKey, delta] of this.pending) {
      if (customers.length === this.options.maxCustomers) break;
      customers.push({ limitKey, messages: BigInt(delta.messages), bytes: BigInt(delta.bytes) });
      messages += delta.messages;
      bytes += delta.bytes;
      this.pending.delete(limitKey);
    }
    this.overflowed = this.pending.size > 0;
    const event = UsageReported.create({
      meta: newEventMeta(USAGE_REPORTED_SUBJECT, 'ws-fanout'),
      transport: 'websocket',
      reporter: this.options.reporter,
      collectedAt: new Date(this.now()),
      customers,
    });
    return { id: event.meta!.eventId, payload: encodeEvent(USAGE_REPORTED_SUBJECT, event), messages, bytes, customers: customers.length };
  }
}
