/** The durable consumer of user.created (provision) and subscription.changed (apply the plan). */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createEventConsumer, type EventConsumer, type Kysely, type Logger } from '@tradewind/lib';
import type { Registry } from 'prom-client';
import type { CredentialIssuerDatabase } from '../db/schema.js';
import type { CredentialService } from '../service.js';

/**
 * Durable consumer name (also the key in processed_events and the dead-letter subject). One
 * consumer for both subjects keeps each user's events in stream order: created before changed.
 */
export const EVENTS_CONSUMER = 'credential-issuer-events';

export function createCredentialEventsConsumer(deps: {
  db: Kysely<CredentialIssuerDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
  service: CredentialService;
}): EventConsumer {
  return createEventConsumer({
    name: EVENTS_CONSUMER,
    js: deps.js,
    jsm: deps.jsm,
    db: deps.db,
    logger: deps.logger,
    registry: deps.registry,
    handlers: {
      'user.created': async (event, { trx }) => {
        await deps.service.onUserCreated(trx, { userId: event.userId, email: event.email });
      },
      'subscription.changed': async (event, { trx, rebuilding }) => {
        await deps.service.onSubscriptionChanged(
          trx,
          {
            userId: event.userId,
            plan: event.plan,
            subscriptionStatus: event.subscriptionStatus,
            version: BigInt(event.version),
            requestId: event.meta?.requestId ?? '',
          },
          rebuilding,
        );
      },
    },
  });
}
