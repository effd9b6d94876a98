/**
 * The durable consumer of usage.reported (ws-fanout's per-customer WebSocket deliveries, docs/websocket.md
 * "Usage metering"): each report is added to `usage_daily` on the UTC day of its `collected_at`, in the
 * transaction that records its event id in processed_events, so a redelivered or re-published report
 * (same event id) is counted once.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { AppError } from '@tradewind/contracts';
import { createEventConsumer, type EventConsumer, type Kysely, type Logger } from '@tradewind/lib';
import { Counter, type Registry } from 'prom-client';
import type { CredentialIssuerDatabase } from '../db/schema.js';
import { utcDay } from '../domain/usage.js';
import { addUsage } from '../usage/nats-usage.js';

/** Durable consumer name (also the key in processed_events and the dead-letter subject). */
export const USAGE_CONSUMER = 'credential-issuer-usage';

export function createUsageConsumer(deps: {
  db: Kysely<CredentialIssuerDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
}): EventConsumer {
  const registers = [deps.registry];
  const messages = new Counter({
    name: 'tradewind_credential_issuer_usage_websocket_messages_total',
    help: 'Messages of usage.reported events added to usage_daily (all customers together; counted before the commit, so a rolled-back event may count twice)',
    registers,
  });
  const bytes = new Counter({
    name: 'tradewind_credential_issuer_usage_websocket_bytes_total',
    help: 'Payload bytes of usage.reported events added to usage_daily (all customers together)',
    registers,
  });
  return createEventConsumer({
    name: USAGE_CONSUMER,
    js: deps.js,
    jsm: deps.jsm,
    db: deps.db,
    logger: deps.logger,
    registry: deps.registry,
    handlers: {
      'usage.reported': async (event, { trx }) => {
        if (event.transport !== 'websocket')
          throw new AppError('invalid_argument', `usage.reported for transport ${JSON.stringify(event.transport)}; expected "websocket"`);
        const at = event.collectedAt ?? event.meta?.occurredAt;
        if (!at) throw new AppError('invalid_argument', 'usage.reported without collected_at');
        const day = utcDay(at.getTime());
        const rows = event.customers.filter((c) => c.limitKey !== '').map((c) => ({ limit_key: c.limitKey, day, messages: c.messages, bytes: c.bytes }));
        await addUsage(trx, 'websocket', rows);
        for (const r of rows) {
          messages.inc(Number(r.messages));
          bytes.inc(Number(r.bytes));
        }
      },
    },
    resetProjection: async (trx) => {
      await trx.deleteFrom('usage_daily').where('transport', '=', 'websocket').execute();
    },
  });
}
