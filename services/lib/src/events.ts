/**
 * The EVENTS and EVENTS_DEAD_LETTER streams (docs/events.md): their settings and their creation.
 * The event subjects, payloads and encoding are the contract in @tradewind/contracts (events.ts).
 */
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEAD_LETTER_STREAM, EVENT_SUBJECTS, EVENTS_STREAM } from '@tradewind/contracts';
import { upsertStream } from './nats.js';

/** Settings of the EVENTS stream. */
export interface EventsStreamOptions {
  /**
   * Nats-Msg-Id duplicate window in ms (default 24 h). An outbox relay that crashes between
   * publishing and marking a row published re-publishes it on restart; inside this window the
   * server drops the copy. Consumers also deduplicate by event id, so nothing relies on it alone.
   */
  duplicateWindowMs: number;
  /** Replicas in a clustered deployment (default 1). */
  replicas: number;
}

export const DEFAULT_EVENTS_STREAM: EventsStreamOptions = { duplicateWindowMs: 24 * 60 * 60 * 1000, replicas: 1 };

/**
 * Creates or updates EVENTS (file storage, no age or size limit: it is the system of record that
 * projections rebuild from) and EVENTS_DEAD_LETTER. Idempotent. Each stream is a start-up step
 * (upsertStream): called inside a start-up (startService), a cluster still settling — no meta leader, an
 * R3 stream with fewer than 3 servers up — is retried with backoff until STARTUP_DEADLINE_MS.
 * @throws the JetStream error outside a start-up; StartupFailedError / StartupAbortedError inside one.
 */
export async function ensureEventsStreams(jsm: JetStreamManager, options: EventsStreamOptions = DEFAULT_EVENTS_STREAM): Promise<void> {
  await upsertStream(jsm, {
    name: EVENTS_STREAM,
    subjects: [...EVENT_SUBJECTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: 0,
    duplicate_window: nanos(options.duplicateWindowMs),
    num_replicas: options.replicas,
  });
  await upsertStream(jsm, {
    name: DEAD_LETTER_STREAM,
    subjects: ['deadletter.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: 0,
    num_replicas: options.replicas,
  });
}
