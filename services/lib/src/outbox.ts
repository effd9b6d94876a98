/**
 * Transactional outbox (docs/architecture.md §5). A producer writes its own rows and the event into
 * `<schema>.outbox` in one PostgreSQL transaction ({@link appendEvent}); the relay
 * ({@link createOutboxRelay}) publishes unpublished rows to JetStream in insertion order with
 * `Nats-Msg-Id` = the outbox id (= the event id), then marks them published.
 *
 * Delivery: a crash between the JetStream ack and the commit leaves rows unmarked; the next
 * relay publishes them again with the same message id and the stream's duplicate window drops
 * the copy, so each event is stored once. One relay per schema publishes at a time (a
 * transaction-scoped advisory lock), which keeps the stream in outbox order with many replicas.
 */
import { sql, type Kysely, type Migration, type Transaction } from 'kysely';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Registry } from 'prom-client';
import { counterOnce, gaugeOnce } from './admin-server.js';
import { encodeEvent, type EventSubject, type EventTypes } from '@tradewind/contracts';
import type { Logger } from './logger.js';
import { AppError } from '@tradewind/contracts';

/** Table `outbox` as kysely sees it; add to the service's database interface. */
export interface OutboxTable {
  /** Insertion order; the relay publishes by ascending seq. */
  seq: import('kysely').Generated<string>;
  /** UUID = event id = Nats-Msg-Id. */
  id: string;
  subject: string;
  payload: Uint8Array;
  /** Extra NATS headers (`x-request-id`, ...). */
  headers: import('kysely').ColumnType<Record<string, string>, string, string>;
  created_at: import('kysely').Generated<Date>;
  published_at: Date | null;
  /** Stream sequence JetStream assigned (null until published, or when it was a duplicate). */
  stream_seq: string | null;
  attempts: import('kysely').Generated<number>;
  last_error: string | null;
}

/** A database with an outbox table. */
export interface OutboxDatabase {
  outbox: OutboxTable;
}

/** Migration creating the outbox table; include it in the service's migrations. */
export const outboxMigration: Migration = {
  async up(db) {
    await sql`
      CREATE TABLE outbox (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        subject text NOT NULL,
        payload bytea NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz,
        stream_seq bigint,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`.execute(db);
    await sql`CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL`.execute(db);
  },
  async down(db) {
    await sql`DROP TABLE outbox`.execute(db);
  },
};

/**
 * Writes `event` to the outbox inside the caller's transaction `trx`; it is published only if
 * that transaction commits. The event's `meta.eventId` becomes the outbox id.
 * @param headers extra NATS headers, e.g. `{ 'x-request-id': ... }`.
 * @throws AppError('invalid_argument') when the event has no meta.eventId.
 */
export async function appendEvent<S extends EventSubject, DB extends OutboxDatabase>(
  trx: Transaction<DB> | Kysely<DB>,
  subject: S,
  event: EventTypes[S],
  headers: Record<string, string> = {},
): Promise<void> {
  const id = event.meta?.eventId;
  if (!id) throw new AppError('invalid_argument', `event on ${subject} has no meta.eventId`);
  await (trx as unknown as Kysely<OutboxDatabase>)
    .insertInto('outbox')
    .values({ id, subject, payload: encodeEvent(subject, event), headers: JSON.stringify(headers), published_at: null, stream_seq: null, last_error: null })
    .execute();
}

/** Options of {@link createOutboxRelay}. */
export interface OutboxRelayOptions {
  db: Kysely<any>;
  js: JetStreamClient;
  /** The service's schema (names the advisory lock and metrics label). */
  schema: string;
  logger: Logger;
  registry?: Registry;
  /** Poll interval in ms when idle (default 500). */
  pollIntervalMs?: number;
  /** Rows published per transaction (default 100). */
  batchSize?: number;
  /** Back-off in ms after a failed publish (default 1 000). */
  retryDelayMs?: number;
  /** Test hook: called after each JetStream ack, before the rows are marked published. */
  afterPublish?: (outboxId: string) => void | Promise<void>;
}

/** A running relay. */
export interface OutboxRelay {
  start(): void;
  /** Stops after the batch in flight; resolves when the loop has exited. */
  stop(): Promise<void>;
  /** Runs publish passes until the outbox is empty. @returns rows published. */
  drain(): Promise<number>;
  /** Asks the loop to run a pass now (after a commit in this process). */
  kick(): void;
}

function relayMetrics(registry: Registry) {
  return {
    published: counterOnce(registry, 'tradewind_outbox_published_total', 'Outbox rows published to JetStream', ['schema']),
    failures: counterOnce(registry, 'tradewind_outbox_publish_failures_total', 'Failed outbox publish attempts', ['schema']),
    pending: gaugeOnce(registry, 'tradewind_outbox_pending', 'Outbox rows not yet published (sampled each pass)', ['schema']),
  };
}

/**
 * The relay: publishes unpublished outbox rows in `seq` order, each awaited for its JetStream
 * ack, with `Nats-Msg-Id` = outbox id, header `Tradewind-Event-Id` and the row's headers.
 * Failures are logged, counted and retried after `retryDelayMs`; rows are never skipped.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const batchSize = options.batchSize ?? 100;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const metrics = options.registry ? relayMetrics(options.registry) : undefined;
  const lockKey = `outbox-relay:${options.schema}`;
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  /**
   * One transaction: lock, read a batch, publish each, mark. Rows published before a failure are
   * committed as published. @returns rows published (-1 = another relay holds the lock) and
   * whether a publish failed.
   */
  async function pass(): Promise<{ published: number; failed: boolean; full: boolean }> {
    const result = await options.db.transaction().execute(async (trx) => {
      const lock = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext(${lockKey})) AS locked`.execute(trx);
      if (!lock.rows[0]?.locked) return { published: -1, failed: false, full: false };
      const rows = await trx
        .selectFrom('outbox')
        .select(['seq', 'id', 'subject', 'payload', 'headers'])
        .where('published_at', 'is', null)
        .orderBy('seq')
        .limit(batchSize)
        .execute();
      let published = 0;
      for (const row of rows) {
        const h = natsHeaders();
        for (const [k, v] of Object.entries(row.headers as Record<string, string>)) h.set(k, v);
        h.set('Tradewind-Event-Id', row.id);
        let streamSeq: number | null;
        try {
          const ack = await options.js.publish(row.subject, row.payload, { msgID: row.id, headers: h });
          streamSeq = ack.duplicate ? null : ack.seq;
        } catch (err) {
          metrics?.failures.inc({ schema: options.schema });
          await trx
            .updateTable('outbox')
            .set({ attempts: sql`attempts + 1`, last_error: String(err).slice(0, 500) })
            .where('seq', '=', row.seq)
            .execute();
          options.logger.warn({ err, outbox_id: row.id, subject: row.subject }, 'outbox publish failed; will retry');
          break;
        }
        await options.afterPublish?.(row.id);
        await trx
          .updateTable('outbox')
          .set({ published_at: new Date(), stream_seq: streamSeq === null ? null : String(streamSeq), attempts: sql`attempts + 1` })
          .where('seq', '=', row.seq)
          .execute();
        published += 1;
      }
      return { published, failed: published < rows.length, full: rows.length === batchSize };
    });
    if (result.published > 0) metrics?.published.inc({ schema: options.schema }, result.published);
    return result;
  }

  async function countPending(): Promise<void> {
    if (!metrics) return;
    const r = await options.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('published_at', 'is', null)
      .executeTakeFirst();
    metrics.pending.set({ schema: options.schema }, Number(r?.n ?? 0));
  }

  async function sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
    wake = undefined;
    if (timer) clearTimeout(timer);
  }

  async function run(): Promise<void> {
    while (running) {
      let delay = pollIntervalMs;
      try {
        const result = await pass();
        if (result.failed) delay = retryDelayMs;
        else if (result.full) delay = 0;
        await countPending();
      } catch (err) {
        metrics?.failures.inc({ schema: options.schema });
        options.logger.warn({ err }, 'outbox relay pass failed; will retry');
        delay = retryDelayMs;
      }
      if (running && delay > 0) await sleep(delay);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
    kick() {
      wake?.();
    },
    async drain() {
      let total = 0;
      for (;;) {
        const result = await pass();
        if (result.published === -1) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        total += result.published;
        if (result.failed) throw new AppError('unavailable', 'outbox publish failed; rows stay pending');
        if (!result.full) return total;
      }
    },
  };
}
