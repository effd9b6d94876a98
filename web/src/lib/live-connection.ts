/**
 * The Live page's stream: the signed-in customer's own WebSocket to ws-fanout through @tradewind/client,
 * with their own credentials (GET /api/nats). The seed stays in this object's memory and only signs the
 * server's challenge (`{"jwt","sig"}`: docs/websocket.md §1); it is never sent, stored or logged.
 *
 * Pause and resume lose nothing: pausing unsubscribes (the connection, and the plan slot it holds, stay
 * open) and remembers the last `seq` shown; resuming subscribes again with `resume_after` = that `seq`, so
 * the server sends every trade of the pause, once and in order, then live ones (docs/websocket.md §2
 * "Resume"). A pause longer than the resume window is reported as a `gap` event by the client.
 */
import { TradewindClient, type ClientEvent, type TradeFilter, type TradeMessage, type WebSocketConstructor, type WebSocketLike } from '@tradewind/client';
import type { TradeSubject } from '@tradewind/contracts/subjects';
import type { WsConnectionHolder } from '@tradewind/contracts/ws-errors';
import type { LiveInput } from './live-stream';

/** Reconnect schedule of the page: the client's (1 s doubling to 30 s), without giving up while the page is open. */
const LIVE_RECONNECT = { maxAttempts: Number.POSITIVE_INFINITY } as const;

/** An error frame as ws-fanout sends it (docs/websocket.md §7), with the `holders` of a `connection_limit` refusal. */
export interface ErrorFrame {
  code: string;
  message: string;
  holders: readonly WsConnectionHolder[] | null;
}

/**
 * Reads an error frame's text; null for any other frame. Only frames that start like one are parsed
 * (ws-fanout writes control frames `{"type":…}` first, trades `{"seq":…}`), so trades cost a prefix check.
 */
export function parseErrorFrame(text: unknown): ErrorFrame | null {
  if (typeof text !== 'string' || !text.startsWith('{"type":"error"')) return null;
  try {
    const m = JSON.parse(text) as Record<string, unknown>;
    if (typeof m.code !== 'string') return null;
    const holders = Array.isArray(m.holders)
      ? (m.holders as unknown[]).filter(
          (h): h is WsConnectionHolder =>
            !!h && typeof h === 'object' && typeof (h as WsConnectionHolder).connected_at === 'string' && typeof (h as WsConnectionHolder).address === 'string',
        )
      : null;
    return { code: m.code, message: typeof m.message === 'string' ? m.message : '', holders };
  } catch {
    return null;
  }
}

/**
 * A WebSocket constructor for the client that hands every error frame to `onError` before the client
 * sees it: the client reports an error's code and message, and the page also needs the refusal's `holders`.
 */
export function observingWebSocket(onError: (frame: ErrorFrame) => void, Base: WebSocketConstructor): WebSocketConstructor {
  return class ObservedWebSocket implements WebSocketLike {
    onopen: WebSocketLike['onopen'] = null;
    onmessage: WebSocketLike['onmessage'] = null;
    onclose: WebSocketLike['onclose'] = null;
    onerror: WebSocketLike['onerror'] = null;
    readonly #ws: WebSocketLike;

    constructor(url: string) {
      this.#ws = new Base(url);
      this.#ws.onopen = (e) => this.onopen?.(e);
      this.#ws.onmessage = (e) => {
        const frame = parseErrorFrame(e.data);
        if (frame) onError(frame);
        this.onmessage?.(e);
      };
      this.#ws.onclose = (e) => this.onclose?.(e);
      this.#ws.onerror = (e) => this.onerror?.(e);
    }

    send(data: string): void {
      this.#ws.send(data);
    }

    close(code?: number, reason?: string): void {
      this.#ws.close(code, reason);
    }
  };
}

/** What a LiveConnection needs. */
export interface LiveConnectionOptions {
  /** GET /api/nats `ws_connection`. */
  url: string;
  jwt: string;
  /** The NKey seed: only signs the challenge. */
  seed: string;
  subject: TradeSubject;
  filter: TradeFilter | null;
  /** Trades as they arrive (each with its `seq`), in stream order. */
  onTrade(trade: TradeMessage): void;
  /** Every event and refusal, for the page's state (live-stream.ts nextLiveStatus). */
  onInput(input: LiveInput): void;
  /** WebSocket constructor; default the browser's. */
  WebSocket?: WebSocketConstructor;
}

/** One stream for the page; `close()` when the page unmounts. */
export class LiveConnection {
  #client: TradewindClient;
  readonly #options: LiveConnectionOptions;
  #subject: TradeSubject;
  #filter: TradeFilter | null;
  #paused = false;
  /** The last `seq` handed to the page (what a resume starts after). */
  #lastSeq: number | undefined;
  /**
   * After a filter change: trades up to this `seq` were judged by the previous filter and are not shown
   * (Infinity until the server's `subscribed` answers the change; then the client's position at that answer,
   * since the server sends every trade judged by the new filter after it). Undefined: no change pending.
   */
  #filterBarrier: number | undefined;
  #stopped = false;

  /** @throws TradewindOptionsError when the URL or credentials are malformed (the seed not the JWT's). */
  constructor(options: LiveConnectionOptions) {
    this.#options = options;
    this.#subject = options.subject;
    this.#filter = options.filter;
    this.#client = this.#newClient();
  }

  /** A client whose events reach the page only while it is the current one (a restart replaces it). */
  #newClient(): TradewindClient {
    const options = this.#options;
    const Base = options.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketConstructor);
    const client = new TradewindClient({
      url: options.url,
      jwt: options.jwt,
      seed: options.seed,
      reconnect: LIVE_RECONNECT,
      WebSocket: observingWebSocket((frame) => {
        if (client === this.#client) options.onInput({ type: 'refusal', ...frame });
      }, Base),
    });
    for (const type of [
      'connecting',
      'authenticated',
      'subscribed',
      'resumed',
      'unsubscribed',
      'plan_changed',
      'gap',
      'error',
      'reconnecting',
      'closed',
    ] as const) {
      client.on(type, (event: ClientEvent) => {
        if (client !== this.#client) return;
        if (event.type === 'subscribed' && event.subject === this.#subject && this.#filterBarrier === Number.POSITIVE_INFINITY) {
          this.#filterBarrier = client.positions()[this.#subject] ?? 0;
        }
        options.onInput(event);
      });
    }
    return client;
  }

  /** Connects and subscribes (after the last `seq` shown, if any); trades flow to `onTrade` until `close()`. */
  start(): void {
    const client = this.#client;
    if (!this.#paused) client.subscribe(this.#subject, { filter: this.#filter, ...(this.#lastSeq !== undefined ? { resumeAfter: this.#lastSeq } : {}) });
    void client.connect().catch(() => undefined); // a refusal arrives as a `closed` event
    void this.#pump(client);
  }

  /** Drops the current connection and connects again at once ("Try again now"), resuming after the last `seq` shown. */
  restart(): void {
    if (this.#stopped) return;
    const old = this.#client;
    this.#client = this.#newClient();
    old.close();
    this.start();
  }

  async #pump(client: TradewindClient): Promise<void> {
    try {
      for await (const trade of client.trades()) {
        if (this.#stopped || client !== this.#client) return;
        if (typeof trade.seq === 'number') {
          this.#lastSeq = trade.seq;
          // Sent before the server took the new filter (in flight when it changed): not what is on screen now.
          if (this.#filterBarrier !== undefined && trade.seq <= this.#filterBarrier) continue;
        }
        this.#options.onTrade(trade);
      }
    } catch {
      // The client ended with an error; its `closed` event carries it to the page.
    }
  }

  /** Whether trades are held back (unsubscribed, resumable). */
  get paused(): boolean {
    return this.#paused;
  }

  /** The `seq` of the last trade handed over, if any. */
  get lastSeq(): number | undefined {
    return this.#lastSeq;
  }

  /** Stops the trades without closing the connection; {@link resume} sends every trade missed meanwhile. */
  pause(): void {
    if (this.#paused || this.#stopped) return;
    // The client's own position may be ahead of the last trade shown (heartbeats of a filtered subscription).
    this.#lastSeq ??= this.#client.positions()[this.#subject];
    this.#paused = true;
    this.#client.unsubscribe(this.#subject);
    this.#options.onInput({ type: 'pause' });
  }

  /** Subscribes again after the last `seq` shown: the trades of the pause arrive first, in order, then live ones. */
  resume(): void {
    if (!this.#paused || this.#stopped) return;
    this.#paused = false;
    this.#client.subscribe(this.#subject, { filter: this.#filter, ...(this.#lastSeq !== undefined ? { resumeAfter: this.#lastSeq } : {}) });
    this.#options.onInput({ type: 'resume' });
  }

  /**
   * Changes the filter in place (the server judges the next trade by it, with no gap and no duplicate). Trades
   * still in flight under the previous filter are not handed to the page: from the change until the server's
   * `subscribed` answer, only later trades are (see {@link LiveConnection.#filterBarrier}).
   */
  setFilter(filter: TradeFilter | null): void {
    this.#filter = filter;
    if (this.#paused) return;
    this.#filterBarrier = Number.POSITIVE_INFINITY;
    this.#client.setFilter(this.#subject, filter);
  }

  /** Moves to another subject: the old one is unsubscribed, the new one followed live (positions do not carry over). */
  setSubject(subject: TradeSubject, filter: TradeFilter | null): void {
    if (subject === this.#subject) {
      this.setFilter(filter);
      return;
    }
    if (!this.#paused) this.#client.unsubscribe(this.#subject);
    this.#subject = subject;
    this.#filter = filter;
    this.#lastSeq = undefined;
    this.#filterBarrier = undefined;
    if (!this.#paused) this.#client.subscribe(subject, { filter });
  }

  /** Closes the connection (1000), which frees the plan slot. */
  close(): void {
    this.#stopped = true;
    this.#client.close();
  }
}
