/**
 * The durable consumer that fills the notification bell from EVENTS: subscription.changed
 * (plan_changed), payment.succeeded, payment.failed, credentials.rotated and connection.limited.
 * Each notification's id is the event id and is written in the consumer's transaction with
 * `processed_events`, so a redelivered event adds nothing. Every event is stored whatever the
 * user's preferences; the API hides the kinds they switched off (docs/auth.md).
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createEventConsumer, type EventConsumer, type EventContext, type Kysely, type Logger } from '@tradewind/lib';
import type { Registry } from 'prom-client';
import type { AuthDatabase } from '../db/schema.js';
import { storeNotification } from '../db/notifications.js';
import {
  connectionLimitedNotification,
  credentialsRotatedNotification,
  paymentFailedNotification,
  paymentSucceededNotification,
  planChangedNotification,
  type NotificationDraft,
} from '../domain/notifications.js';

/** Durable consumer name (also the key in processed_events and the dead-letter subject). */
export const NOTIFICATIONS_CONSUMER = 'auth-notifications';

export interface NotificationsConsumerDeps {
  db: Kysely<AuthDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
  /** NOTIFICATIONS_MAX_PER_USER. */
  maxPerUser: number;
  /**
   * NOTIFICATIONS_UNREAD_MAX_AGE_MS: an event older than this when it is stored (the consumer
   * catching up on EVENTS history, e.g. on its first deploy) is stored as already read, so the
   * bell does not greet a user with old news as unread.
   */
  unreadMaxAgeMs: number;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

export function createNotificationsConsumer(deps: NotificationsConsumerDeps): EventConsumer {
  const store = async (draft: NotificationDraft | undefined, meta: { eventId: string; occurredAt?: Date | undefined } | undefined, context: EventContext) => {
    if (!draft || !meta) return;
    const now = (deps.now ?? Date.now)();
    const occurredAt = meta.occurredAt ?? new Date(now);
    const readAt = now - occurredAt.getTime() > deps.unreadMaxAgeMs ? new Date(now) : null;
    const stored = await storeNotification(context.trx, draft, meta.eventId, occurredAt, deps.maxPerUser, readAt);
    if (!stored) deps.logger.info({ subject: context.subject, event_id: meta.eventId }, 'event names no known user: no notification');
  };
  return createEventConsumer({
    name: NOTIFICATIONS_CONSUMER,
    js: deps.js,
    jsm: deps.jsm,
    db: deps.db,
    logger: deps.logger,
    registry: deps.registry,
    handlers: {
      'subscription.changed': (event, context) => store(planChangedNotification(event), event.meta, context),
      'payment.succeeded': (event, context) => store(paymentSucceededNotification(event), event.meta, context),
      'payment.failed': (event, context) => store(paymentFailedNotification(event), event.meta, context),
      'credentials.rotated': (event, context) => store(credentialsRotatedNotification(event), event.meta, context),
      'connection.limited': (event, context) => store(connectionLimitedNotification(event), event.meta, context),
    },
    // No resetProjection: a rebuild re-inserts by event id (existing rows and their read marks stay)
    // and pruning again drops all but the newest NOTIFICATIONS_MAX_PER_USER.
  });
}
