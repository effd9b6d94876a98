/**
 * TradewindClient: one logical stream of trades over ws-fanout's WebSocket, surviving reconnects
 * with no gap and no duplicate (protocol: docs/websocket.md and protocol v2).
 *
 * - Authenticates by signing the server's challenge nonce with the NKey seed (`{"jwt","sig"}`).
 * - Reconnects after any close except a credentials refusal (4401/4400), with exponential backoff
 *   (1 s doubling to 30 s, 10 consecutive failed attempts by default: domain/backoff.ts).
 * - Resubscribes every subject with `resume_after` = the last sequence it had (domain/subscriptions.ts)
 *   and drops any trade with `seq` ≤ the last one delivered; a resume the server refuses is a `gap` event.
 * - Watchdog: no frame at all for `watchdogMs` (3 × the server's 5 s heartbeat) → the link is
 *   treated as dead, dropped and reconnected.
 * - Slot status (`subscribe(subject, { slots: true })`): `slot` events, and `waitForSlot(trade)`, which resolves
 *   when the trade's slot is confirmed (or finalized) and rejects with SlotDeadError when it dies
 *   (docs/websocket.md "Slot status").
 */
import { AsyncQueue } from './async-queue.js';
import { createNonceSigner, type NonceSigner } from './credentials.js';
import { backoffDelayMs, resolveBackoff, type BackoffPolicy } from './domain/backoff.js';
import {
  CLIENT_ABANDON_CLOSE_CODE,
  FATAL_CLOSE_CODES,
  checkFilter,
  parseServerFrame,
  subscribeRequest,
  type ClientRequest,
  type ServerFrame,
  type TradeFilter,
} from './domain/protocol.js';
import { RequestQueue, type QueueEntry } from './domain/request-queue.js';
import { SlotBook, reaches, type WantedCommitment } from './domain/slot-book.js';
import { SubscriptionTable } from './domain/subscriptions.js';
import { CredentialsRefusedError, ReconnectFailedError, SlotDeadError, SubscriptionError, TradewindError, TradewindOptionsError } from './errors.js';
import type { ClientEvent, ClientEventOf } from './events.js';
import type { TradeSubject } from './generated/trades.js';
import { subjectOfTrade, type TradeMessage } from './trades.js';
import { defaultWebSocket, messageText, type WebSocketConstructor, type WebSocketLike } from './websocket.js';

/** Timer functions (injectable: tests run the schedule faster or record it). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options of {@link TradewindClient}. Every limit has a default. */
export interface TradewindClientOptions {
  /** WebSocket endpoint, `ws://` or `wss://` (GET /api/nats `ws_connection`; locally ws://localhost:9223). */
  url: string;
  /** User JWT (GET /api/nats `user_jwt`, or the .creds file). */
  jwt: string;
  /** User NKey seed, `SU…`. Only signs the challenge; never sent. */
  seed: string;
  /** Reconnect schedule; default 1 s doubling to 30 s, 10 consecutive failed attempts (`maxAttempts: Infinity` for ever). */
  reconnect?: Partial<BackoffPolicy>;
  /** No frame (trade, heartbeat or other) for this long → drop the link and reconnect, ms. Default 15000 (3 × the 5 s heartbeat); Infinity disables. */
  watchdogMs?: number;
  /** A subscribe / filter / unsubscribe request unanswered for this long → reconnect, ms. Default 10000. */
  requestTimeoutMs?: number;
  /** Trades one iterator may hold unread before it ends with BufferOverflowError. Default 10000. */
  maxBufferedTrades?: number;
  /** Events one `events()` iterator may hold unread before it ends with BufferOverflowError. Default 1000. */
  maxBufferedEvents?: number;
  /** WebSocket constructor; default globalThis.WebSocket (browsers, Node ≥ 22), else the `ws` package. */
  WebSocket?: WebSocketConstructor;
  /** Timers; default the global setTimeout / clearTimeout. */
  timers?: Timers;
  /** Random numbers in [0, 1) for backoff jitter; default Math.random. */
  random?: () => number;
}

/** Options of {@link TradewindClient.subscribe}. */
export interface SubscribeOptions {
  /** Server-side filter (protocol v2 §3); null or `{}` for none. */
  filter?: TradeFilter | null;
  /**
   * Start after this TRADES sequence (e.g. a position saved by a previous process, see
   * `positions()`): the server sends every later message still within its resume window, then live.
   */
  resumeAfter?: number;
  /**
   * Ask for slot status (`"slots": true`, needs a server on nats-server 2.10+): after the trades of each slot it
   * receives that slot's `confirmed`, `finalized` or `dead` status, as `slot` events; `waitForSlot` needs it.
   * Default false. Cannot be changed on an existing subscription (unsubscribe first).
   */
  slots?: boolean;
}

/** Options of {@link TradewindClient.waitForSlot}. */
export interface WaitForSlotOptions {
  /** Give up after this long (rejects with TradewindError `slot_timeout`), ms. Default 60000 (finalization takes about 13 s); Infinity waits for ever. */
  timeoutMs?: number;
}

/** Default of {@link WaitForSlotOptions.timeoutMs}, ms. */
export const DEFAULT_SLOT_WAIT_MS = 60_000;

/** Counters of one client, for logs and tests. */
export interface ClientStats {
  /** Trades handed to iterators. */
  tradesDelivered: number;
  /** Trades dropped because their `seq` was not above the last one delivered for the subject. */
  duplicatesDropped: number;
  /** Connections that reached `authenticated`. */
  sessions: number;
}

export const DEFAULT_WATCHDOG_MS = 15_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BUFFERED_TRADES = 10_000;
export const DEFAULT_MAX_BUFFERED_EVENTS = 1_000;
/** Server error codes that end a subscribe request for good (the subject is dropped, its iterators end with SubscriptionError). */
const SUBJECT_REFUSALS = new Set(['unknown_subject', 'subject_not_in_plan', 'bad_filter', 'bad_request', 'replay_not_in_plan']);
/** Server error codes after which the same request is sent again later (with the reconnect backoff schedule). */
const RETRIED_REFUSALS = new Set(['rate_limited', 'unavailable']);

type Phase = 'idle' | 'connecting' | 'authenticated' | 'waiting' | 'closed';

/** One subject of a client: iterate it for that subject's trades. */
export class Subscription<S extends TradeSubject = TradeSubject> implements AsyncIterable<TradeMessage<S>> {
  /** @internal created by TradewindClient.subscribe */
  constructor(
    readonly subject: S,
    private readonly client: TradewindClient,
  ) {}

  /** A new iterator over this subject's trades from now on (each call its own buffer). */
  trades(): AsyncIterableIterator<TradeMessage<S>> {
    return this.client.subjectTrades(this.subject);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<TradeMessage<S>> {
    return this.trades();
  }

  /** See {@link TradewindClient.setFilter}. */
  setFilter(filter: TradeFilter | null): void {
    this.client.setFilter(this.subject, filter);
  }

  /** See {@link TradewindClient.unsubscribe}. */
  unsubscribe(): boolean {
    return this.client.unsubscribe(this.subject);
  }
}

/**
 * A Tradewind WebSocket client.
 *
 * ```ts
 * const client = new TradewindClient({ url: 'ws://localhost:9223', jwt, seed });
 * client.subscribe('basic.pumpfun', { filter: { types: ['CREATE'] } });
 * client.on('gap', (g) => console.warn('missed', g));
 * void client.connect();
 * for await (const trade of client.trades()) console.log(trade.seq, trade.signature);
 * ```
 * Iterators end when the client closes: normally after close(), with the error otherwise
 * (CredentialsRefusedError, ReconnectFailedError).
 */
export class TradewindClient {
  readonly url: string;
  readonly #jwt: string;
  readonly #signer: NonceSigner;
  readonly #backoff: BackoffPolicy;
  readonly #watchdogMs: number;
  readonly #requestTimeoutMs: number;
  readonly #maxTrades: number;
  readonly #maxEvents: number;
  readonly #timers: Timers;
  readonly #random: () => number;
  #WebSocket: WebSocketConstructor | undefined;

  readonly #table = new SubscriptionTable();
  readonly #requests = new RequestQueue();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #tradeSinks = new Set<AsyncQueue<TradeMessage>>();
  readonly #subjectSinks = new Map<string, Set<AsyncQueue<TradeMessage>>>();
  readonly #eventSinks = new Set<AsyncQueue<ClientEvent>>();
  readonly #listeners = new Map<ClientEvent['type'], Set<(event: never) => void>>();

  #phase: Phase = 'idle';
  #ws: WebSocketLike | undefined;
  /** Number of the reconnect attempt running (0: the first connection, or the one after a successful session). */
  #attempt = 0;
  /** The last error frame of the current connection: names the refusal when a close follows. */
  #lastError: { code: string; message: string } | undefined;
  #watchdog: unknown;
  #retryTimer: unknown;
  #requestTimer: unknown;
  readonly #retryTimers = new Set<unknown>();
  #finalError: TradewindError | null = null;
  readonly #ready: Promise<ClientEventOf<'authenticated'>>;
  #resolveReady!: (event: ClientEventOf<'authenticated'>) => void;
  #rejectReady!: (error: unknown) => void;
  #authenticatedOnce = false;
  readonly #stats: ClientStats = { tradesDelivered: 0, duplicatesDropped: 0, sessions: 0 };
  readonly #slots = new SlotBook();
  /** Rejects every waitForSlot still pending (on close). */
  readonly #slotWaits = new Set<(error: TradewindError) => void>();

  /** @throws TradewindOptionsError on a bad URL, missing or mismatched credentials, or bad limits. */
  constructor(options: TradewindClientOptions) {
    if (!options || typeof options !== 'object') throw new TradewindOptionsError('options are required: { url, jwt, seed }');
    let url: URL;
    try {
      url = new URL(options.url);
    } catch (err) {
      throw new TradewindOptionsError(`url ${JSON.stringify(options.url)} is not a URL (e.g. ws://localhost:9223)`, { cause: err });
    }
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new TradewindOptionsError(`url must be ws:// or wss://, got ${url.protocol}//`);
    if (typeof options.jwt !== 'string' || options.jwt.split('.').length !== 3)
      throw new TradewindOptionsError('jwt must be the user JWT (three base64url parts)');
    this.url = options.url;
    this.#jwt = options.jwt;
    this.#signer = createNonceSigner(options.jwt, options.seed);
    try {
      this.#backoff = resolveBackoff(options.reconnect);
    } catch (err) {
      throw new TradewindOptionsError((err as Error).message, { cause: err });
    }
    this.#watchdogMs = positive('watchdogMs', options.watchdogMs ?? DEFAULT_WATCHDOG_MS, true);
    this.#requestTimeoutMs = positive('requestTimeoutMs', options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, true);
    this.#maxTrades = positive('maxBufferedTrades', options.maxBufferedTrades ?? DEFAULT_MAX_BUFFERED_TRADES, false);
    this.#maxEvents = positive('maxBufferedEvents', options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS, false);
    this.#timers = options.timers ?? { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };
    this.#random = options.random ?? Math.random;
    this.#WebSocket = options.WebSocket;
    this.#ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.#ready.catch(() => undefined); // a caller that never awaits connect() must not get an unhandled rejection
  }

  /**
   * Starts connecting (idempotent).
   * @returns the first `authenticated` event; rejects with the error that ended the client if it
   *   ends before authenticating once (CredentialsRefusedError, ReconnectFailedError, or `closed`).
   */
  connect(): Promise<ClientEventOf<'authenticated'>> {
    if (this.#phase === 'idle') void this.#open();
    return this.#ready;
  }

  /**
   * Wants `subject` (from now on, or after `resumeAfter`); sent once authenticated, and again with
   * `resume_after` after every reconnect. Subscribing a subject already wanted returns its
   * Subscription (and changes its filter when `filter` is given).
   * @throws TradewindOptionsError on a bad subject, filter or resumeAfter, or `resumeAfter` for a subject already subscribed;
   *   TradewindError `closed` after close().
   */
  subscribe<S extends TradeSubject>(subject: S, options: SubscribeOptions = {}): Subscription<S> {
    if (this.#phase === 'closed') throw new TradewindError('closed', 'the client is closed');
    if (typeof subject !== 'string' || subject.length === 0) throw new TradewindOptionsError('subject must be a TRADES subject such as basic.pumpfun');
    const filter = filterOption(options.filter);
    const { resumeAfter } = options;
    if (resumeAfter !== undefined && !(Number.isSafeInteger(resumeAfter) && resumeAfter >= 0)) {
      throw new TradewindOptionsError(`resumeAfter must be a non-negative integer (a TRADES stream sequence), got ${String(resumeAfter)}`);
    }
    if (options.slots !== undefined && typeof options.slots !== 'boolean')
      throw new TradewindOptionsError(`slots must be true or false, got ${String(options.slots)}`);
    const existing = this.#subscriptions.get(subject) as Subscription<S> | undefined;
    if (existing) {
      if (resumeAfter !== undefined) throw new TradewindOptionsError(`${subject} is already subscribed; resumeAfter applies to a new subscription only`);
      if (options.slots !== undefined && options.slots !== this.#table.get(subject)!.slots)
        throw new TradewindOptionsError(`${subject} is already subscribed ${options.slots ? 'without' : 'with'} slot status; unsubscribe first`);
      if (options.filter !== undefined) this.setFilter(subject, filter);
      return existing;
    }
    this.#table.add(subject, filter, resumeAfter, options.slots === true);
    const subscription = new Subscription(subject, this);
    this.#subscriptions.set(subject, subscription);
    this.#request({ kind: 'subscribe', subject, retries: 0 });
    this.#armWatchdog();
    return subscription;
  }

  /**
   * Changes (or with null clears) the filter of a subscribed subject in place: the server applies
   * it with no gap and no duplicate and answers `subscribed` again. A filter the server refuses
   * (`bad_filter`) is reported as an `error` event and the previous one stays.
   * @throws TradewindOptionsError when the subject is not subscribed or the filter is malformed.
   */
  setFilter(subject: string, filter: TradeFilter | null): void {
    const state = this.#table.get(subject);
    if (!state) throw new TradewindOptionsError(`${subject} is not subscribed`);
    const previousFilter = state.filter;
    state.filter = filterOption(filter);
    this.#request({ kind: 'filter', subject, previousFilter, retries: 0 });
  }

  /**
   * Stops receiving `subject`; its iterators end normally.
   * @returns false when it was not subscribed.
   */
  unsubscribe(subject: string): boolean {
    const state = this.#table.get(subject);
    if (!state) return false;
    const onServer = state.status !== 'idle' || this.#requests.inFlight?.subject === subject;
    this.#table.remove(subject);
    this.#subscriptions.delete(subject);
    this.#endSubjectSinks(subject);
    this.#requests.dropSubject(subject);
    if (onServer) this.#request({ kind: 'unsubscribe', subject, retries: 0 });
    this.#armWatchdog();
    return true;
  }

  /** Every subject's trades from now on, in arrival order (each call its own iterator and buffer). */
  trades(): AsyncIterableIterator<TradeMessage> {
    const queue: AsyncQueue<TradeMessage> = new AsyncQueue(this.#maxTrades, 'trades', () => this.#tradeSinks.delete(queue));
    if (this.#phase === 'closed') queue.end(this.#finalError ?? undefined);
    else this.#tradeSinks.add(queue);
    return queue;
  }

  /** @internal one subject's trades (Subscription.trades). */
  subjectTrades<S extends TradeSubject>(subject: S): AsyncIterableIterator<TradeMessage<S>> {
    let sinks = this.#subjectSinks.get(subject);
    const queue: AsyncQueue<TradeMessage> = new AsyncQueue(this.#maxTrades, 'trades', () => sinks?.delete(queue));
    if (this.#phase === 'closed') queue.end(this.#finalError ?? undefined);
    else if (!this.#table.has(subject)) queue.end();
    else {
      if (!sinks) this.#subjectSinks.set(subject, (sinks = new Set()));
      sinks.add(queue);
    }
    return queue as unknown as AsyncIterableIterator<TradeMessage<S>>;
  }

  /** Every control event from now on (each call its own iterator); ends after `closed`. */
  events(): AsyncIterableIterator<ClientEvent> {
    const queue: AsyncQueue<ClientEvent> = new AsyncQueue(this.#maxEvents, 'events', () => this.#eventSinks.delete(queue));
    if (this.#phase === 'closed') queue.end();
    else this.#eventSinks.add(queue);
    return queue;
  }

  /**
   * Calls `listener` for every event of `type`. A listener that throws has its error rethrown
   * outside the client (as an uncaught exception), like an EventEmitter listener.
   * @returns a function that removes the listener.
   */
  on<T extends ClientEvent['type']>(type: T, listener: (event: ClientEventOf<T>) => void): () => void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener as (event: never) => void);
    return () => set.delete(listener as (event: never) => void);
  }

  /**
   * Resolves when the slot of `trade` reaches `commitment` (default `confirmed`; a slot already finalized counts for
   * both), at once when the trade itself was streamed at that commitment or its slot's status has arrived.
   * @returns the slot and the status that settled it (`confirmed` or `finalized`).
   * @throws (rejects) SlotDeadError when the slot dies (every trade in it never happened); TradewindError
   *   `slot_timeout` after `timeoutMs`; the client's final error (or `closed`) when it closes first.
   *   TradewindOptionsError (thrown) when the trade's subject is not subscribed with `slots: true` (no status would come)
   *   or the trade has no slot.
   */
  waitForSlot(
    trade: { readonly slot?: unknown; readonly commitment?: unknown; readonly source?: unknown },
    commitment: WantedCommitment = 'confirmed',
    options: WaitForSlotOptions = {},
  ): Promise<{ slot: number; status: 'confirmed' | 'finalized' }> {
    if (commitment !== 'confirmed' && commitment !== 'finalized')
      throw new TradewindOptionsError(`commitment must be confirmed or finalized, got ${String(commitment)}`);
    const slot = trade?.slot;
    if (typeof slot !== 'number' || !Number.isSafeInteger(slot)) throw new TradewindOptionsError('the trade has no slot');
    const subject = subjectOfTrade(trade);
    if (subject === undefined || !this.#table.get(subject)?.slots)
      throw new TradewindOptionsError(`waitForSlot needs the trade's subject (${subject ?? 'unknown'}) subscribed with { slots: true }`);
    const timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULT_SLOT_WAIT_MS, true);
    if (typeof trade.commitment === 'string' && reaches(trade.commitment, commitment)) {
      return Promise.resolve({ slot, status: trade.commitment === 'finalized' ? 'finalized' : commitment });
    }
    const known = this.#slots.status(slot);
    if (known === 'dead') return Promise.reject(new SlotDeadError(slot, this.#slots.deadReason(slot)));
    if (reaches(known, commitment)) return Promise.resolve({ slot, status: known === 'finalized' ? 'finalized' : commitment });
    if (this.#phase === 'closed') return Promise.reject(this.#finalError ?? new TradewindError('closed', 'the client is closed'));
    return new Promise((resolve, reject) => {
      let timer: unknown;
      // Not settled synchronously: the slot's status is not known yet (checked above).
      const cancel = this.#slots.wait(slot, commitment, (outcome) => {
        done();
        if (outcome.status === 'dead') reject(new SlotDeadError(slot, outcome.reason));
        else resolve({ slot, status: outcome.status });
      });
      const onClose = (error: TradewindError) => {
        done();
        reject(error);
      };
      const done = () => {
        if (timer !== undefined) this.#timers.clearTimeout(timer);
        timer = undefined;
        this.#slotWaits.delete(onClose);
        cancel();
      };
      this.#slotWaits.add(onClose);
      if (Number.isFinite(timeoutMs))
        timer = this.#timers.setTimeout(() => {
          timer = undefined;
          done();
          reject(new TradewindError('slot_timeout', `slot ${slot} did not reach ${commitment} within ${timeoutMs} ms`));
        }, timeoutMs);
    });
  }

  /** Resume position per subject (the sequence a resume would start after): persist it to resume in a later process with `resumeAfter`. */
  positions(): Record<string, number> {
    return this.#table.positions();
  }

  /** Counters since the client was created. */
  get stats(): Readonly<ClientStats> {
    return { ...this.#stats };
  }

  /** Closes the connection (1000) and ends every iterator normally. Idempotent. */
  close(): void {
    this.#finish(null);
  }

  // ── connection lifecycle ──────────────────────────────────────────────────────────────────

  async #open(): Promise<void> {
    this.#phase = 'connecting';
    this.#lastError = undefined;
    this.#emit({ type: 'connecting', url: this.url, attempt: this.#attempt });
    let ws: WebSocketLike;
    try {
      this.#WebSocket ??= await defaultWebSocket();
      if (this.#phase !== 'connecting') return; // closed meanwhile
      ws = new this.#WebSocket(this.url);
    } catch (err) {
      this.#linkDown(1006, (err as Error).message);
      return;
    }
    this.#ws = ws;
    ws.onmessage = (event) => {
      if (this.#ws !== ws) return;
      this.#armWatchdog();
      const text = messageText(event.data);
      this.#onFrame(text === undefined ? { kind: 'invalid', reason: 'not a text frame' } : parseServerFrame(text));
    };
    let opened = false;
    ws.onopen = () => {
      opened = true;
    };
    ws.onclose = (event) => {
      if (this.#ws === ws) this.#linkDown(event.code, event.reason);
    };
    ws.onerror = () => {
      // After the connection was established a close event follows with the code. A connection that
      // fails before it opens is ended here: Node 22's built-in WebSocket (undici 6) fires only
      // `error` then, never `close`, and stays CONNECTING, so waiting for `close` would wait forever.
      // (Runtimes that do send the close event find the handlers detached by then.)
      if (opened || this.#ws !== ws) return;
      // Detach first: closing a CONNECTING socket may dispatch another error event synchronously.
      this.#linkDown(1006, 'connection failed');
      try {
        ws.close();
      } catch {
        // not closable in this state; it is detached anyway
      }
    };
    this.#armWatchdog();
  }

  /** The current link is gone (closed by the server, failed, or abandoned): stop, or schedule the next attempt. */
  #linkDown(code: number, reason: string): void {
    this.#detach();
    if (this.#phase === 'closed') return;
    const wasAuthenticated = this.#phase === 'authenticated';
    if (FATAL_CLOSE_CODES.has(code)) {
      const refusal = this.#lastError;
      this.#finish(
        new CredentialsRefusedError(
          refusal?.code ?? (reason || `close_${code}`),
          refusal?.message ?? `the server closed the connection with ${code} ${reason}`.trim(),
          code,
        ),
      );
      return;
    }
    if (wasAuthenticated) this.#attempt = 0;
    const next = this.#attempt + 1;
    if (next > this.#backoff.maxAttempts) {
      this.#finish(new ReconnectFailedError(this.#attempt, code, reason));
      return;
    }
    const delayMs = backoffDelayMs(this.#backoff, next, this.#random);
    this.#phase = 'waiting';
    this.#emit({ type: 'reconnecting', attempt: next, delayMs, closeCode: code, reason });
    this.#retryTimer = this.#timers.setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#phase !== 'waiting') return;
      this.#attempt = next;
      void this.#open();
    }, delayMs);
  }

  /** Gives up on the current link without waiting for its close handshake (watchdog, request timeout). */
  #abandon(reason: string): void {
    const ws = this.#ws;
    if (!ws) return;
    this.#detach();
    try {
      ws.close(CLIENT_ABANDON_CLOSE_CODE, reason);
    } catch {
      // already closing
    }
    // The `ws` package waits up to 30 s for the peer's close frame; a dead peer sends none.
    (ws as { terminate?: () => void }).terminate?.();
    this.#linkDown(CLIENT_ABANDON_CLOSE_CODE, reason);
  }

  /** Forgets the current socket and everything tied to it. */
  #detach(): void {
    const ws = this.#ws;
    this.#ws = undefined;
    if (ws) {
      ws.onmessage = null;
      ws.onclose = null;
      ws.onopen = null;
      ws.onerror = () => undefined;
    }
    this.#clearTimer('#watchdog');
    this.#clearTimer('#requestTimer');
    for (const t of this.#retryTimers) this.#timers.clearTimeout(t);
    this.#retryTimers.clear();
    this.#requests.clear();
    this.#table.resetConnection();
  }

  #finish(error: TradewindError | null): void {
    if (this.#phase === 'closed') return;
    const ws = this.#ws;
    this.#detach();
    this.#clearTimer('#retryTimer');
    this.#phase = 'closed';
    this.#finalError = error;
    if (ws) {
      try {
        ws.close(1000, 'client closed');
      } catch {
        // already closed
      }
    }
    if (!this.#authenticatedOnce) this.#rejectReady(error ?? new TradewindError('closed', 'the client was closed before it authenticated'));
    this.#emit({ type: 'closed', error });
    for (const reject of [...this.#slotWaits]) reject(error ?? new TradewindError('closed', 'the client was closed'));
    for (const q of [...this.#eventSinks]) q.end();
    for (const q of [...this.#tradeSinks]) q.end(error ?? undefined);
    for (const subject of [...this.#subjectSinks.keys()]) this.#endSubjectSinks(subject, error ?? undefined);
  }

  #armWatchdog(): void {
    this.#clearTimer('#watchdog');
    if (!this.#ws || !Number.isFinite(this.#watchdogMs)) return;
    // Heartbeats only come while subscribed: an authenticated connection without subjects may be silent.
    if (this.#phase === 'authenticated' && this.#table.size === 0) return;
    this.#watchdog = this.#timers.setTimeout(() => {
      this.#watchdog = undefined;
      this.#abandon(`watchdog: no frame for ${this.#watchdogMs} ms`);
    }, this.#watchdogMs);
  }

  #clearTimer(name: '#watchdog' | '#requestTimer' | '#retryTimer'): void {
    const handle = name === '#watchdog' ? this.#watchdog : name === '#requestTimer' ? this.#requestTimer : this.#retryTimer;
    if (handle !== undefined) this.#timers.clearTimeout(handle);
    if (name === '#watchdog') this.#watchdog = undefined;
    else if (name === '#requestTimer') this.#requestTimer = undefined;
    else this.#retryTimer = undefined;
  }

  #send(message: ClientRequest | { jwt: string; sig: string }): void {
    try {
      this.#ws?.send(JSON.stringify(message));
    } catch (err) {
      // The socket is closing; its close event drives the reconnect.
      this.#emit({ type: 'error', code: 'send_failed', message: (err as Error).message, subject: null });
    }
  }

  // ── frames ───────────────────────────────────────────────────────────────────────────────

  #onFrame(frame: ServerFrame): void {
    switch (frame.kind) {
      case 'trade':
        this.#onTrade(frame.seq, frame.trade);
        return;
      case 'slot': {
        if (!this.#table.has(frame.subject)) return; // unsubscribed meanwhile
        if (!this.#table.accept(frame.subject, frame.seq)) {
          this.#stats.duplicatesDropped++;
          return;
        }
        const m = frame.message;
        this.#slots.record(m);
        this.#emit({
          type: 'slot',
          subject: frame.subject,
          seq: frame.seq,
          slot: m.slot,
          parent: m.parent ?? null,
          status: m.status,
          trades: m.trades ?? {},
          reason: m.reason ?? null,
          deadError: m.dead_error ?? null,
        });
        return;
      }
      case 'challenge':
        if (this.#phase === 'connecting') this.#send({ jwt: this.#jwt, sig: this.#signer.sign(frame.nonce) });
        return;
      case 'authenticated': {
        this.#phase = 'authenticated';
        this.#attempt = 0;
        this.#stats.sessions++;
        const event: ClientEventOf<'authenticated'> = { type: 'authenticated', plan: frame.plan, subjects: frame.subjects, expiresAtMs: frame.expiresAtMs };
        this.#emit(event);
        if (!this.#authenticatedOnce) {
          this.#authenticatedOnce = true;
          this.#resolveReady(event);
        }
        for (const s of this.#table.list()) this.#requests.add({ kind: 'subscribe', subject: s.subject, retries: 0 });
        this.#armWatchdog();
        this.#pump();
        return;
      }
      case 'subscribed': {
        const inFlight = this.#requests.inFlight;
        const answers = inFlight?.subject === frame.subject && inFlight.kind !== 'unsubscribe';
        // A filter change answers `subscribed` without resume_after even while catching up: the status stays.
        if (!(answers && inFlight?.kind === 'filter')) this.#table.subscribed(frame.subject, frame.resumeAfter, frame.seq);
        if (this.#table.has(frame.subject)) this.#emit({ type: 'subscribed', subject: frame.subject, filter: frame.filter, resumeAfter: frame.resumeAfter });
        if (answers) this.#completeRequest();
        return;
      }
      case 'replay_caught_up': {
        const afterSeq = this.#table.caughtUp(frame.subject, frame.seq);
        if (afterSeq !== undefined) this.#emit({ type: 'resumed', subject: frame.subject, afterSeq, caughtUpSeq: frame.seq });
        return;
      }
      case 'unsubscribed': {
        if (frame.reason !== null) {
          // The server ended it (plan change): do not ask for it again after a reconnect.
          const wanted = this.#table.remove(frame.subject);
          this.#subscriptions.delete(frame.subject);
          if (wanted)
            this.#endSubjectSinks(
              frame.subject,
              new SubscriptionError(frame.reason, frame.message ?? `${frame.subject} ended: ${frame.reason}`, frame.subject),
            );
        }
        this.#emit({ type: 'unsubscribed', subject: frame.subject, reason: frame.reason, message: frame.message });
        const inFlight = this.#requests.inFlight;
        if (inFlight?.subject === frame.subject && inFlight.kind === 'unsubscribe') this.#completeRequest();
        this.#armWatchdog();
        return;
      }
      case 'plan_changed':
        this.#emit({ type: 'plan_changed', plan: frame.plan, subjects: frame.subjects });
        return;
      case 'heartbeat':
        for (const [subject, seq] of Object.entries(frame.subjects)) this.#table.notePosition(subject, seq);
        this.#emit({ type: 'heartbeat', slot: frame.slot, seq: frame.seq });
        return;
      case 'error':
        this.#onServerError(frame);
        return;
      case 'invalid':
        this.#emit({ type: 'error', code: 'bad_frame', message: `unreadable frame from the server: ${frame.reason}`, subject: null });
        return;
      case 'other':
        return; // a control message of a newer protocol: nothing this version needs
    }
  }

  #onTrade(seq: number | undefined, trade: Record<string, unknown>): void {
    let subject: string | undefined = subjectOfTrade(trade);
    if (subject === undefined && this.#table.size === 1) subject = this.#table.list()[0]!.subject;
    if (subject !== undefined) {
      if (!this.#table.has(subject)) return; // unsubscribed meanwhile
      if (!this.#table.accept(subject, seq)) {
        this.#stats.duplicatesDropped++;
        return;
      }
    }
    this.#stats.tradesDelivered++;
    const message = trade as unknown as TradeMessage;
    for (const q of this.#tradeSinks) q.push(message);
    if (subject !== undefined) for (const q of this.#subjectSinks.get(subject) ?? []) q.push(message);
  }

  #onServerError(frame: ServerFrame & { kind: 'error' }): void {
    this.#lastError = { code: frame.code, message: frame.message };
    const inFlight = this.#requests.inFlight;
    const entry = inFlight && (frame.subject === null || frame.subject === inFlight.subject) ? inFlight : undefined;
    const subject = frame.subject ?? entry?.subject ?? null;
    this.#emit({ type: 'error', code: frame.code, message: frame.message, subject });
    if (entry) this.#completeRequest(false);

    if ((frame.code === 'resume_too_old' || frame.code === 'bad_resume') && subject !== null) {
      const gap = this.#table.resumeRefused(subject, frame.code === 'resume_too_old' ? 'resume_too_old' : 'resume_refused', frame.oldestSeq);
      if (gap) {
        this.#emit({ type: 'gap', ...gap });
        this.#request({ kind: 'subscribe', subject, retries: 0 }); // live from now
        return;
      }
    }
    if (RETRIED_REFUSALS.has(frame.code)) {
      if (entry) this.#retryLater(entry);
      // A resume whose catch-up failed after `subscribed` (history unreadable): ask again.
      else if (frame.code === 'unavailable') {
        for (const s of this.#table.list()) if (s.status === 'catching_up') this.#retryLater({ kind: 'subscribe', subject: s.subject, retries: 0 });
      }
    } else if (entry?.kind === 'filter' && frame.code === 'bad_filter') {
      const state = this.#table.get(entry.subject);
      if (state) state.filter = entry.previousFilter ?? null; // the server kept the previous one
    } else if (entry?.kind === 'subscribe' && SUBJECT_REFUSALS.has(frame.code)) {
      this.#table.remove(entry.subject);
      this.#subscriptions.delete(entry.subject);
      this.#endSubjectSinks(entry.subject, new SubscriptionError(frame.code, frame.message, entry.subject));
      this.#armWatchdog();
    }
    this.#pump();
  }

  // ── requests ─────────────────────────────────────────────────────────────────────────────

  #request(entry: QueueEntry): void {
    this.#requests.add(entry);
    this.#pump();
  }

  /** Sends the next queued request when authenticated and none is in flight. */
  #pump(): void {
    while (this.#phase === 'authenticated' && this.#ws) {
      const entry = this.#requests.take();
      if (!entry) return;
      const request = this.#build(entry);
      if (!request) {
        this.#requests.complete();
        continue;
      }
      this.#send(request);
      this.#requestTimer = this.#timers.setTimeout(() => {
        this.#requestTimer = undefined;
        this.#emit({
          type: 'error',
          code: 'request_timeout',
          message: `no answer to ${JSON.stringify(request)} within ${this.#requestTimeoutMs} ms; reconnecting`,
          subject: entry.subject,
        });
        this.#abandon('request_timeout');
      }, this.#requestTimeoutMs);
      return;
    }
  }

  /** The request JSON of `entry` from the current state; undefined when it no longer applies. */
  #build(entry: QueueEntry): ClientRequest | undefined {
    const state = this.#table.get(entry.subject);
    switch (entry.kind) {
      case 'subscribe':
        return state ? this.#table.subscribeRequestFor(entry.subject) : undefined;
      case 'filter':
        // Not on the server yet: the queued or next subscribe carries the filter.
        if (!state || state.status === 'idle') return undefined;
        return subscribeRequest(entry.subject, state.filter, undefined, true);
      case 'unsubscribe':
        return state ? undefined : { unsubscribe: entry.subject };
    }
  }

  #completeRequest(pump = true): void {
    this.#clearTimer('#requestTimer');
    this.#requests.complete();
    if (pump) this.#pump();
  }

  /** Sends `entry` again after the backoff delay of its retry count (rate_limited, unavailable). */
  #retryLater(entry: QueueEntry): void {
    const retries = entry.retries + 1;
    const timer = this.#timers.setTimeout(
      () => {
        this.#retryTimers.delete(timer);
        this.#request({ ...entry, retries });
      },
      backoffDelayMs(this.#backoff, Math.min(retries, 1_000), this.#random),
    );
    this.#retryTimers.add(timer);
  }

  // ── delivery ─────────────────────────────────────────────────────────────────────────────

  #endSubjectSinks(subject: string, error?: unknown): void {
    const sinks = this.#subjectSinks.get(subject);
    this.#subjectSinks.delete(subject);
    for (const q of [...(sinks ?? [])]) q.end(error);
  }

  #emit(event: ClientEvent): void {
    for (const q of this.#eventSinks) q.push(event);
    const listeners = this.#listeners.get(event.type);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        (listener as (e: ClientEvent) => void)(event);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}

/** A positive number option (or Infinity when allowed). @throws TradewindOptionsError */
function positive(name: string, value: number, infinityAllowed: boolean): number {
  const ok = typeof value === 'number' && value > 0 && (Number.isFinite(value) || (infinityAllowed && value === Infinity));
  if (!ok) throw new TradewindOptionsError(`${name} must be a positive number${infinityAllowed ? ' or Infinity' : ''}, got ${String(value)}`);
  return value;
}

/** checkFilter with the client's error type. */
function filterOption(filter: TradeFilter | null | undefined): TradeFilter | null {
  try {
    return checkFilter(filter);
  } catch (err) {
    throw new TradewindOptionsError((err as Error).message, { cause: err });
  }
}
