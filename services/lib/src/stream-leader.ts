/**
 * The broker's own word that a JetStream stream (or one of its consumers) can be used again after a
 * failover: the leader-elected advisories nats-server publishes in the stream's account, and the
 * client's own reconnect. Readers and the publisher act on these at once instead of waiting out a
 * timer (issue 31, docs/reliability.md "Recovery after a stream-leader kill").
 *
 * Why a signal and not a timeout: nats-server (2.9–2.11) elects a new leader 4–9 s after the old one
 * died (raft `minElectionTimeoutDefault`..`maxElectionTimeoutDefault` in server/raft.go, not
 * configurable). A publish or pull sent meanwhile is lost with the dead node; nats.js learns of it
 * only at its request timeout (5 s by default) or after two missed idle heartbeats. The advisory
 * arrives when the stream has a leader again, which is the earliest moment a retry can succeed.
 *
 * Advisory subjects (https://docs.nats.io/running-a-nats-service/nats_admin/monitoring/monitoring_jetstream#advisories):
 * `$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.<stream>` and
 * `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.<stream>.<consumer>`. They are published in the
 * account that owns the stream: the services' account sees them, customers' accounts do not (those
 * rely on idle heartbeats, docs/nats.md).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from './logger.js';

/** Why a {@link StreamLeaderWatch} fired. */
export type LeaderSignal =
  /** The stream elected a leader (after a failover, a restart, or a lame-duck node handing over). */
  | 'stream_leader_elected'
  /** A consumer of the stream elected a leader (durable consumers have their own raft group). */
  | 'consumer_leader_elected'
  /** This connection reconnected (to the same or another node): requests in flight were lost. */
  | 'reconnect';

/** What a listener is told. */
export interface LeaderEvent {
  readonly signal: LeaderSignal;
  /** The stream, from the advisory subject (or the watched stream for `reconnect`). */
  readonly stream: string;
  /** The consumer whose leader was elected (only for `consumer_leader_elected`). */
  readonly consumer?: string;
  /** The new leader's server name when the advisory names it. */
  readonly leader?: string;
}

/** A running watch; `stop()` ends it (idempotent). */
export interface StreamLeaderWatch {
  stop(): void;
}

/** The advisory subject of a stream's leader election. */
export function streamLeaderElectedSubject(stream: string): string {
  return `$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.${stream}`;
}

/** The advisory subject of leader elections of `stream`'s consumers (`consumer` or every one, `*`). */
export function consumerLeaderElectedSubject(stream: string, consumer = '*'): string {
  return `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.${stream}.${consumer}`;
}

/**
 * Calls `onEvent` whenever `stream` (or, with `consumers`, one of its consumers) elects a leader and
 * whenever `nc` reconnects. Listener errors are caught and logged; the watch goes on.
 * @param options.consumers also watch the stream's consumers' elections (`true`: every consumer; a
 *   name: that one).
 */
export function watchStreamLeader(
  nc: NatsConnection,
  stream: string,
  onEvent: (event: LeaderEvent) => void,
  options: { consumers?: boolean | string; logger?: Logger } = {},
): StreamLeaderWatch {
  let stopped = false;
  const emit = (event: LeaderEvent) => {
    if (stopped) return;
    try {
      onEvent(event);
    } catch (err) {
      options.logger?.warn({ err, ...event }, 'stream leader listener failed');
    }
  };
  const leaderOf = (data: Uint8Array): string | undefined => {
    try {
      const leader = (JSON.parse(new TextDecoder().decode(data)) as { leader?: unknown }).leader;
      return typeof leader === 'string' ? leader : undefined;
    } catch {
      return undefined;
    }
  };
  const subs = [
    nc.subscribe(streamLeaderElectedSubject(stream), {
      callback: (err, msg) => {
        if (err) return;
        const leader = leaderOf(msg.data);
        emit({ signal: 'stream_leader_elected', stream, ...(leader ? { leader } : {}) });
      },
    }),
  ];
  if (options.consumers) {
    const name = options.consumers === true ? '*' : options.consumers;
    subs.push(
      nc.subscribe(consumerLeaderElectedSubject(stream, name), {
        callback: (err, msg) => {
          if (err) return;
          const consumer = msg.subject.slice(consumerLeaderElectedSubject(stream, '').length);
          const leader = leaderOf(msg.data);
          emit({ signal: 'consumer_leader_elected', stream, consumer, ...(leader ? { leader } : {}) });
        },
      }),
    );
  }
  const status = nc.status();
  void (async () => {
    for await (const s of status) {
      if (stopped) break;
      if (s.type === 'reconnect') emit({ signal: 'reconnect', stream });
    }
  })().catch(() => undefined);
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      for (const sub of subs) sub.unsubscribe();
      (status as { stop?: () => void }).stop?.();
    },
  };
}
