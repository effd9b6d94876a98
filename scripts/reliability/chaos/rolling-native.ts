/**
 * Native NATS subscribers of the rolling-restart class (chaos/rolling.ts) and the reader of the stream's
 * ground truth.
 *
 * A native subscriber is a nats.js client connected straight to the cluster (every node's URL, its own
 * preferred node first, no randomising, so each node's restart takes some subscriber's server away) reading
 * TRADES with an ordered consumer, as ws-fanout's feeds and the stream class's subscriber (chaos/stream.ts)
 * do: when the consumer ends, or delivers nothing for {@link NATIVE_STALL_MS} while the stream holds newer
 * messages, it is re-created from the last sequence it delivered + 1 (docs/reliability.md: nats.js' ordered
 * consumer can stop delivering without ending after its server goes). It records every sequence with its
 * arrival time; a sequence that is not last + 1 is a gap (or, when lower, a duplicate).
 */
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { TRADES_STREAM } from '@tradewind/contracts';

/** A subscriber that received nothing for this long while TRADES held newer messages is re-created, ms (chaos/stream.ts OBSERVER_STALL_MS). */
export const NATIVE_STALL_MS = 5_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One message of TRADES as stored. */
export interface StoredTrade {
  readonly seq: number;
  readonly subject: string;
  /** The server's store time, epoch ms (JetStream message timestamp). */
  readonly storedMs: number;
  /** Nats-Msg-Id (ingest: `<signature>:<path>:replay:<run>:<loop>`). */
  readonly msgId: string;
}

/** Connects to the cluster with `servers` in this order (no randomising), reconnecting forever as the services do. */
async function connectOrdered(servers: readonly string[], creds: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: [...servers],
    noRandomize: true,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
  });
}

/** A native subscriber; see the module comment. */
export class NativeSubscriber {
  readonly kind = 'native';
  /** Every sequence delivered, in order of arrival. */
  readonly seqs: number[] = [];
  /** Arrival time (epoch ms) of each entry of {@link seqs}. */
  readonly times: number[] = [];
  /** Epoch ms of each server reconnect (nats.js `reconnect` status). */
  readonly reconnects: number[] = [];
  /** Re-creations of the ordered consumer: when and why (`ended`, `silent`). */
  readonly recreations: Array<{ at: number; why: string }> = [];
  /** The sequence it started after. */
  after = 0;
  private nc: NatsConnection | undefined;
  private stopped = false;
  private generation = 0;
  private current: ConsumerMessages | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private lastSeen = 0;

  constructor(
    readonly id: string,
    private readonly servers: readonly string[],
    private readonly creds: string,
  ) {}

  /** The highest sequence delivered (its start when none). */
  maxSeq(): number {
    return Math.max(this.after, this.lastSeen);
  }

  /** Connects and starts reading after `after` (the stream's last sequence when it starts). @throws Error when no server answers. */
  async start(after: number): Promise<void> {
    this.after = after;
    const nc = await connectOrdered(this.servers, this.creds, `chaos-rolling-${this.id}`);
    this.nc = nc;
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnect') this.reconnects.push(Date.now());
    })().catch(() => undefined);
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    this.next();
    let aheadSince: number | null = null;
    let seenAt = this.maxSeq();
    let probing = false;
    this.watchdog = setInterval(() => {
      if (this.maxSeq() !== seenAt) {
        seenAt = this.maxSeq();
        aheadSince = null;
      }
      if (probing) return;
      probing = true;
      void jsm.streams
        .info(TRADES_STREAM)
        .then(
          (info) => {
            if (this.stopped || info.state.last_seq <= this.maxSeq()) {
              aheadSince = null;
              return;
            }
            aheadSince ??= Date.now();
            if (Date.now() - aheadSince < NATIVE_STALL_MS) return;
            aheadSince = null;
            this.recreations.push({ at: Date.now(), why: 'silent' });
            const stuck = this.current;
            this.next();
            void stuck?.close().catch(() => undefined);
          },
          () => undefined,
        )
        .finally(() => {
          probing = false;
        });
    }, 1_000);
  }

  private next(): void {
    this.generation++;
    this.current = undefined;
    void this.run(this.generation);
  }

  private async run(gen: number): Promise<void> {
    const js = jetstream(this.nc!);
    const from = this.maxSeq() + 1;
    try {
      const consumer = await js.consumers.get(TRADES_STREAM, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
      const messages = await consumer.consume({ expires: 2_000 });
      if (this.stopped || gen !== this.generation) {
        void messages.close().catch(() => undefined);
        return;
      }
      this.current = messages;
      for await (const m of messages) {
        // A superseded generation's late messages are dropped, as a client drops a closed connection's frames.
        if (gen !== this.generation) break;
        this.seqs.push(m.seq);
        this.times.push(Date.now());
        if (m.seq > this.lastSeen) this.lastSeen = m.seq;
      }
    } catch {
      // Counted below as an ended consumer.
    }
    if (this.stopped || gen !== this.generation) return;
    this.recreations.push({ at: Date.now(), why: 'ended' });
    await sleep(200);
    if (!this.stopped && gen === this.generation) this.next();
  }

  /** Stops reading and closes the connection. Never throws. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.watchdog);
    void this.current?.close().catch(() => undefined);
    await this.nc?.close().catch(() => undefined);
  }
}

/**
 * Starts `count` native subscribers, subscriber i preferring node i mod n, each after the stream's current last sequence.
 * @throws Error when one cannot connect.
 */
export async function startNativeSubscribers(count: number, nodeUrls: readonly string[], creds: string, jsm: JetStreamManager): Promise<NativeSubscriber[]> {
  const after = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
  const subs: NativeSubscriber[] = [];
  for (let i = 0; i < count; i++) {
    const order = nodeUrls.map((_, k) => nodeUrls[(i + k) % nodeUrls.length]!);
    const s = new NativeSubscriber(`native-${i}`, order, creds);
    await s.start(after);
    subs.push(s);
  }
  return subs;
}

/**
 * Reads every message of TRADES from `fromSeq` to the stream's last sequence (the ground truth every client is
 * judged against), with an ordered consumer on `nc`. @throws Error when it cannot read them all within `timeoutMs` ms.
 */
export async function readStoredTrades(nc: NatsConnection, fromSeq: number, timeoutMs: number): Promise<StoredTrade[]> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const last = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
  const out: StoredTrade[] = [];
  if (last < fromSeq) return out;
  const consumer = await jetstream(nc).consumers.get(TRADES_STREAM, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq });
  const messages = await consumer.consume({ expires: 2_000 });
  const timer = setTimeout(() => void messages.close().catch(() => undefined), timeoutMs);
  try {
    for await (const m of messages) {
      out.push({ seq: m.seq, subject: m.subject, storedMs: Math.round(m.info.timestampNanos / 1e6), msgId: m.headers?.get('Nats-Msg-Id') ?? '' });
      if (m.seq >= last) break;
    }
  } finally {
    clearTimeout(timer);
    await messages.close().catch(() => undefined);
  }
  if ((out.at(-1)?.seq ?? 0) < last) throw new Error(`read TRADES only up to seq ${out.at(-1)?.seq ?? fromSeq - 1} of ${last} within ${timeoutMs} ms`);
  return out;
}
