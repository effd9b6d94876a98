/**
 * Consumer helper for the EVENTS stream (docs/architecture.md §5, docs/style.md §9): a durable pull
 * consumer whose handler runs inside a PostgreSQL transaction together with
 *   - `processed_events` (consumer, event id): a second delivery of the same event id is acked
 *     without running the handler again, and
 *   - `projection_checkpoints` (consumer → last stream sequence).
 * Ack on commit; nak with delay on a retryable error; after `maxDeliver` attempts, or at once
 * for a poison message (undecodable payload, or the handler throws AppError `invalid_argument`),
 * the message is copied to `deadletter.<consumer>` (stream EVENTS_DEAD_LETTER) and terminated.
 * `rebuild()` replays the whole stream into a fresh projection in one transaction.
 */
import { sql, type Kysely, type Migration, type Transaction } from 'kysely';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg, type ConsumerMessages } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos } from '@nats-io/transport-node';
import type { Registry } from 'prom-client';
import { counterOnce, gaugeOnce } from './admin-server.js';
import { AppError, toAppError } from '@tradewind/contracts';
import { EVENTS_STREAM, deadLetterSubject, decodeEvent, isEventSubject, type EventSubject, type EventTypes } from '@tradewind/contracts';
import type { Logger } from './logger.js';
import { isJetStreamNotFound } from './nats.js';
import { retryStartup } from './startup.js';

/** Tables the helper keeps in the service's schema; add to the database interface. */
export interface ConsumerTables {
  processed_events: { consumer: string; event_id: string; subject: string; stream_seq: string; processed_at: import('kysely').Generated<Date> };
  projection_checkpoints: { consumer: string; last_stream_seq: string; updated_at: import('kysely').Generated<Date> };
}

/** Migration creating `processed_events` and `projection_checkpoints`; include it in a consuming service's migrations. */
export const consumerMigration: Migration = {
  async up(db) {
    await sql`
      CREATE TABLE processed_events (
        consumer text NOT NULL,
        event_id uuid NOT NULL,
        subject text NOT NULL,
        stream_seq bigint NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`.execute(db);
    await sql`
      CREATE TABLE projection_checkpoints (
        consumer text PRIMARY KEY,
        last_stream_seq bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
  },
  async down(db) {
    await sql`DROP TABLE projection_checkpoints`.execute(db);
    await sql`DROP TABLE processed_events`.execute(db);
  },
};

/** What a handler gets besides the event. */
export interface EventContext {
  /** The transaction the handler must write its projection in. */
  trx: Transaction<any>;
  subject: EventSubject;
  /** Stream sequence of the message; increases with publication order. */
  streamSeq: number;
  /** 1 on first delivery. */
  deliveryCount: number;
  /** True while `rebuild()` replays the stream. */
  rebuilding: boolean;
}

/** Handlers by subject; subjects without a handler are never applied (see `filter` in createEventConsumer). */
export type EventHandlers = { [S in EventSubject]?: (event: EventTypes[S], context: EventContext) => Promise<void> };

/** Options of {@link createEventConsumer}. */
export interface EventConsumerOptions {
  /** Durable consumer name; also the key in processed_events and the dead-letter subject. */
  name: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  db: Kysely<any>;
  handlers: EventHandlers;
  logger: Logger;
  registry?: Registry;
  /** Empties the projection's tables before a rebuild (in the rebuild's transaction). */
  resetProjection?: (trx: Transaction<any>) => Promise<void>;
  /** Stream name (default EVENTS). */
  stream?: string;
  /** Attempts before a failing event is dead-lettered (default 10). */
  maxDeliver?: number;
  /** Redelivery delay after a retryable failure in ms (default 2 000). */
  nakDelayMs?: number;
  /** Server ack wait in ms before it redelivers an unacked message (default 30 000). */
  ackWaitMs?: number;
}

/** A consumer; `start()` creates/updates the durable and begins consuming. */
export interface EventConsumer {
  /**
   * Creates/updates the durable and begins consuming; inside a start-up (startService) retried with backoff
   * until STARTUP_DEADLINE_MS. @throws the JetStream error (StartupFailedError inside a start-up).
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Pauses consuming, empties the projection (`resetProjection`) and this consumer's
   * processed_events/checkpoint, then applies every stored event of the handled subjects in
   * stream order, all in one transaction; resumes consuming if it was running.
   * @returns how many events were applied.
   * @throws when a handler fails; the transaction rolls back and the old projection stays.
   */
  rebuild(): Promise<{ applied: number }>;
}

/** Longest redelivery delay after repeated failures (ms). */
const MAX_RETRY_DELAY_MS = 60_000;

/** `base` doubled per earlier failed delivery, capped at {@link MAX_RETRY_DELAY_MS}. */
function retryDelay(base: number, deliveryCount: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, base * 2 ** Math.min(10, Math.max(0, deliveryCount - 1)));
}

/** PostgreSQL/socket errors meaning "the dependency is unreachable" (SQLSTATE class 08, 57P0x, 53300), and AppError unavailable. */
function isTransient(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'unavailable';
  const code = String((err as { code?: unknown })?.code ?? '');
  if (/^08/.test(code) || /^57P0/.test(code) || code === '53300') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(String((err as Error)?.message ?? ''));
}

/** Creates a consumer (no I/O until `start()` or `rebuild()`). */
export function createEventConsumer(options: EventConsumerOptions): EventConsumer {
  const stream = options.stream ?? EVENTS_STREAM;
  const maxDeliver = options.maxDeliver ?? 10;
  const nakDelayMs = options.nakDelayMs ?? 2_000;
  const subjects = (Object.keys(options.handlers) as EventSubject[]).filter((s) => options.handlers[s]);
  if (subjects.length === 0) throw new AppError('invalid_argument', `consumer ${options.name} has no handlers`);
  const counters = options.registry
    ? counterOnce(options.registry, 'tradewind_events_consumed_total', 'EVENTS messages by consumer and outcome (applied, duplicate, retried, dead_lettered)', [
        'consumer',
        'outcome',
      ])
    : undefined;
  const pendingGauge = options.registry
    ? gaugeOnce(
        options.registry,
        'tradewind_events_consumer_pending_messages',
        'EVENTS messages not yet delivered to the consumer, as JetStream reported with the last message it delivered (info.pending)',
        ['consumer'],
      )
    : undefined;
  // nats-server < 2.10 (Debian's 2.9) rejects `filter_subjects`: one subject is filtered with
  // `filter_subject`; several read the whole stream and ack the other subjects unapplied.
  const filter = { filter_subject: subjects.length === 1 ? subjects[0] : undefined, filter_subjects: undefined };
  const handles = (subject: string): boolean => (subjects as string[]).includes(subject);
  const log = options.logger.child({ consumer: options.name });
  let messages: ConsumerMessages | undefined;
  let loop: Promise<void> | undefined;

  /** Runs the handler and bookkeeping in `trx`. @returns false when the event id was seen before. */
  async function apply(
    trx: Transaction<any>,
    msg: { subject: string; data: Uint8Array; seq: number; deliveryCount: number },
    rebuilding: boolean,
  ): Promise<boolean> {
    if (!isEventSubject(msg.subject)) throw new AppError('invalid_argument', `unexpected subject ${msg.subject}`);
    const subject = msg.subject;
    const event = decodeEvent(subject, msg.data);
    const inserted = await trx
      .insertInto('processed_events')
      .values({ consumer: options.name, event_id: event.meta!.eventId, subject, stream_seq: String(msg.seq) })
      .onConflict((oc) => oc.columns(['consumer', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!inserted) return false;
    const handler = options.handlers[subject] as ((e: unknown, c: EventContext) => Promise<void>) | undefined;
    await handler?.(event, { trx, subject, streamSeq: msg.seq, deliveryCount: msg.deliveryCount, rebuilding });
    await trx
      .insertInto('projection_checkpoints')
      .values({ consumer: options.name, last_stream_seq: String(msg.seq) })
      .onConflict((oc) =>
        oc
          .column('consumer')
          .doUpdateSet({ last_stream_seq: sql`GREATEST(projection_checkpoints.last_stream_seq, excluded.last_stream_seq)`, updated_at: sql`now()` }),
      )
      .execute();
    return true;
  }

  async function deadLetter(msg: JsMsg, reason: string): Promise<void> {
    const h = natsHeaders();
    // Not the original's Nats-* headers: its Nats-Msg-Id would make the stream drop a second consumer's dead letter of the same event.
    if (msg.headers) for (const [k, v] of msg.headers) if (!/^nats-/i.test(k)) for (const value of v) h.append(k, value);
    h.set('Tradewind-Dead-Letter-Reason', reason.slice(0, 1000));
    h.set('Tradewind-Original-Subject', msg.subject);
    h.set('Tradewind-Original-Sequence', String(msg.seq));
    await options.js.publish(deadLetterSubject(options.name), msg.data, { headers: h });
    msg.term(reason.slice(0, 200));
    counters?.inc({ consumer: options.name, outcome: 'dead_lettered' });
    log.error({ subject: msg.subject, stream_seq: msg.seq, reason }, 'event dead-lettered');
  }

  async function handle(msg: JsMsg): Promise<void> {
    // Only a delivery updates it: an idle consumer keeps showing the backlog of its last message (0 once caught up).
    pendingGauge?.set({ consumer: options.name }, msg.info.pending);
    if (!handles(msg.subject)) {
      msg.ack();
      return;
    }
    const deliveryCount = msg.info.deliveryCount;
    try {
      // A duplicate writes nothing (its processed_events insert is a no-op), so its transaction just commits.
      const fresh = await options.db.transaction().execute((trx) => apply(trx, { subject: msg.subject, data: msg.data, seq: msg.seq, deliveryCount }, false));
      msg.ack();
      counters?.inc({ consumer: options.name, outcome: fresh ? 'applied' : 'duplicate' });
    } catch (err) {
      const appErr = toAppError(err);
      const poison = appErr.code === 'invalid_argument';
      // An outage of the database (or another dependency) is not the event's fault: it is retried
      // for as long as it lasts and never dead-lettered.
      const transient = isTransient(err);
      try {
        if (poison || (!transient && deliveryCount >= maxDeliver)) {
          await deadLetter(msg, `${poison ? 'poison' : `failed ${deliveryCount} times`}: ${appErr.message}`);
        } else {
          msg.nak(retryDelay(nakDelayMs, deliveryCount));
          counters?.inc({ consumer: options.name, outcome: 'retried' });
          log.warn({ err, subject: msg.subject, stream_seq: msg.seq, delivery: deliveryCount }, 'event handling failed; will retry');
        }
      } catch (dlqErr) {
        msg.nak(retryDelay(nakDelayMs, deliveryCount));
        log.error({ err: dlqErr }, 'dead-letter publish failed; will retry the event');
      }
    }
  }

  async function ensureDurable(): Promise<void> {
    const config = {
      durable_name: options.name,
      ...filter,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(options.ackWaitMs ?? 30_000),
      max_deliver: -1,
    };
    try {
      await options.jsm.consumers.info(stream, options.name);
      await options.jsm.consumers.update(stream, options.name, { ...filter, ack_wait: config.ack_wait, max_deliver: -1 });
    } catch (err) {
      if (isJetStreamNotFound(err, 'consumer')) await options.jsm.consumers.add(stream, config);
      else throw err;
    }
  }

  async function startLoop(): Promise<void> {
    const consumer = await options.js.consumers.get(stream, options.name);
    const iter = await consumer.consume({ max_messages: 64 });
    messages = iter;
    loop = (async () => {
      for await (const msg of iter) await handle(msg);
    })().catch((err: unknown) => log.error({ err }, 'event consumer stopped'));
  }

  async function stopLoop(): Promise<boolean> {
    if (!messages) return false;
    const iter = messages;
    messages = undefined;
    await iter.close();
    await loop;
    return true;
  }

  return {
    async start() {
      // A start-up step: on a settling cluster the durable (a replicated raft group of its own) may not be
      // placeable yet; inside startService it is retried until STARTUP_DEADLINE_MS (startup.ts).
      await retryStartup(`durable consumer ${stream}/${options.name}`, async () => {
        await ensureDurable();
        await startLoop();
      });
    },
    async stop() {
      await stopLoop();
    },
    async rebuild() {
      const wasRunning = await stopLoop();
      try {
        const replayName = `${options.name}_rebuild_${Date.now().toString(36)}`;
        await options.jsm.consumers.add(stream, {
          name: replayName,
          ...filter,
          ack_policy: AckPolicy.None,
          deliver_policy: DeliverPolicy.All,
          inactive_threshold: nanos(60_000),
        });
        let applied = 0;
        try {
          const replay = await options.js.consumers.get(stream, replayName);
          const total = (await replay.info()).num_pending;
          await options.db.transaction().execute(async (trx) => {
            await options.resetProjection?.(trx);
            await trx.deleteFrom('processed_events').where('consumer', '=', options.name).execute();
            await trx.deleteFrom('projection_checkpoints').where('consumer', '=', options.name).execute();
            let seen = 0;
            while (seen < total) {
              const batch = await replay.fetch({ max_messages: Math.min(256, total - seen), expires: 5_000 });
              let got = 0;
              for await (const msg of batch) {
                got += 1;
                seen += 1;
                if (!handles(msg.subject)) continue;
                try {
                  if (await apply(trx, { subject: msg.subject, data: msg.data, seq: msg.seq, deliveryCount: 1 }, true)) applied += 1;
                } catch (err) {
                  const appErr = toAppError(err);
                  // A poison message was dead-lettered when it first arrived; a rebuild skips it the same way.
                  if (appErr.code !== 'invalid_argument') throw err;
                  log.warn({ stream_seq: msg.seq, reason: appErr.message }, 'rebuild skipped a poison event');
                }
              }
              if (got === 0) throw new AppError('unavailable', `rebuild of ${options.name} stalled after ${seen}/${total} events`);
            }
          });
        } finally {
          await options.jsm.consumers.delete(stream, replayName).catch(() => undefined);
        }
        log.info({ applied }, 'projection rebuilt');
        return { applied };
      } finally {
        if (wasRunning) await startLoop();
      }
    },
  };
}
