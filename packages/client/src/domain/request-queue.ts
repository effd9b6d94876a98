/**
 * Subscribe / filter / unsubscribe requests waiting to be sent, one in flight at a time (pure).
 *
 * Why one at a time: error frames name no subject (`{"type":"error","code","message"}`), and the
 * server answers a resume asynchronously (it reads the stream first), so answers to several
 * requests in flight could arrive in any order. With one request in flight an error belongs to it.
 * The request's JSON is built when it is sent, from the subscription's state at that moment, so a
 * queued subscribe carries the latest filter and resume position.
 */
import type { TradeFilter } from './protocol.js';

/** One request to send. */
export interface QueueEntry {
  readonly kind: 'subscribe' | 'filter' | 'unsubscribe';
  readonly subject: string;
  /** `filter`: the filter before the change, restored when the server refuses the new one. */
  readonly previousFilter?: TradeFilter | null;
  /** How many times the request was retried after `rate_limited` / `unavailable`. */
  retries: number;
}

/** FIFO of requests with at most one in flight. */
export class RequestQueue {
  private entries: QueueEntry[] = [];
  /** The request sent and not answered yet. */
  inFlight: QueueEntry | undefined;

  /** Requests waiting (not counting the one in flight). */
  get length(): number {
    return this.entries.length;
  }

  /**
   * Queues `entry` unless an equivalent one waits already: a queued subscribe of the subject
   * covers a later subscribe or filter change (it is built from the current filter when sent);
   * an unsubscribe drops the subject's queued subscribe and filter changes.
   * @returns whether the entry was queued.
   */
  add(entry: QueueEntry): boolean {
    const same = (kinds: QueueEntry['kind'][]) => this.entries.some((e) => e.subject === entry.subject && kinds.includes(e.kind));
    if (entry.kind === 'subscribe' && same(['subscribe'])) return false;
    if (entry.kind === 'filter' && same(['subscribe', 'filter'])) return false;
    if (entry.kind === 'unsubscribe') {
      this.entries = this.entries.filter((e) => e.subject !== entry.subject);
    }
    this.entries.push(entry);
    return true;
  }

  /** Removes every queued (not in-flight) request of `subject`. */
  dropSubject(subject: string): void {
    this.entries = this.entries.filter((e) => e.subject !== subject);
  }

  /** Takes the next request and marks it in flight; undefined when one is in flight already or none waits. */
  take(): QueueEntry | undefined {
    if (this.inFlight) return undefined;
    this.inFlight = this.entries.shift();
    return this.inFlight;
  }

  /** The in-flight request was answered; returns it. */
  complete(): QueueEntry | undefined {
    const done = this.inFlight;
    this.inFlight = undefined;
    return done;
  }

  /** Forgets everything (the connection is gone). */
  clear(): void {
    this.entries = [];
    this.inFlight = undefined;
  }
}
