/** The durable consumer of user.created: every new user gets a starter subscription. */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createEventConsumer, type EventConsumer, type Kysely, type Logger } from '@tradewind/lib';
import type { Registry } from 'prom-client';
import type { BillingDatabase } from '../db/schema.js';
import type { BillingService } from '../service.js';

/** Durable consumer name (also the key in processed_events and the dead-letter subject). */
export const USER_CREATED_CONSUMER = 'billing-user-created';

export function createUserCreatedConsumer(deps: {
  db: Kysely<BillingDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
  service: BillingService;
}): EventConsumer {
  return createEventConsumer({
    name: USER_CREATED_CONSUMER,
    js: deps.js,
    jsm: deps.jsm,
    db: deps.db,
    logger: deps.logger,
    registry: deps.registry,
    handlers: {
      'user.created': async (event, { trx }) => {
        await deps.service.onUserCreated(trx, { userId: event.userId, email: event.email, name: event.name });
      },
    },
  });
}
