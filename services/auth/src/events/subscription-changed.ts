/**
 * The durable consumer of subscription.changed: keeps each user's plan metadata (tier, billing
 * period, status, type, trial end) in step with billing, so `/auth/user` and the `plan` claim of
 * the next access token follow a checkout, plan change or cancellation.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createEventConsumer, type EventConsumer, type Kysely, type Logger } from '@tradewind/lib';
import type { Registry } from 'prom-client';
import type { AuthDatabase } from '../db/schema.js';
import { validateMetadataUpdate } from '../domain/user.js';

/** Durable consumer name (also the key in processed_events and the dead-letter subject). */
export const SUBSCRIPTION_CONSUMER = 'auth-subscription-changed';

export function createSubscriptionConsumer(deps: {
  db: Kysely<AuthDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
}): EventConsumer {
  return createEventConsumer({
    name: SUBSCRIPTION_CONSUMER,
    js: deps.js,
    jsm: deps.jsm,
    db: deps.db,
    logger: deps.logger,
    registry: deps.registry,
    handlers: {
      'subscription.changed': async (event, { trx }) => {
        // invalid_argument makes the helper dead-letter the event instead of retrying it.
        validateMetadataUpdate({
          tier: event.plan,
          billingPeriod: event.billingPeriod,
          subscriptionType: event.subscriptionType,
          subscriptionStatus: event.subscriptionStatus,
        });
        const updated = await trx
          .updateTable('users')
          .set({
            tier: event.plan,
            billing_period: event.billingPeriod,
            subscription_status: event.subscriptionStatus,
            subscription_type: event.subscriptionType,
            trial_end_date: event.trialEndDate ?? null,
            subscription_version: String(event.version),
            updated_at: new Date(),
          })
          .where('id', '=', event.userId)
          .where('subscription_version', '<', String(event.version))
          .returning('id')
          .executeTakeFirst();
        if (!updated)
          deps.logger.info(
            { user_id: event.userId, version: String(event.version) },
            'subscription.changed not newer than the applied one (or unknown user): skipped',
          );
      },
    },
  });
}
