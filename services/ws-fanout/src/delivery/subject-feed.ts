/**
 * The live feed of one TRADES subject in one ws-fanout process (docs/websocket.md §2, "Delivery").
 *
 * Each process reads each subject once, from JetStream with an ordered consumer (nats.js v3): the
 * consumer pulls in batches, so a busy process falls behind the stream instead of being cut off by
 * nats-server as a slow consumer (core subscriptions are, and lose everything in flight), and every
 * message arrives with its stream sequence, which clients see as `seq` and resume from.
 *
 * Per message: one frame is built (frame.ts) and queued for every member; the JSON is parsed once,
 * only when some member has a filter; metrics are counted once per message, not per member.
 */
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { SLOTS_SUBJECT, TRADES_STREAM, type TradeSubject } from '@tradewind/contracts';
import { isJetStreamNotFound, watchStreamLeader, type LeaderEvent, type Logger, type NatsConnection, type StreamLeaderWatch } from '@tradewind/lib';
import { randomBytes } from 'node:crypto';
import { slotFrame, tradeFrame } from './frame.js';
import type { Outbox } from './outbox.js';
import { matchesFilter, tradeFacts, type TradeFacts, type TradeFilter } from '../domain/trade-filter.js';
import { slotMessageFacts, tradeSlot, type SlotWatch } from '../domain/slot-watch.js';

/** Name prefix of the live feeds' consumers on TRADES (operators tell them from catch-up consumers by it). */
export const FEED_CONSUMER_PREFIX = 'ws_feed_';

/** One client's subscription to a subject while it takes the live feed. */
export interface FeedMember {
  readonly outbox: Outbox;
  /** null: every message of the subject. Changed only through {@link SubjectFeed.setFilter}. */
  filter: TradeFilter | null;
  /**
   * The last stream sequence this client was sent (or skipped by its filter) on this subject: the feed
   * sends only later ones, which is how a catching-up client joins without a duplicate.
   */
  lastSeq: number;
  /**
   * Set on subscriptions with slot status (`"slots": true`, docs/websocket.md "Slot status"): their feed also
   * carries the `slots` messages, and this decides which are sent.
   */
  readonly slots?: SlotWatch;
}

/** What the feed reports once per message that reached at least one member. */
export interface FeedDelivery {
  /** The trade subject, or `slots` for a slot status message. */
  readonly subject: TradeSubject | typeof SLOTS_SUBJECT;
  readonly seq: number;
  readonly recipients: number;
  readonly bytes: number;
  readonly msg: JsMsg;
}

/**
 * One subject's live feed: the subject's messages, or with `withSlots` the subject's and the `slots` messages
 * merged in stream order (one consumer with both filter subjects, nats-server 2.10+), for subscriptions with slot
 * status.
 */
export class SubjectFeed {
  /** Stream sequence of the last message of this subject the feed has seen (0: none yet). */
  lastSeq = 0;
  private lastData: Uint8Array | undefined;
  private lastSlot: { seq: number; slot: number | null } | undefined;
  private readonly members = new Set<FeedMember>();
  private filtered = 0;

  constructor(
    readonly subject: TradeSubject,
    private readonly onDelivered: (delivery: FeedDelivery) => void,
    readonly withSlots = false,
  ) {}

  /** The feed's key among a process's feeds: the subject, or `<subject>+slots`. */
  get key(): string {
    return feedKey(this.subject, this.withSlots);
  }

  /** The consumer's filter subjects. */
  get filterSubjects(): string | string[] {
    return this.withSlots ? [this.subject, SLOTS_SUBJECT] : this.subject;
  }

  /** Members receiving the feed. */
  get size(): number {
    return this.members.size;
  }

  /** Changes a member's filter in place: the next message is judged by the new one, with no gap. */
  setFilter(member: FeedMember, filter: TradeFilter | null): void {
    const joined = this.members.has(member);
    if (joined) this.remove(member);
    member.filter = filter;
    if (joined) this.add(member);
  }

  /** Starts sending messages with a sequence above `member.lastSeq` to `member`. */
  add(member: FeedMember): void {
    if (this.members.has(member)) return;
    this.members.add(member);
    if (member.filter) this.filtered++;
  }

  remove(member: FeedMember): void {
    if (this.members.delete(member) && member.filter) this.filtered--;
  }

  /**
   * The slot of the newest message of this subject, for heartbeats; parsed from the message only
   * when asked (once per message at most). null when the message has none or none was seen.
   */
  latestSlot(): number | null {
    if (!this.lastData) return null;
    if (this.lastSlot?.seq !== this.lastSeq) {
      let slot: number | null = null;
      try {
        const value = (JSON.parse(Buffer.from(this.lastData).toString('utf8')) as { slot?: unknown }).slot;
        slot = typeof value === 'number' ? value : null;
      } catch {
        slot = null;
      }
      this.lastSlot = { seq: this.lastSeq, slot };
    }
    return this.lastSlot.slot;
  }

  /** Sets the last sequence known before the first message arrives (from the stream at start). */
  primeLastSeq(seq: number, data: Uint8Array | undefined): void {
    if (seq > this.lastSeq) {
      this.lastSeq = seq;
      this.lastData = data;
    }
  }

  /** Fans one stored message out to the members. Called synchronously from the consumer. */
  deliver(msg: JsMsg): void {
    const seq = msg.seq;
    if (seq <= this.lastSeq) return;
    if (this.withSlots) {
      this.deliverWithSlots(msg);
      return;
    }
    this.lastSeq = seq;
    this.lastData = msg.data;
    if (this.members.size === 0) return;
    const frame = tradeFrame(seq, msg.data);
    let facts: TradeFacts | null | undefined;
    if (this.filtered > 0) facts = factsOf(this.subject, msg.data);
    let recipients = 0;
    for (const member of this.members) {
      if (seq <= member.lastSeq) continue;
      member.lastSeq = seq;
      // A message that cannot be parsed passes no filter (it carries none of the fields filters look at).
      if (member.filter && (!facts || !matchesFilter(member.filter, facts))) continue;
      if (member.outbox.push(frame)) recipients++;
    }
    if (recipients > 0) this.onDelivered({ subject: this.subject, seq, recipients, bytes: frame.byteLength * recipients, msg });
  }

  /** {@link deliver} on a feed with slot status: a slot message goes to the members whose watch admits it; a trade as usual, noted by slot. */
  private deliverWithSlots(msg: JsMsg): void {
    const seq = msg.seq;
    this.lastSeq = seq;
    if (msg.subject === SLOTS_SUBJECT) {
      if (this.members.size === 0) return;
      const facts = slotMessageFacts(msg.data);
      let frame: Buffer | undefined;
      let recipients = 0;
      for (const member of this.members) {
        if (seq <= member.lastSeq) continue;
        member.lastSeq = seq;
        if (!facts || !member.slots?.admit(facts)) continue;
        frame ??= slotFrame(seq, this.subject, msg.data);
        if (member.outbox.push(frame)) recipients++;
      }
      if (recipients > 0 && frame) this.onDelivered({ subject: SLOTS_SUBJECT, seq, recipients, bytes: frame.byteLength * recipients, msg });
      return;
    }
    this.lastData = msg.data;
    if (this.members.size === 0) return;
    const frame = tradeFrame(seq, msg.data);
    const value = parseObject(msg.data);
    const facts = value && this.filtered > 0 ? tradeFacts(this.subject, value) : null;
    const slot = tradeSlot(value);
    let recipients = 0;
    for (const member of this.members) {
      if (seq <= member.lastSeq) continue;
      member.lastSeq = seq;
      if (member.filter && (!facts || !matchesFilter(member.filter, facts))) continue;
      if (member.outbox.push(frame)) {
        recipients++;
        member.slots?.noteTrade(slot);
      }
    }
    if (recipients > 0) this.onDelivered({ subject: this.subject, seq, recipients, bytes: frame.byteLength * recipients, msg });
  }
}

/** The key of a feed among a process's feeds: `subject`, or `<subject>+slots` for the feed with slot status. */
export function feedKey(subject: TradeSubject, withSlots: boolean): string {
  return withSlots ? `${subject}+slots` : subject;
}

/** The message's JSON object, or null when it is not one. */
export function parseObject(data: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The parsed facts a filter looks at, or null when the payload is not a JSON object. */
export function factsOf(subject: TradeSubject, data: Uint8Array): TradeFacts | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? tradeFacts(subject, value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Options of the feeds' consumers. */
export interface TradeFeedsOptions {
  /** Messages per pull request of each feed's consumer. */
  readonly batchMessages: number;
  /** Delay before a feed whose consumer could not be created (no TRADES stream yet, JetStream down) tries again, ms. */
  readonly retryMs: number;
  /**
   * How often each feed is checked for silence, ms (0 = never): a feed whose sequence did not move
   * since the last check while TRADES holds a newer message of its subject is recreated from its
   * last sequence. nats.js' ordered consumer can stop delivering without ending after the TRADES
   * stream leader is killed on a cluster (found by `npm run chaos`, docs/reliability.md).
   */
  readonly stallCheckMs: number;
  /**
   * Idle heartbeat of each feed's pull requests, ms (nats.js `consume({ idle_heartbeat })`, at least 500):
   * two missed in a row (the node serving the consumer died or the pull was lost) recreate the feed.
   */
  readonly idleHeartbeatMs: number;
  /** Told each recreation (metric tradewind_ws_fanout_feed_recreated_total). */
  readonly onRecreated?: (reason: FeedRecreateReason) => void;
}

/** Why a feed was recreated (metric label `reason` and logs). */
export type FeedRecreateReason = 'stream_leader_elected' | 'reconnect' | 'heartbeats_missed' | 'silent';

/**
 * The live feeds of every subject in this process: one ordered JetStream consumer each, from the
 * message after the stream's last one at start, recreated from the last sequence seen whenever its
 * consumer ends (JetStream restarted, stream re-created), so a feed never skips a stored message.
 */
export class TradeFeeds {
  /** By {@link SubjectFeed.key}: every subject's feed from the start, a feed with slot status once first asked for. */
  private readonly feeds = new Map<string, SubjectFeed>();
  private readonly running = new Map<string, ConsumerMessages>();
  private jsm: JetStreamManager | undefined;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private watchdog: NodeJS.Timeout | undefined;
  /** Each running feed's last sequence at the previous silence check. */
  private readonly seenAtCheck = new Map<string, number>();
  /** Feeds recreated because they fell silent while TRADES held newer messages (metric and tests). */
  stallsRecovered = 0;
  /** Feeds recreated, by reason (metric `tradewind_ws_feed_recreated_total` and tests). */
  readonly recreated: Record<FeedRecreateReason, number> = { stream_leader_elected: 0, reconnect: 0, heartbeats_missed: 0, silent: 0 };
  private leaderWatch: StreamLeaderWatch | undefined;
  /** Per subject, the newest attempt to start its consumer (see {@link TradeFeeds.open}). */
  private readonly attempts = new Map<string, number>();
  private readonly subjects: readonly TradeSubject[];
  private started = false;

  constructor(
    private readonly nc: NatsConnection,
    subjects: readonly TradeSubject[],
    private readonly options: TradeFeedsOptions,
    private readonly logger: Logger,
    private readonly onDelivered: (delivery: FeedDelivery) => void,
  ) {
    this.subjects = [...subjects];
    for (const subject of subjects) this.feeds.set(subject, new SubjectFeed(subject, onDelivered));
  }

  /** The feed of `subject`. */
  get(subject: TradeSubject): SubjectFeed {
    return this.feeds.get(subject)!;
  }

  /**
   * The feed of `subject` with slot status (its messages and `slots`, merged), started on first use: until its
   * consumer runs ({@link isRunning}) a subscription reads the same through a catch-up and joins it after.
   */
  withSlots(subject: TradeSubject): SubjectFeed {
    const key = feedKey(subject, true);
    let feed = this.feeds.get(key);
    if (!feed) {
      feed = new SubjectFeed(subject, this.onDelivered, true);
      this.feeds.set(key, feed);
      if (this.started && !this.stopped) void this.open(feed);
    }
    return feed;
  }

  /** Whether `feed`'s consumer is running. */
  isRunning(feed: SubjectFeed): boolean {
    return this.running.has(feed.key);
  }

  /** Whether every subject's feed (not counting those with slot status, started on demand) is running (readiness). */
  get ready(): boolean {
    return this.subjects.every((subject) => this.running.has(subject));
  }

  /** Starts every feed; resolves once each has tried once (feeds that could not start keep retrying). */
  async start(): Promise<void> {
    // The broker's signal that TRADES can serve again (a new leader, or this connection moved to
    // another node): every feed is recreated from its last sequence at once, instead of waiting for
    // nats.js to notice (it may not: docs/reliability.md "nats.js after a leader kill").
    this.leaderWatch = watchStreamLeader(this.nc, TRADES_STREAM, (event) => this.onLeaderEvent(event), { logger: this.logger });
    this.started = true;
    await Promise.all([...this.feeds.values()].map((feed) => this.open(feed)));
    if (this.options.stallCheckMs > 0 && !this.stopped) {
      this.watchdog = setInterval(() => void this.checkStalls(), this.options.stallCheckMs);
      this.watchdog.unref();
    }
  }

  /**
   * Recreates every running feed that delivered nothing since the previous check although TRADES
   * holds a newer message of its subject (one `last_by_subj` lookup per quiet feed). A lookup that
   * fails (JetStream unavailable) is retried at the next check.
   */
  private async checkStalls(): Promise<void> {
    for (const [key, messages] of this.running) {
      const feed = this.feeds.get(key)!;
      const before = this.seenAtCheck.get(key);
      this.seenAtCheck.set(key, feed.lastSeq);
      if (before === undefined || before !== feed.lastSeq || !this.jsm) continue;
      let newest = await this.jsm.streams.getMessage(TRADES_STREAM, { last_by_subj: feed.subject }).catch(() => null);
      if (feed.withSlots) {
        const slot = await this.jsm.streams.getMessage(TRADES_STREAM, { last_by_subj: SLOTS_SUBJECT }).catch(() => null);
        if (slot && (!newest || slot.seq > newest.seq)) newest = slot;
      }
      if (this.stopped || this.running.get(key) !== messages || !newest || newest.seq <= feed.lastSeq) continue;
      this.stallsRecovered += 1;
      this.recreate(feed, messages, 'silent', { stream_seq: newest.seq });
    }
  }

  private onLeaderEvent(event: LeaderEvent): void {
    if (this.stopped) return;
    const reason: FeedRecreateReason = event.signal === 'reconnect' ? 'reconnect' : 'stream_leader_elected';
    // Feeds still trying to start: try again now, when it can succeed.
    const starting = [...this.feeds.values()].filter((feed) => !this.running.has(feed.key));
    for (const [key, messages] of [...this.running]) this.recreate(this.feeds.get(key)!, messages, reason, event.leader ? { leader: event.leader } : {});
    for (const feed of starting) void this.open(feed);
  }

  /**
   * Replaces `messages` (the running consumer of `feed`) with a new consumer from the feed's last
   * sequence + 1, without waiting for the old one: an iterator of a consumer on a dead node may never
   * end (its close is bounded and its late messages are dropped by sequence in {@link SubjectFeed.deliver}).
   */
  private recreate(feed: SubjectFeed, messages: ConsumerMessages, reason: FeedRecreateReason, extra: Record<string, unknown>): void {
    if (this.stopped || this.running.get(feed.key) !== messages) return;
    this.running.delete(feed.key);
    this.seenAtCheck.delete(feed.key);
    this.recreated[reason] += 1;
    this.options.onRecreated?.(reason);
    this.logger.warn(
      { subject: feed.subject, slots: feed.withSlots, last_seq: feed.lastSeq, reason, ...extra },
      'recreating the trade feed from its last sequence',
    );
    void Promise.race([messages.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
    void this.open(feed);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.leaderWatch?.stop();
    if (this.watchdog) clearInterval(this.watchdog);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const open = [...this.running.values()];
    this.running.clear();
    // Callback consumers run the queued stop at once; bounded anyway, so shutdown never waits on a stuck iterator.
    await Promise.all(open.map((messages) => Promise.race([messages.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())])));
  }

  private retry(feed: SubjectFeed): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.open(feed);
    }, this.options.retryMs);
    this.timers.add(timer);
  }

  private async open(feed: SubjectFeed): Promise<void> {
    if (this.stopped) return;
    const subject = feed.key;
    const gen = (this.attempts.get(subject) ?? 0) + 1;
    this.attempts.set(subject, gen);
    // Hedged: a JetStream request sent while the cluster elects a leader gets no answer until nats.js' timeout
    // (5 s). When this attempt has not started the feed within retryMs, another one starts; the first to start
    // wins and a later one closes its consumer at once.
    const hedge = setTimeout(() => {
      this.timers.delete(hedge);
      if (!this.stopped && !this.running.has(subject) && this.attempts.get(subject) === gen) void this.open(feed);
    }, this.options.retryMs);
    this.timers.add(hedge);
    const settle = () => {
      clearTimeout(hedge);
      this.timers.delete(hedge);
    };
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      let from = feed.lastSeq + 1;
      if (feed.lastSeq === 0) {
        // First start: live from the message after the stream's current last one; the subject's
        // newest stored message gives heartbeats their seq until a new one arrives.
        const info = await this.jsm.streams.info(TRADES_STREAM);
        from = info.state.last_seq + 1;
        const last = await this.jsm.streams.getMessage(TRADES_STREAM, { last_by_subj: feed.subject }).catch(() => null);
        // A message stored after the info call is delivered by the consumer, not primed.
        if (last && last.seq <= info.state.last_seq) feed.primeLastSeq(last.seq, last.data);
        if (feed.withSlots) {
          const slot = await this.jsm.streams.getMessage(TRADES_STREAM, { last_by_subj: SLOTS_SUBJECT }).catch(() => null);
          if (slot && slot.seq <= info.state.last_seq) feed.primeLastSeq(slot.seq, last?.data);
        }
      }
      const consumer = await jetstream(this.nc).consumers.get(TRADES_STREAM, {
        name_prefix: `${FEED_CONSUMER_PREFIX}${randomBytes(8).toString('hex')}`,
        filter_subjects: feed.filterSubjects,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: Math.max(from, 1),
        inactive_threshold: 60_000,
      });
      const messages = await consumer.consume({
        max_messages: this.options.batchMessages,
        idle_heartbeat: this.options.idleHeartbeatMs,
        // nats.js requires expires ≥ 1 s and > idle_heartbeat; a pull is renewed before it expires anyway.
        expires: Math.max(1_000, this.options.idleHeartbeatMs * 4),
        callback: (msg) => feed.deliver(msg),
      });
      settle();
      if (this.stopped || this.running.has(subject)) {
        // Stopped meanwhile, or another attempt started the feed first.
        await messages.close().catch(() => undefined);
        return;
      }
      this.running.set(subject, messages);
      void (async () => {
        for await (const status of messages.status()) {
          if (status.type === 'heartbeats_missed') {
            this.recreate(feed, messages, 'heartbeats_missed', { count: status.count });
            break;
          }
        }
      })().catch(() => undefined);
      void messages.closed().then((err) => {
        if (this.running.get(subject) !== messages) return;
        this.running.delete(subject);
        if (this.stopped) return;
        this.logger.warn({ err, subject: feed.subject, last_seq: feed.lastSeq }, 'trade feed consumer ended; recreating it from the last sequence');
        this.retry(feed);
      });
    } catch (err) {
      settle();
      // A newer attempt is on it, or one already started the feed.
      if (this.running.has(subject) || this.attempts.get(subject) !== gen) return;
      this.logger.warn({ err, subject: feed.subject, stream_missing: isJetStreamNotFound(err, 'stream') }, 'trade feed could not start; retrying');
      this.retry(feed);
    }
  }
}
