/**
 * Native NATS subscribers of the rolling-restart class (chaos/rolling.ts) and the reader of the stream's
 * ground truth.
 *
 * A native subscriber is a nats.js client connected straight to the cluster (every node's URL, its own
 * preferred node first, no randomising, so each node's restart takes some subscriber's server away) reading
 * TRADES as the documented resumable reader does (chaos/resumable-reader.ts: a new consumer from the last
 * sequence + 1 on missed heartbeats, a reconnect or an ended consume()). It records every sequence with its
 * arrival time; a sequence that is not last + 1 is a gap (or, when lower, a duplicate).
 */
import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { TRADES_STREAM } from '@tradewind/contracts';
import { startResumableReader, type ReaderRestartReason, type ResumableReader } from './resumable-reader.js';

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
  /** Re-creations of the consumer: when and why. */
  readonly recreations: Array<{ at: number; why: ReaderRestartReason }> = [];
  /** The sequence it started after. */
  after = 0;
  private nc: NatsConnection | undefined;
  private reader: ResumableReader | undefined;
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
    this.reader = await startResumableReader(nc, {
      lastSeq: () => this.maxSeq(),
      deliver: (m) => {
        this.seqs.push(m.seq);
        this.times.push(Date.now());
        if (m.seq > this.lastSeen) this.lastSeen = m.seq;
      },
      onRestart: (why) => this.recreations.push({ at: Date.now(), why }),
    });
  }

  /** Stops reading and closes the connection. Never throws. */
  async stop(): Promise<void> {
    await this.reader?.stop();
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
 * judged against), with ordered consumers on `nc`: one that delivers nothing for `stallMs` ms is replaced by a new
 * one from the next sequence (a consumer on a 2.10.27 cluster that has just restarted nodes can go silent: `npm run
 * chaos` 30 Nov 02:16 stopped at 18,199 of 28,014 for a whole minute). @throws Error when it cannot read them all
 * within `timeoutMs` ms.
 */
export async function readStoredTrades(nc: NatsConnection, fromSeq: number, timeoutMs: number, stallMs = 5_000): Promise<StoredTrade[]> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const last = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
  const out: StoredTrade[] = [];
  if (last < fromSeq) return out;
  const deadline = Date.now() + timeoutMs;
  /** The last sequence read so far. */
  const readTo = () => out.at(-1)?.seq ?? fromSeq - 1;
  let consumers = 0;
  while (readTo() < last && Date.now() < deadline) {
    const next = readTo() + 1;
    consumers++;
    const consumer = await jetstream(nc)
      .consumers.get(TRADES_STREAM, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next })
      .catch(() => null);
    if (consumer === null) {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    const messages = await consumer.consume({ expires: 2_000 });
    let lastMessageAt = Date.now();
    const watchdog = setInterval(() => {
      if (Date.now() - lastMessageAt > stallMs || Date.now() > deadline) void messages.close().catch(() => undefined);
    }, 250);
    try {
      for await (const m of messages) {
        lastMessageAt = Date.now();
        if (m.seq <= readTo()) continue;
        out.push({ seq: m.seq, subject: m.subject, storedMs: Math.round(m.info.timestampNanos / 1e6), msgId: m.headers?.get('Nats-Msg-Id') ?? '' });
        if (m.seq >= last) break;
      }
    } finally {
      clearInterval(watchdog);
      await messages.close().catch(() => undefined);
    }
  }
  if (readTo() < last) throw new Error(`read TRADES only up to seq ${readTo()} of ${last} within ${timeoutMs} ms (${consumers} consumers)`);
  return out;
}
