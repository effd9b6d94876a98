/**
 * Publishing trades to JetStream TRADES with `Nats-Msg-Id` dedup and a `Tradewind-Published-Ms`
 * header (epoch ms of the publish attempt; ws-fanout's delivery latency starts there). A publish that fails
 * (no stream, NATS down) is retried with capped exponential backoff until it is acknowledged
 * or the publisher stops: trades are never dropped silently.
 *
 * Each attempt is also copied, as a core NATS message with the same bytes and headers, to the trade's
 * per-mint subjects (`<subject>.mint.<mint>`, ./mint-subjects.ts), which TRADES does not store (its subjects
 * are exact). A copy goes out with every attempt, right after it: a mint subscriber sees exactly what a core
 * subscriber of the subject sees for that mint, at the same moment (a retried attempt included, with the
 * same Nats-Msg-Id), and no JetStream acknowledgement delays it.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { Counter, type Registry } from 'prom-client';
import { TRADE_PUBLISHED_MS_HEADER } from '@tradewind/contracts';
import type { Logger } from '@tradewind/lib';
import { mintSubjectsOf } from './mint-subjects.js';
import type { OutgoingTrade } from './replay/replay-source.js';

/** JetStream's dedup header (nats.js sets it from `msgID` too); set here first so the mint copies carry it. */
const MSG_ID_HEADER = 'Nats-Msg-Id';

export interface PublisherMetrics {
  published: Counter<'subject'>;
  duplicates: Counter<'subject'>;
  errors: Counter;
  /** Core NATS copies sent to per-mint subjects, by TRADES subject (one per mint per attempt). */
  mintCopies: Counter<'subject'>;
  /** Copies nats.js refused to send (connection closed); the trade itself is still retried as usual. */
  mintCopyErrors: Counter;
}

/** Registers the publisher's metrics on `registry`. */
export function publisherMetrics(registry: Registry): PublisherMetrics {
  return {
    published: new Counter({
      name: 'tradewind_ingest_trades_published_total',
      help: 'Trades stored in TRADES',
      labelNames: ['subject'],
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'tradewind_ingest_trades_duplicate_total',
      help: 'Trades JetStream dropped as duplicates (Nats-Msg-Id)',
      labelNames: ['subject'],
      registers: [registry],
    }),
    errors: new Counter({ name: 'tradewind_ingest_publish_errors_total', help: 'Failed publish attempts (each is retried)', registers: [registry] }),
    mintCopies: new Counter({
      name: 'tradewind_ingest_mint_copies_published_total',
      help: 'Core NATS copies of trades sent to <subject>.mint.<mint> (not stored)',
      labelNames: ['subject'],
      registers: [registry],
    }),
    mintCopyErrors: new Counter({
      name: 'tradewind_ingest_mint_copy_errors_total',
      help: 'Copies to per-mint subjects that could not be sent',
      registers: [registry],
    }),
  };
}

/**
 * Sends one attempt's core NATS copies. Never throws: a copy that cannot be sent is counted and logged, and
 * the trade's own publish (whose promise is pending while this runs) is unaffected.
 */
function publishMintCopies(
  nc: Pick<NatsConnection, 'publish'>,
  trade: OutgoingTrade,
  subjects: readonly string[],
  data: Uint8Array,
  headers: MsgHdrs,
  deps: { logger: Logger; metrics: PublisherMetrics },
): void {
  try {
    for (let i = 0; i < subjects.length; i++) nc.publish(subjects[i]!, data, { headers });
    deps.metrics.mintCopies.inc({ subject: trade.subject }, subjects.length);
  } catch (err) {
    deps.metrics.mintCopyErrors.inc();
    deps.logger.warn({ err, msg_id: trade.msgId }, 'copy to the per-mint subjects failed');
  }
}

/**
 * Publishes one trade with headers {@link TRADE_PUBLISHED_MS_HEADER} and `Nats-Msg-Id` and waits for the
 * stream's acknowledgement; each attempt is copied to the trade's per-mint subjects through `deps.nc` (see the
 * module comment; `<subject>.mint.<mint>` for every mint of {@link mintSubjectsOf}).
 * @param deps.nc the connection `js` publishes on (core publishes; its write buffer keeps the copies right behind the trade).
 * @returns 'stored' or 'duplicate'; 'aborted' when `signal` aborts before an acknowledgement.
 */
export async function publishTrade(
  js: JetStreamClient,
  trade: OutgoingTrade,
  deps: { nc: Pick<NatsConnection, 'publish'>; logger: Logger; metrics: PublisherMetrics; maxBackoffMs: number; signal: AbortSignal },
): Promise<'stored' | 'duplicate' | 'aborted'> {
  const data = new TextEncoder().encode(JSON.stringify(trade.message));
  const mintSubjects = mintSubjectsOf(trade.subject, trade.message);
  let backoff = 100;
  while (!deps.signal.aborted) {
    try {
      // Stamped per attempt: a retry that JetStream stores is published now. When an earlier attempt was
      // stored after all, the retry is a duplicate and the stored message keeps that attempt's time.
      const h = natsHeaders();
      h.set(TRADE_PUBLISHED_MS_HEADER, String(Date.now()));
      h.set(MSG_ID_HEADER, trade.msgId);
      const acked = js.publish(trade.subject, data, { msgID: trade.msgId, headers: h });
      if (mintSubjects.length > 0) publishMintCopies(deps.nc, trade, mintSubjects, data, h, deps);
      const ack = await acked;
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
