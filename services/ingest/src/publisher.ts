/**
 * Publishing trades to JetStream TRADES with `Nats-Msg-Id` dedup and a `Tradewind-Published-Ms`
 * header (epoch ms of the publish attempt; ws-fanout's delivery latency starts there). A publish that fails
 * (no stream, NATS down) is retried with capped exponential backoff until it is acknowledged
 * or the publisher stops: trades are never dropped silently.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Counter, type Registry } from 'prom-client';
import { TRADE_PUBLISHED_MS_HEADER, type Logger } from '@tradewind/lib';
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
 * Publishes one trade with header {@link TRADE_PUBLISHED_MS_HEADER} and waits for the stream's acknowledgement.
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
      // Stamped per attempt: a retry that JetStream stores is published now. When an earlier attempt was
      // stored after all, the retry is a duplicate and the stored message keeps that attempt's time.
      const h = natsHeaders();
      h.set(TRADE_PUBLISHED_MS_HEADER, String(Date.now()));
      const ack = await js.publish(trade.subject, data, { msgID: trade.msgId, headers: h });
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
