/**
 * Where a live source resumes after ingest restarts: the last processed slot and
 * signature, kept in a JetStream key-value bucket (one key per source). Within
 * one process the source resumes by itself after a dropped connection; this is
 * for a restart or a new pod. Trades re-published from the checkpoint slot are
 * dropped by the TRADES duplicate window (Nats-Msg-Id = signature:path).
 */
import { Kvm, type KV } from '@nats-io/kv';
import { retryStartup, type NatsConnection } from '@tradewind/lib';

/** The last transaction a source handed to ingest and ingest finished publishing. */
export interface Checkpoint {
  /** Slot of that transaction. */
  slot: number;
  /** Its signature (base58). */
  signature: string;
  /** When it was written, ms since the Unix epoch. */
  savedAtMs: number;
}

export interface CheckpointStore {
  /** The stored checkpoint, or null when none was ever written (or it is unreadable: logged by the caller). */
  load(): Promise<Checkpoint | null>;
  save(checkpoint: Checkpoint): Promise<void>;
}

/** Default bucket name: JetStream KV `ingest_checkpoints` (history 1, file storage). */
export const CHECKPOINT_BUCKET = 'ingest_checkpoints';

/**
 * A {@link CheckpointStore} in JetStream KV bucket `bucket`, key `key`
 * (`[A-Za-z0-9_-]+`, e.g. the source name). Creates the bucket when missing, with `replicas`
 * replicas (NATS_STREAM_REPLICAS, like TRADES: a checkpoint on one node of a cluster is unreadable
 * while that node is down; an existing bucket keeps its replicas): a start-up step
 * (`checkpoint bucket <bucket>`, @tradewind/lib retryStartup), retried with backoff inside ingest's
 * start-up until STARTUP_DEADLINE_MS while JetStream is not available yet.
 * @throws the nats.js error when JetStream is unavailable (StartupFailedError inside a start-up).
 */
export async function natsCheckpointStore(
  nc: NatsConnection,
  key: string,
  { bucket = CHECKPOINT_BUCKET, replicas = 1 }: { bucket?: string; replicas?: number } = {},
): Promise<CheckpointStore> {
  if (!/^[A-Za-z0-9_-]+$/.test(key)) throw new Error(`checkpoint key "${key}" must match [A-Za-z0-9_-]+`);
  const kv: KV = await retryStartup(`checkpoint bucket ${bucket}`, () =>
    new Kvm(nc).create(bucket, { history: 1, replicas, description: 'ingest live-source resume points' }),
  );
  return {
    async load() {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== 'PUT' || entry.length === 0) return null;
      const v = entry.json<Partial<Checkpoint>>();
      if (typeof v.slot !== 'number' || !Number.isSafeInteger(v.slot) || typeof v.signature !== 'string') return null;
      return { slot: v.slot, signature: v.signature, savedAtMs: typeof v.savedAtMs === 'number' ? v.savedAtMs : 0 };
    },
    async save(checkpoint) {
      await kv.put(key, JSON.stringify(checkpoint));
    },
  };
}
