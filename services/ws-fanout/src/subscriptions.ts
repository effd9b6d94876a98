/**
 * Subscriptions and filters of every connection of one process (docs/websocket.md §2–§3):
 * live subscriptions on the subject feeds, filter changes in place, and catch-up reads of stored
 * history — Pro replay from any point, and `resume_after` within the resume window on every
 * plan — that join the live feed with no gap and no duplicate.
 *
 * The seam: a catch-up reads the subject with its own ordered consumer and sends each message with
 * a sequence above the member's `lastSeq`; as soon as the member has been sent everything the
 * process's live feed has seen (`member.lastSeq >= feed.lastSeq`) it joins the feed, which from then
 * on sends only sequences above `member.lastSeq`, and the catch-up consumer is deleted.
 */
import { AckPolicy, DeliverPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { PLANS, SLOTS_SUBJECT, TRADES_STREAM, cheapestPlanWhere, type PlanId, type TradeSubject } from '@tradewind/contracts';
import type { Logger, NatsConnection } from '@tradewind/lib';
import { slotFrame, tradeFrame } from './delivery/frame.js';
import { parseObject, type FeedMember, type SubjectFeed, type TradeFeeds } from './delivery/subject-feed.js';
import { matchesFilter, tradeFacts, tradeFilterJson, type TradeFilter } from './domain/trade-filter.js';
import { SlotWatch, slotMessageFacts, tradeSlot } from './domain/slot-watch.js';
import { WsProtocolError } from './domain/errors.js';
import type { ReplayStart } from './domain/replay-request.js';
import type { TradesReplay, TradesReplayer } from './trades-replay.js';
import type { WsFanoutMetrics } from './metrics.js';
import type { CatchUp, Session, Subscription } from './session.js';

/** The cheapest plan that includes replay (for messages). */
const REPLAY_PLAN = cheapestPlanWhere((p) => p.replay);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The config keys subscriptions read. */
export interface SubscriptionsConfig {
  readonly WS_RESUME_WINDOW_MS: number;
  /** Slots a subscription with slot status remembers at most (domain/slot-watch.ts). */
  readonly WS_SLOT_TRACK_MAX: number;
  readonly WS_REPLAY_PAUSE_BYTES: number;
  readonly WS_REPLAY_STALL_MS: number;
  readonly WS_MAX_BUFFERED_BYTES: number;
}

/** Subscriptions of all connections of one process. */
export class Subscriptions {
  /** Catch-up consumer deletions under way (awaited by stop()). */
  private readonly closing = new Set<Promise<void>>();
  private jsm: JetStreamManager | undefined;

  /**
   * @param onSlow applies the slow-consumer policy to a session whose catch-up could not queue (app.ts).
   */
  constructor(
    private readonly config: SubscriptionsConfig,
    private readonly nc: NatsConnection,
    private readonly feeds: TradeFeeds,
    private readonly replayer: TradesReplayer,
    private readonly metrics: WsFanoutMetrics,
    private readonly logger: Logger,
    private readonly onSlow: (session: Session) => void,
  ) {}

  /**
   * Live subscription, or a filter change of an existing one (in place: no gap, no duplicate).
   * A plain subscribe on a subject being replayed replaces the replay with the live feed.
   * @param filter undefined: the request had no `filter` key (an existing filter stays).
   * @param slots slot status (docs/websocket.md "Slot status"); undefined: the request had no `slots` key (off for a
   *   new subscription, unchanged for an existing one).
   * @throws WsProtocolError bad_request when `slots` differs from an existing subscription's.
   */
  subscribe(session: Session, subject: TradeSubject, filter: TradeFilter | null | undefined, slotsAsked?: boolean): void {
    const existing = session.subscriptions.get(subject);
    if (existing && slotsAsked !== undefined) this.sameSlots(existing, slotsAsked);
    const slots = slotsAsked ?? existing?.member.slots !== undefined;
    if (existing && (filter !== undefined || !existing.catchUp)) {
      if (filter !== undefined && existing.catchUp) existing.member.filter = filter;
      else if (filter !== undefined) this.feedOf(existing).setFilter(existing.member, filter);
      session.send({ type: 'subscribed', subject, filter: tradeFilterJson(existing.member.filter), seq: existing.member.lastSeq || null, ...slotsKey(slots) });
      return;
    }
    const keep = existing?.member.filter ?? null;
    if (existing) this.remove(session, existing);
    if (slots) {
      this.subscribeWithSlots(session, subject, filter ?? keep);
      return;
    }
    const feed = this.feeds.get(subject);
    const sub: Subscription = { subject, member: { outbox: session.outbox, filter: filter ?? keep, lastSeq: feed.lastSeq }, catchUp: undefined };
    session.subscriptions.set(subject, sub);
    session.send({ type: 'subscribed', subject, filter: tradeFilterJson(sub.member.filter), seq: feed.lastSeq || null });
    feed.add(sub.member);
  }

  /**
   * A live subscription with slot status: on the subject's feed with slot status when it runs; else (its first
   * use in this process, or while it restarts) read from the subject's current last sequence through a catch-up
   * that joins that feed once it runs, so nothing is missed meanwhile.
   */
  private subscribeWithSlots(session: Session, subject: TradeSubject, filter: TradeFilter | null): void {
    const feed = this.feeds.withSlots(subject);
    const running = this.feeds.isRunning(feed) && feed.lastSeq > 0;
    const from = running ? feed.lastSeq : this.feeds.get(subject).lastSeq;
    const member: FeedMember = { outbox: session.outbox, filter, lastSeq: from, slots: new SlotWatch(subject, null, this.config.WS_SLOT_TRACK_MAX) };
    if (running) {
      session.subscriptions.set(subject, { subject, member, catchUp: undefined });
      session.send({ type: 'subscribed', subject, filter: tradeFilterJson(filter), seq: from || null, slots: true });
      feed.add(member);
      return;
    }
    const catchUp: CatchUp = { kind: 'join', from, handle: undefined, stopped: false };
    const sub: Subscription = { subject, member, catchUp };
    session.subscriptions.set(subject, sub);
    session.send({ type: 'subscribed', subject, filter: tradeFilterJson(filter), seq: from || null, slots: true });
    void (async () => {
      try {
        const handle = await this.open(subject, { kind: 'sequence', sequence: from + 1 }, catchUp, true);
        await this.run(session, sub, catchUp, handle);
      } catch (err) {
        if (session.subscriptions.get(subject) === sub) session.subscriptions.delete(subject);
        this.logger.warn({ err, connection_id: session.id, subject }, 'subscription with slot status could not start');
        session.send({
          type: 'error',
          code: 'unavailable',
          subject,
          message: `${subject} with slot status could not start: TRADES cannot be read right now; subscribe again shortly`,
        });
      }
    })();
  }

  /** @throws WsProtocolError bad_request when `existing` differs from the request in slot status (module docs: unsubscribe first). */
  private sameSlots(existing: Subscription, slots: boolean): void {
    if ((existing.member.slots !== undefined) === slots) return;
    throw new WsProtocolError(
      'invalid_argument',
      'bad_request',
      `already subscribed to ${existing.subject} ${slots ? 'without' : 'with'} slot status; to change that, unsubscribe and subscribe again with "resume_after": ${existing.member.lastSeq} and "slots": ${slots}`,
    );
  }

  /** The live feed `sub` takes (the subject's, or the subject's with slot status). */
  private feedOf(sub: Subscription): SubjectFeed {
    return sub.member.slots ? this.feeds.withSlots(sub.subject) : this.feeds.get(sub.subject);
  }

  /**
   * Pro replay from a time or stream sequence into the live feed; replaces a subscription of the same
   * subject once the consumer exists. Plan and limits are checked by the caller.
   * @throws WsProtocolError bad_replay / unavailable from the replayer (connection stays open).
   */
  async replay(session: Session, subject: TradeSubject, from: string | number, start: ReplayStart, filter: TradeFilter | null, slots = false): Promise<void> {
    const catchUp: CatchUp = { kind: 'replay', from, handle: undefined, stopped: false };
    const handle = await this.replayer.open(subject, start, { slots });
    if (!session.open) {
      this.closeHandle(handle);
      return;
    }
    const existing = session.subscriptions.get(subject);
    if (existing) this.remove(session, existing);
    const member: FeedMember = {
      outbox: session.outbox,
      filter,
      lastSeq: 0,
      ...(slots ? { slots: new SlotWatch(subject, null, this.config.WS_SLOT_TRACK_MAX) } : {}),
    };
    const sub: Subscription = { subject, member, catchUp };
    session.subscriptions.set(subject, sub);
    this.start(catchUp, handle);
    void this.pump(session, sub, catchUp, handle);
  }

  /**
   * `resume_after`: every message of the subject after `afterSeq`, then live. Within the resume window
   * on every plan; a plan with replay may resume from anywhere in the stream's retention.
   * @throws WsProtocolError bad_resume (beyond the stream), resume_too_old (with `oldest_seq`),
   *   unavailable; the connection stays open and an existing subscription is untouched.
   */
  async resume(session: Session, subject: TradeSubject, afterSeq: number, plan: PlanId, filter: TradeFilter | null, slots = false): Promise<void> {
    const feed = slots ? this.feeds.withSlots(subject) : this.feeds.get(subject);
    await this.checkResumable(afterSeq, plan);
    const resumeSlot = slots ? await this.slotAt(afterSeq) : null;
    if (!session.open) return;
    const existing = session.subscriptions.get(subject);
    if (existing) this.remove(session, existing);
    const member: FeedMember = {
      outbox: session.outbox,
      filter,
      lastSeq: afterSeq,
      ...(slots ? { slots: new SlotWatch(subject, resumeSlot, this.config.WS_SLOT_TRACK_MAX) } : {}),
    };
    if (this.feeds.isRunning(feed) && (slots ? feed.lastSeq > 0 : this.feeds.ready) && afterSeq >= feed.lastSeq) {
      this.metrics.resumes.inc({ outcome: 'live' });
      session.subscriptions.set(subject, { subject, member, catchUp: undefined });
      session.send({ type: 'subscribed', subject, resume_after: afterSeq, filter: tradeFilterJson(filter), ...slotsKey(slots) });
      session.send({ type: 'replay_caught_up', subject, seq: null });
      feed.add(member);
      return;
    }
    this.metrics.resumes.inc({ outcome: 'catch_up' });
    const catchUp: CatchUp = { kind: 'resume', from: afterSeq, handle: undefined, stopped: false };
    const sub: Subscription = { subject, member, catchUp };
    session.subscriptions.set(subject, sub);
    session.send({ type: 'subscribed', subject, resume_after: afterSeq, filter: tradeFilterJson(filter), ...slotsKey(slots) });
    let handle: TradesReplay | undefined;
    try {
      handle = await this.open(subject, { kind: 'sequence', sequence: afterSeq + 1 }, catchUp, slots);
    } catch (err) {
      if (session.subscriptions.get(subject) === sub) session.subscriptions.delete(subject);
      throw err;
    }
    void this.run(session, sub, catchUp, handle);
  }

  /**
   * Runs an opened catch-up: nothing when it was stopped meanwhile (`handle` undefined), closed again when the
   * session closed meanwhile, else pumped until it joins the live feed or ends.
   */
  private async run(session: Session, sub: Subscription, catchUp: CatchUp, handle: TradesReplay | undefined): Promise<void> {
    if (!handle) return;
    if (!session.open) {
      this.stopCatchUp(catchUp);
      this.closeHandle(handle);
      return;
    }
    this.start(catchUp, handle);
    await this.pump(session, sub, catchUp, handle);
  }

  /** Ends a subscription (live or catching up). @returns false when the session had none for `subject`. */
  unsubscribe(session: Session, subject: string): boolean {
    const sub = session.subscriptions.get(subject as TradeSubject);
    if (!sub) return false;
    this.remove(session, sub);
    return true;
  }

  /** Stops everything that sends trades to `session`. */
  detach(session: Session): void {
    for (const sub of [...session.subscriptions.values()]) this.remove(session, sub);
  }

  /** The heartbeat of a subscribed session: newest slot and last sequence of its subjects (overall and per subject). */
  heartbeat(session: Session): Record<string, unknown> {
    let seq = 0;
    let slot: number | null = null;
    const subjects: Record<string, number | null> = {};
    for (const sub of session.subscriptions.values()) {
      const last = sub.member.lastSeq;
      subjects[sub.subject] = last || null;
      if (last > seq) seq = last;
      const feedSlot = this.feeds.get(sub.subject).latestSlot();
      if (feedSlot !== null && (slot === null || feedSlot > slot)) slot = feedSlot;
    }
    return { type: 'heartbeat', slot, seq: seq || null, subjects };
  }

  /** Waits for catch-up consumers being deleted. */
  async stop(): Promise<void> {
    await Promise.all([...this.closing]);
  }

  private remove(session: Session, sub: Subscription): void {
    if (session.subscriptions.get(sub.subject) === sub) session.subscriptions.delete(sub.subject);
    this.feedOf(sub).remove(sub.member);
    if (sub.catchUp) this.stopCatchUp(sub.catchUp);
  }

  private start(catchUp: CatchUp, handle: TradesReplay): void {
    catchUp.handle = handle;
    this.metrics.replays.inc();
  }

  private stopCatchUp(catchUp: CatchUp): void {
    if (catchUp.stopped) return;
    catchUp.stopped = true;
    if (catchUp.handle) {
      this.metrics.replays.dec();
      this.closeHandle(catchUp.handle);
    }
  }

  /**
   * Opens the catch-up consumer. @returns undefined when the catch-up was stopped meanwhile (unsubscribed,
   * replaced, session closed): the consumer is closed again and the client was answered by whatever stopped it.
   */
  private async open(subject: TradeSubject, start: ReplayStart, catchUp: CatchUp, slots = false): Promise<TradesReplay | undefined> {
    const handle = await this.replayer.open(subject, start, { slots });
    if (!catchUp.stopped) return handle;
    this.closeHandle(handle);
    return undefined;
  }

  private closeHandle(handle: TradesReplay): void {
    const closing = handle.close().finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /**
   * The slot of the message at `afterSeq` (a trade or a slot message): a resumed subscription with slot status is
   * sent the statuses of slots up to it (domain/slot-watch.ts). null for 0 (nothing was received); the largest
   * slot when the message cannot be read (then every status of a slot with trades of the subject is sent).
   */
  private async slotAt(afterSeq: number): Promise<number | null> {
    if (afterSeq === 0) return null;
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      const m = await this.jsm.streams.getMessage(TRADES_STREAM, { seq: afterSeq });
      const value: unknown = m ? JSON.parse(Buffer.from(m.data).toString('utf8')) : null;
      return tradeSlot(value) ?? Number.MAX_SAFE_INTEGER;
    } catch {
      return Number.MAX_SAFE_INTEGER;
    }
  }

  /**
   * Whether resuming after `afterSeq` is allowed: not beyond the stream, and message `afterSeq + 1`
   * stored within the resume window (any plan) or still in the stream (plans with replay).
   */
  private async checkResumable(afterSeq: number, planId: PlanId): Promise<void> {
    const plan = PLANS[planId];
    let state: { first_seq: number; last_seq: number };
    let next: { time: Date } | null = null;
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      state = (await this.jsm.streams.info(TRADES_STREAM)).state;
      if (afterSeq < state.last_seq && afterSeq + 1 >= state.first_seq) {
        next = await this.jsm.streams.getMessage(TRADES_STREAM, { seq: afterSeq + 1 }).catch(() => null);
      }
    } catch (err) {
      throw new WsProtocolError('unavailable', 'unavailable', 'resume is unavailable right now (TRADES history cannot be read); try again shortly', undefined, {
        cause: err,
      });
    }
    if (afterSeq > state.last_seq) {
      throw new WsProtocolError('invalid_argument', 'bad_resume', `resume_after ${afterSeq} is beyond the last TRADES sequence ${state.last_seq}`);
    }
    if (afterSeq === state.last_seq) return;
    const windowMinutes = this.config.WS_RESUME_WINDOW_MS / 60_000;
    const inRetention = afterSeq + 1 >= state.first_seq;
    if (plan.replay && inRetention) return;
    const inWindow = inRetention && next !== null && next.time.getTime() >= Date.now() - this.config.WS_RESUME_WINDOW_MS;
    if (inWindow) return;
    const oldest = plan.replay ? state.first_seq : await this.oldestInWindow(state.last_seq);
    this.metrics.resumes.inc({ outcome: 'too_old' });
    throw new WsProtocolError(
      'invalid_argument',
      'resume_too_old',
      plan.replay
        ? `resume_after ${afterSeq} is older than the TRADES retention; the oldest sequence still held is ${oldest}`
        : `resume_after ${afterSeq} is older than the ${windowMinutes}-minute resume window of the ${plan.name} plan; the oldest sequence still held for resume is ${oldest} (replay from any point in the stream's retention is in the ${REPLAY_PLAN?.name ?? 'Pro'} plan)`,
      undefined,
      { details: { oldest_seq: oldest } },
    );
  }

  /**
   * The first stream sequence stored within the resume window: an ephemeral consumer from the
   * window's start time counts the messages pending from there (sequences are contiguous in a
   * limits-retention stream, whose deletions only ever remove the oldest).
   */
  private async oldestInWindow(lastSeq: number): Promise<number> {
    const jsm = this.jsm!;
    try {
      const info = await jsm.consumers.add(TRADES_STREAM, {
        ack_policy: AckPolicy.None,
        deliver_policy: DeliverPolicy.StartTime,
        opt_start_time: new Date(Date.now() - this.config.WS_RESUME_WINDOW_MS).toISOString(),
        inactive_threshold: 5_000_000_000,
        mem_storage: true,
      });
      await jsm.consumers.delete(TRADES_STREAM, info.name).catch(() => undefined);
      return lastSeq - info.num_pending + 1;
    } catch (err) {
      throw new WsProtocolError('unavailable', 'unavailable', 'resume is unavailable right now (TRADES history cannot be read); try again shortly', undefined, {
        cause: err,
      });
    }
  }

  /**
   * Waits until the socket has room for more caught-up messages: below WS_REPLAY_PAUSE_BYTES queued.
   * @returns false when the slow-consumer policy applies: no room within WS_REPLAY_STALL_MS.
   */
  private async roomFor(session: Session, catchUp: CatchUp): Promise<boolean> {
    const pauseAt = Math.min(this.config.WS_REPLAY_PAUSE_BYTES, this.config.WS_MAX_BUFFERED_BYTES);
    const deadline = Date.now() + this.config.WS_REPLAY_STALL_MS;
    while (session.outbox.bufferedBytes >= pauseAt && !catchUp.stopped && session.open) {
      if (Date.now() > deadline) return false;
      await sleep(10);
    }
    return true;
  }

  /** Tells the client its subscription ended with the catch-up (`unavailable`, naming the subject: subscribe again). */
  private catchUpFailed(session: Session, subject: TradeSubject, catchUp: CatchUp, err: unknown): void {
    this.logger.warn({ err, connection_id: session.id, subject }, 'catch-up consumer failed');
    session.send({
      type: 'error',
      code: 'unavailable',
      subject,
      message: `${catchUp.kind === 'join' ? 'subscription' : catchUp.kind} of ${subject} stopped: TRADES history cannot be read right now; subscribe again shortly`,
    });
  }

  /**
   * Sends the catch-up's messages until the member has everything the live feed has seen, then moves
   * it to the feed. Replay: `subscribed` (with the first stream sequence) before the first message.
   * Both: `replay_caught_up` once, after the message that left nothing pending (or at once when
   * nothing was pending at the start).
   */
  private async pump(session: Session, sub: Subscription, catchUp: CatchUp, handle: TradesReplay): Promise<void> {
    const { subject, member } = sub;
    const feed = this.feedOf(sub);
    const announce =
      catchUp.kind === 'replay'
        ? (firstSeq: number | null) =>
            session.send({ type: 'subscribed', subject, replay: { from: catchUp.from, first_seq: firstSeq }, filter: tradeFilterJson(member.filter) })
        : () => undefined;
    let announced = false;
    let caughtUp = false;
    let lastSent: number | null = null;
    const caughtUpMessage = (seq: number | null) => {
      if (catchUp.kind !== 'join') session.send({ type: 'replay_caught_up', subject, seq });
    };
    if (handle.pendingAtStart === 0) {
      announce(null);
      caughtUpMessage(null);
      announced = caughtUp = true;
    }
    try {
      for await (const m of handle.messages) {
        if (catchUp.stopped) break;
        if (m.seq <= member.lastSeq) continue;
        if (!(await this.roomFor(session, catchUp))) {
          this.onSlow(session);
          break;
        }
        if (catchUp.stopped || !session.open) break;
        if (!announced) {
          announce(m.seq);
          announced = true;
        }
        member.lastSeq = m.seq;
        const filter = member.filter;
        if (m.subject === SLOTS_SUBJECT) {
          // Only subscriptions with slot status read `slots` (their consumer's second filter subject).
          const facts = slotMessageFacts(m.data);
          if (facts && member.slots?.admit(facts)) {
            const frame = slotFrame(m.seq, subject, m.data);
            if (!session.outbox.push(frame)) break;
            lastSent = m.seq;
            this.metrics.sent.inc({ subject: SLOTS_SUBJECT });
            this.metrics.sentBytes.inc(frame.byteLength);
          }
        } else {
          const value = filter || member.slots ? parseObject(m.data) : null;
          const facts = filter && value ? tradeFacts(subject, value) : null;
          if (!filter || (facts !== null && matchesFilter(filter, facts))) {
            const frame = tradeFrame(m.seq, m.data);
            if (!session.outbox.push(frame)) break;
            lastSent = m.seq;
            member.slots?.noteTrade(tradeSlot(value));
            this.metrics.sent.inc({ subject });
            this.metrics.sentBytes.inc(frame.byteLength);
          }
        }
        if (!caughtUp && m.info.pending === 0) {
          caughtUp = true;
          caughtUpMessage(catchUp.kind === 'replay' ? m.seq : lastSent);
        }
        if (caughtUp && member.lastSeq >= feed.lastSeq && this.feeds.isRunning(feed) && (member.slots ? true : this.feeds.ready)) {
          // The seam: everything the live feed has seen is sent; from here on the feed sends only later sequences.
          this.stopCatchUp(catchUp);
          sub.catchUp = undefined;
          if (session.subscriptions.get(subject) === sub) feed.add(member);
          return;
        }
      }
      // The consumer's messages ended by themselves (not stopped, not a closing session): never a silent end.
      if (!catchUp.stopped && session.open) this.catchUpFailed(session, subject, catchUp, new Error('the catch-up consumer ended'));
    } catch (err) {
      if (!catchUp.stopped) this.catchUpFailed(session, subject, catchUp, err);
    }
    // Ended without joining the feed (stopped, slow, failed): the subscription is gone.
    if (session.subscriptions.get(subject) === sub) session.subscriptions.delete(subject);
    this.stopCatchUp(catchUp);
  }
}

/** `{slots: true}` for answers about a subscription with slot status; nothing otherwise (answers stay as they were). */
function slotsKey(slots: boolean): { slots?: true } {
  return slots ? { slots: true } : {};
}
