/**
 * `connection.limited` on EVENTS when a login is refused for the plan's connection limit, so the
 * customer's notification bell (auth) can tell them. Off the login path: `refused()` returns at
 * once and never throws; the JetStream publish runs in the background and a failure is only
 * logged and counted.
 *
 * At most one event per customer (the connection-limit key: their account, or user key on the
 * shared developer accounts) per `intervalMs` (WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS), so a
 * client reconnecting in a loop cannot flood EVENTS:
 * - in this process, a key published less than `intervalMs` ago is suppressed;
 * - across processes and pods, the event id (= Nats-Msg-Id) is derived from the key and the
 *   interval number floor(now / intervalMs), so copies published in the same interval are dropped
 *   by the stream's duplicate window and deduplicated by consumers.
 */
import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Counter } from 'prom-client';
import { ConnectionLimited, encodeEvent, isUuid, newEventMeta, type PlanId } from '@tradewind/contracts';
import type { Logger } from '@tradewind/lib';
import type { VerifiedUser } from './domain/verifier.js';

/** Subject of the event (lib EVENT_SUBJECTS). */
export const CONNECTION_LIMITED_SUBJECT = 'connection.limited';

/** How long one background publish may wait for the JetStream ack, ms. */
const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * A UUID (RFC 9562 version 8, "custom") from sha256(`name`): the same name always gives the same id.
 * Event ids are UUIDs (auth's processed_events.event_id is a uuid column).
 */
export function uuidFromName(name: string): string {
  const b = createHash('sha256').update(name).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface ConnectionLimitEventsOptions {
  /** WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS: the least time between two events of one customer. */
  intervalMs: number;
  logger: Logger;
  /** `tradewind_ws_fanout_connection_limit_events_total{outcome}`: published, duplicate, suppressed, failed. */
  counter: Counter<'outcome'>;
  /** Clock in ms (tests). */
  now?: () => number;
}

/** Publishes connection.limited for refused logins, rate-limited per customer. */
export class ConnectionLimitEvents {
  /** Limit key → time (ms) of its last publish, oldest first (re-inserted on each publish). */
  private readonly last = new Map<string, number>();
  private readonly now: () => number;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly options: ConnectionLimitEventsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Keys remembered now (bounded by the customers refused within one interval). */
  get tracked(): number {
    return this.last.size;
  }

  /**
   * Records a login of `user` refused at `limit` connections of `plan`. Returns at once; never throws.
   */
  refused(user: VerifiedUser, plan: PlanId, limit: number): void {
    try {
      const now = this.now();
      const interval = this.options.intervalMs;
      // Entries are in publish order: drop the expired ones from the front.
      for (const [key, at] of this.last) {
        if (now - at < interval) break;
        this.last.delete(key);
      }
      if (this.last.has(user.limitKey)) {
        this.options.counter.inc({ outcome: 'suppressed' });
        return;
      }
      this.last.set(user.limitKey, now);
      const eventId = uuidFromName(`${CONNECTION_LIMITED_SUBJECT}\n${user.limitKey}\n${interval}\n${Math.floor(now / interval)}`);
      const event = ConnectionLimited.create({
        meta: { ...newEventMeta(CONNECTION_LIMITED_SUBJECT, 'ws-fanout'), eventId },
        // Per-customer user JWTs are named with the Tradewind user id (credential-issuer); developer credentials are not.
        userId: isUuid(user.name) ? user.name : '',
        accountPublicKey: user.account,
        userPublicKey: user.userKey,
        plan,
        limit,
        transport: 'websocket',
      });
      const h = natsHeaders();
      h.set('Tradewind-Event-Id', eventId);
      const publish = this.js
        .publish(CONNECTION_LIMITED_SUBJECT, encodeEvent(CONNECTION_LIMITED_SUBJECT, event), { msgID: eventId, headers: h, timeout: PUBLISH_TIMEOUT_MS })
        .then((ack) => {
          this.options.counter.inc({ outcome: ack.duplicate ? 'duplicate' : 'published' });
        })
        .catch((err: unknown) => this.failed(err, user))
        .finally(() => this.pending.delete(publish));
      this.pending.add(publish);
    } catch (err) {
      this.failed(err, user);
    }
  }

  /** Resolves when every publish started so far has finished (shutdown, tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private failed(err: unknown, user: VerifiedUser): void {
    this.options.counter.inc({ outcome: 'failed' });
    this.options.logger.warn({ err, account: user.account }, 'publishing connection.limited failed');
  }
}
