/**
 * Publishing trades to JetStream TRADES with `Nats-Msg-Id` dedup. A publish that fails
 * (no stream, NATS down) is retried with capped exponential backoff until it is acknowledged
 * or the publisher stops: trades are never dropped silently.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import type { OutgoingTrade } from './replay/replay-source.js';

export interface PublisherMetrics {
  published: Counter<'subject'>;
  duplicates: Counter<'subject'>;
  errors: Counter;
}

/** Registers the publisher's metrics on `registry`. */
export function publisherMetrics(registry: Registry): PublisherMetrics {
  return {
    published: new Counter({ name: 'tradewind_ingest_trades_published_total', help: 'Trades stored in TRADES', labelNames: ['subject'], registers: [registry] }),
    duplicates: new Counter({ name: 'tradewind_ingest_trades_duplicate_total', help: 'Trades JetStream dropped as duplicates (Nats-Msg-Id)', labelNames: ['subject'], registers: [registry] }),
    errors: new Counter({ name: 'tradewind_ingest_publish_errors_total', help: 'Failed publish attempts (each is retried)', registers: [registry] }),
  };
}

/**
 * Publishes one trade and waits for the stream's acknowledgement.
 * @returns 'stored' or 'duplicate'; 'aborted' when `signal` aborts before an acknowledgement.
 */
export async function publishTrade(
  js: JetStreamClient,
  trade: OutgoingTrade,
  deps: { logger: Logger; metrics: PublisherMetrics; maxBackoffMs: number; signal: AbortSignal },
): Promise<'stored' | 'duplicate' | 'aborted'> {
  const data = new TextEncoder().encode(JSON.stringify(trade.message));
  let backoff = 100;
  while (!deps.signal.aborted) {
    try {
      const ack = await js.publish(trade.subject, data, { msgID: trade.msgId });
      if (ack.duplicate) {
        deps.metrics.duplicates.inc({ subject: trade.subject });
        return 'duplicate';
      }
      deps.metrics.published.inc({ subject: trade.subject });
      return 'stored';
    } catch (err) {
      deps.metrics.errors.inc();
      deps.logger.warn({ err, msg_id: trade.msgId, retry_in_ms: backoff }, 'publish failed, retrying');
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, deps.maxBackoffMs);
    }
  }
  return 'aborted';
}
