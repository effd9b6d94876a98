/**
 * What the client wants to be subscribed to, and where each subject stands (pure: no I/O).
 *
 * Per subject it keeps
 * - `lastSeq`: the `seq` of the last trade handed to the user — every later trade with
 *   `seq ≤ lastSeq` is a duplicate and dropped;
 * - `position`: the sequence to resume after on the next connection — `lastSeq`, or further when
 *   the server said the connection had passed later messages of the subject (a live `subscribed`
 *   carrying `seq`, a heartbeat's `subjects`, a `replay_caught_up`): those were filtered out or
 *   never existed, so resuming after them loses nothing and avoids a needless replay.
 * Sequences are TRADES stream sequences: increasing per subject, not contiguous.
 */
import { subscribeRequest, type ClientRequest, type TradeFilter } from './protocol.js';

/** One subject's state. */
export interface SubjectState {
  readonly subject: string;
  filter: TradeFilter | null;
  /** Last trade sequence delivered (dedupe watermark); undefined before the first. */
  lastSeq: number | undefined;
  /** Resume point (≥ lastSeq); undefined when nothing is known (subscribe live). */
  position: number | undefined;
  /** Where the server is: not asked yet on this connection, asked, subscribed and catching up, or live. */
  status: 'idle' | 'requested' | 'catching_up' | 'live';
  /** The resume_after of the request in flight or of the catch-up running (for `gap` / `resumed` events). */
  resumingAfter: number | undefined;
  /** Whether the subscription asks for slot status (`"slots": true`): its slot messages move `lastSeq` and `position` like trades. */
  readonly slots: boolean;
}

/** A gap the client could not avoid; always surfaced to the user as a `gap` event. */
export interface Gap {
  readonly subject: string;
  /** The sequence the client asked to resume after. */
  readonly afterSeq: number;
  /** The oldest sequence the server still held for resume, when it said; null otherwise. */
  readonly oldestSeq: number | null;
  /** resume_too_old: older than the server's resume window; resume_refused: the server refused the position (bad_resume, e.g. a reset stream). */
  readonly reason: 'resume_too_old' | 'resume_refused';
}

/** The desired subscriptions and their positions. */
export class SubscriptionTable {
  private readonly subjects = new Map<string, SubjectState>();

  /** Number of subjects wanted. */
  get size(): number {
    return this.subjects.size;
  }

  has(subject: string): boolean {
    return this.subjects.has(subject);
  }

  get(subject: string): SubjectState | undefined {
    return this.subjects.get(subject);
  }

  /** Every wanted subject, in the order they were added. */
  list(): SubjectState[] {
    return [...this.subjects.values()];
  }

  /**
   * Adds a subject.
   * @param resumeAfter start after this sequence (e.g. one saved by a previous process); it is also the dedupe watermark.
   * @param slots ask for slot status on this subject.
   * @throws Error when the subject is already wanted.
   */
  add(subject: string, filter: TradeFilter | null, resumeAfter: number | undefined, slots = false): SubjectState {
    if (this.subjects.has(subject)) throw new Error(`${subject} is already subscribed (use setFilter to change its filter)`);
    const state: SubjectState = { subject, filter, lastSeq: resumeAfter, position: resumeAfter, status: 'idle', resumingAfter: undefined, slots };
    this.subjects.set(subject, state);
    return state;
  }

  /** Forgets a subject; false when it was not wanted. */
  remove(subject: string): boolean {
    return this.subjects.delete(subject);
  }

  /** Every subject back to `idle` (a new connection knows nothing yet). */
  resetConnection(): void {
    for (const s of this.subjects.values()) {
      s.status = 'idle';
      s.resumingAfter = undefined;
    }
  }

  /**
   * Whether a trade of `subject` with `seq` is new; records it when it is.
   * A trade without `seq` (a v1 server) is always new and moves nothing.
   */
  accept(subject: string, seq: number | undefined): boolean {
    const s = this.subjects.get(subject);
    if (!s) return false;
    if (seq === undefined) return true;
    if (s.lastSeq !== undefined && seq <= s.lastSeq) return false;
    s.lastSeq = seq;
    if (s.position === undefined || seq > s.position) s.position = seq;
    return true;
  }

  /** The server says the connection has passed `seq` on `subject`: a later resume may start there. */
  notePosition(subject: string, seq: number | null | undefined): void {
    const s = this.subjects.get(subject);
    if (!s || seq === null || seq === undefined) return;
    if (s.position === undefined || seq > s.position) s.position = seq;
  }

  /**
   * The request that (re)subscribes `subject` on a connection: resume after the position when one
   * is known, else live. Marks the subject `requested`.
   */
  subscribeRequestFor(subject: string): ClientRequest {
    const s = this.mustGet(subject);
    s.status = 'requested';
    s.resumingAfter = s.position;
    return subscribeRequest(subject, s.filter, s.position, false, s.slots);
  }

  /** The server answered `subscribed`: catching up when it echoed resume_after, else live. */
  subscribed(subject: string, resumeAfter: number | null, seq: number | null): void {
    const s = this.subjects.get(subject);
    if (!s) return;
    s.status = resumeAfter !== null ? 'catching_up' : 'live';
    if (resumeAfter === null) {
      s.resumingAfter = undefined;
      this.notePosition(subject, seq);
    }
  }

  /**
   * `replay_caught_up` for a subject catching up: it is live now.
   * @returns the resume_after it caught up from, or undefined when it was not catching up.
   */
  caughtUp(subject: string, seq: number | null): number | undefined {
    const s = this.subjects.get(subject);
    if (!s || s.status !== 'catching_up') return undefined;
    s.status = 'live';
    const from = s.resumingAfter;
    s.resumingAfter = undefined;
    this.notePosition(subject, seq);
    return from;
  }

  /**
   * The server refused to resume `subject` (resume_too_old, bad_resume). The position is dropped so
   * the next request subscribes live; after `bad_resume` (the position is beyond the stream: a
   * reset stream) the dedupe watermark goes too, or every new message would look like a duplicate.
   * @returns the gap to surface, or undefined when the subject was not resuming.
   */
  resumeRefused(subject: string, reason: Gap['reason'], oldestSeq: number | null): Gap | undefined {
    const s = this.subjects.get(subject);
    if (!s || s.resumingAfter === undefined) return undefined;
    const gap: Gap = { subject, afterSeq: s.resumingAfter, oldestSeq, reason };
    s.position = undefined;
    s.resumingAfter = undefined;
    s.status = 'idle';
    if (reason === 'resume_refused') s.lastSeq = undefined;
    return gap;
  }

  /** The resume positions of every subject that has one (to persist across process restarts). */
  positions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.subjects.values()) if (s.position !== undefined) out[s.subject] = s.position;
    return out;
  }

  private mustGet(subject: string): SubjectState {
    const s = this.subjects.get(subject);
    if (!s) throw new Error(`${subject} is not subscribed`);
    return s;
  }
}
