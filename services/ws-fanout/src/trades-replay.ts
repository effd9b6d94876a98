/**
 * Pro replay of TRADES history for one subject: an ordered JetStream consumer (nats.js v3) on the
 * services' connection (the TRADEWIND account owns the stream), starting at a time or a stream
 * sequence and carrying on into the live feed. An ordered consumer delivers every stored message
 * of its filter once, in stream order; on a gap it recreates itself from the last stream sequence
 * it delivered, so the history-to-live seam has no gap and no duplicate.
 *
 * Memory is bounded by the consumer's pull size: nats.js queues the next pull request behind the
 * messages already handed to the iterator, so while the caller does not read (a paused replay),
 * no more than `batchMessages` messages are fetched.
 */
import { randomBytes } from 'node:crypto';
import {
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import { SLOTS_SUBJECT, TRADES_STREAM } from '@tradewind/contracts';
import type { NatsConnection } from '@tradewind/lib';
import type { ReplayStart } from './domain/replay-request.js';
import { WsProtocolError } from './domain/errors.js';

/** Name prefix of catch-up consumers (replay, resume_after) on TRADES. */
export const CATCH_UP_CONSUMER_PREFIX = 'ws_catchup_';

/** One open replay. */
export interface TradesReplay {
  /** Messages of the subject from the start point that the stream held when the consumer was created (0: nothing to replay). */
  readonly pendingAtStart: number;
  /** The messages, history first, then live ones as they are stored; ends after {@link close}. */
  readonly messages: AsyncIterable<JsMsg>;
  /** Stops the consumer and deletes it on the server; idempotent, never throws. */
  close(): Promise<void>;
}

/** Opens replays on one NATS connection. */
export class TradesReplayer {
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;

  /**
   * @param nc the services' connection (TRADEWIND account).
   * @param options.batchMessages messages per pull request (config WS_REPLAY_BATCH_MESSAGES).
   * @param options.inactiveMs the server deletes a consumer nobody pulls from for this long (a crashed pod's replays), ms.
   * @param options.idleHeartbeatMs idle heartbeat of the pulls, ms (config WS_FEED_IDLE_HEARTBEAT_MS, at least 500): two
   *   missed make nats.js' ordered consumer start again from its last sequence. nats.js' own default (half of a 30 s
   *   pull) left a catch-up whose pull went unanswered silent for 30 s (the rolling class, 29 Nov 20:16: a client
   *   resumed onto a new pod waited 31.4 s); default 1 000.
   */
  constructor(
    private readonly nc: NatsConnection,
    private readonly options: { batchMessages: number; inactiveMs: number; idleHeartbeatMs?: number },
  ) {}

  /**
   * Creates the consumer for `subject` from `start`; with `how.slots` for `subject` and the `slots` messages
   * merged in stream order (two filter subjects: nats-server 2.10 or newer).
   * @throws WsProtocolError bad_replay when a start sequence lies beyond the stream's next sequence;
   *   unavailable (connection stays open) when JetStream or the TRADES stream cannot be reached.
   */
  async open(subject: string, start: ReplayStart, how: { slots?: boolean } = {}): Promise<TradesReplay> {
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      this.js ??= jetstream(this.nc);
      if (start.kind === 'sequence') {
        const lastSeq = (await this.jsm.streams.info(TRADES_STREAM)).state.last_seq;
        if (start.sequence > lastSeq + 1) {
          throw new WsProtocolError(
            'invalid_argument',
            'bad_replay',
            `replay from sequence ${start.sequence} is in the future: the last TRADES sequence is ${lastSeq}`,
          );
        }
      }
      const options: Partial<OrderedConsumerOptions> = {
        name_prefix: `${CATCH_UP_CONSUMER_PREFIX}${randomBytes(8).toString('hex')}`,
        filter_subjects: how.slots ? [subject, SLOTS_SUBJECT] : subject,
        inactive_threshold: this.options.inactiveMs,
        ...(start.kind === 'time'
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(start.ms).toISOString() }
          : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start.sequence }),
      };
      const consumer = await this.js.consumers.get(TRADES_STREAM, options);
      const pendingAtStart = (await consumer.info(true)).num_pending;
      const heartbeatMs = this.options.idleHeartbeatMs ?? 1_000;
      // nats.js requires expires ≥ 1 s and > idle_heartbeat (as the live feeds: delivery/subject-feed.ts).
      const messages = await consumer.consume({
        max_messages: this.options.batchMessages,
        idle_heartbeat: heartbeatMs,
        expires: Math.max(1_000, heartbeatMs * 4),
      });
      let closing: Promise<void> | undefined;
      return {
        pendingAtStart,
        messages,
        close: () =>
          (closing ??= (async () => {
            // close() resolves only once the iterator is read up to the stop it queues; a reader that has
            // already left its loop (a catch-up that joined the live feed) never reads it, so it is not awaited.
            void messages.close().catch(() => undefined);
            await consumer.delete().catch(() => undefined);
          })()),
      };
    } catch (err) {
      if (err instanceof WsProtocolError) throw err;
      throw new WsProtocolError('unavailable', 'unavailable', 'replay is unavailable right now (TRADES history cannot be read); try again shortly', undefined, {
        cause: err,
      });
    }
  }
}
