/**
 * A bounded push → pull queue exposed as an async iterator (one reader).
 */
import { BufferOverflowError } from './errors.js';

/** An async iterable fed by `push`, ended by `end`. */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private done = false;
  private error: unknown;

  /**
   * @param limit most items held unread; one more ends the iterator with BufferOverflowError.
   * @param what what the items are, for that error's message ("trades", "events").
   * @param onEnd called once when the queue ends (by `end`, by overflow or by the reader's `return`).
   */
  constructor(
    private readonly limit: number,
    private readonly what: string,
    private readonly onEnd: () => void = () => {},
  ) {}

  /** Whether the queue has ended (no more items will be accepted). */
  get ended(): boolean {
    return this.done;
  }

  /** Hands `item` to the reader, or queues it. Ignored once ended. */
  push(item: T): void {
    if (this.done) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w.resolve({ value: item, done: false });
      return;
    }
    if (this.items.length - this.head >= this.limit) {
      this.end(new BufferOverflowError(this.limit, this.what));
      return;
    }
    this.items.push(item);
  }

  /** Ends the queue: the reader gets what is queued, then `done` (or `error` thrown). */
  end(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    this.onEnd();
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      if (error !== undefined) w.reject(error);
      else w.resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head++] as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.done) {
      if (this.error !== undefined) {
        const error = this.error;
        this.error = undefined; // thrown once; later calls say done
        return Promise.reject(error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The reader stopped (`break` in `for await`): drop what is queued and end. */
  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.head = 0;
    this.end();
    this.error = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
