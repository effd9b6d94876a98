/**
 * The live trade tape's fan-out (docs/token-price.md "Trade tape"): messages of the one TRADES reader
 * (events/tape-reader.ts) become events, encoded once and written to every open `GET /api/trades/tape`.
 *
 * - **Paced, never queued.** Every 1000 / `maxEventsPerS` ms the newest trade that arrived since the last
 *   pass becomes the next event; the others are dropped. Each client gets at most `maxEventsPerS` events in
 *   any second (a sliding window of its send times), so the cap holds per client whatever the upstream rate;
 *   an event its window does not allow yet waits in one slot of its own (a newer one replaces it) and goes
 *   out at the first pass that allows it.
 * - **Backfill.** A new client first gets up to `maxEventsPerS` of the latest events at once, oldest first:
 *   its first second's share, so the tape is not empty while the market is quiet.
 * - **Limits.** At most `maxConnections` open tapes and `maxConnectionsPerAddress` per client address; more
 *   are refused (the route answers 429). A client whose connection holds more than `maxBufferedBytes` not yet
 *   sent is dropped: nothing is buffered for it beyond that.
 * - **Heartbeat.** A comment line every `heartbeatMs` keeps proxies from closing an idle stream.
 * - **Reader lifetime.** The reader runs while any client is open, and `readerLingerMs` after the last left.
 */
import type { Counter, Gauge } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import { SSE_HEARTBEAT, sseFrame, tapeTradeOf, withIdentity } from '../domain/tape.js';

/** What the hub writes to: the HTTP response of one client (node's ServerResponse satisfies it). */
export interface TapeSink {
  write(chunk: Buffer): boolean;
  /** Bytes written but not yet taken by the connection. */
  readonly writableLength: number;
  end(): void;
  destroy(): void;
}

/** Metrics of the tape (docs/style.md §7). */
export interface TapeMetrics {
  /** `tradewind_token_price_tape_clients`: open tape connections. */
  readonly clients: Gauge;
  /** `tradewind_token_price_tape_events_sent_total`: events written to clients (one per client per event). */
  readonly eventsSent: Counter;
  /** `tradewind_token_price_tape_clients_refused_total{reason}`: `connections` (the process-wide cap), `address` (the per-address cap). */
  readonly refused: Counter<'reason'>;
  /** `tradewind_token_price_tape_clients_dropped_total{reason}`: `slow` (over maxBufferedBytes), `shutdown`. */
  readonly dropped: Counter<'reason'>;
}

/** Options of {@link TapeHub}. */
export interface TapeHubOptions {
  /** TAPE_MAX_EVENTS_PER_S: events per client per second (and per pass of the hub). */
  readonly maxEventsPerS: number;
  /** TAPE_MAX_CONNECTIONS. */
  readonly maxConnections: number;
  /** TAPE_MAX_CONNECTIONS_PER_IP. */
  readonly maxConnectionsPerAddress: number;
  /** TAPE_HEARTBEAT_MS. */
  readonly heartbeatMs: number;
  /** TAPE_MAX_BUFFERED_BYTES. */
  readonly maxBufferedBytes: number;
  /** TAPE_READER_LINGER_MS. */
  readonly readerLingerMs: number;
  /** The shared TRADES reader; the hub starts and stops it. */
  readonly reader: { start(): void; stop(): Promise<void> };
  /**
   * The symbol and name token-price knows for a mint (the store's identity), or null. Called at most once per
   * event; a failure or an answer later than `identityTimeoutMs` sends the event without them.
   */
  readonly identity: (mint: string) => Promise<{ symbol: string | null; name: string | null } | null>;
  /** Longest wait for {@link identity}, ms. */
  readonly identityTimeoutMs: number;
  readonly metrics: TapeMetrics;
  readonly logger: Logger;
  /** Clock, ms (monotonic is enough); tests may pass their own. */
  readonly now?: () => number;
}

/** Why a client was refused. */
export type TapeRefusal = 'connections' | 'address';

interface Client {
  readonly sink: TapeSink;
  readonly address: string;
  /** Times of the last (at most maxEventsPerS) events sent, oldest first. */
  readonly sent: number[];
  /** The last event's sequence this client got. */
  lastSeq: number;
  /** The newest event its window did not allow yet, if any. */
  waiting: { seq: number; frame: Buffer } | null;
}

/** Raw messages kept between two passes: the newest that is a tape trade is searched for from the end. */
const PENDING_MAX = 64;

/** The fan-out; see the module comment. */
export class TapeHub {
  private readonly clients = new Set<Client>();
  private readonly perAddress = new Map<string, number>();
  /** The latest events (at most maxEventsPerS), oldest first: the backfill of a new client. */
  private readonly recent: Array<{ seq: number; frame: Buffer }> = [];
  /** Messages since the last pass (at most PENDING_MAX, the newest kept). */
  private pending: Array<{ subject: string; seq: number; data: Uint8Array }> = [];
  private passTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lingerTimer: NodeJS.Timeout | undefined;
  private passing = false;
  private closed = false;
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly options: TapeHubOptions) {
    this.now = options.now ?? (() => performance.now());
    this.log = options.logger.child({ component: 'tape' });
  }

  /** Open tape clients. */
  get size(): number {
    return this.clients.size;
  }

  /** Takes one message of the reader (stream order). Cheap: the message is parsed only if a pass picks it. */
  offer(subject: string, seq: number, data: Uint8Array): void {
    if (this.clients.size === 0) return;
    this.pending.push({ subject, seq, data });
    if (this.pending.length > PENDING_MAX) this.pending.splice(0, this.pending.length - PENDING_MAX);
  }

  /**
   * Checks the limits for a client at `address`: null when one more may connect, else why not. Does not
   * reserve a slot; {@link add} does (call it right after, in the same tick).
   */
  refusal(address: string): TapeRefusal | null {
    if (this.closed || this.clients.size >= this.options.maxConnections) return 'connections';
    if ((this.perAddress.get(address) ?? 0) >= this.options.maxConnectionsPerAddress) return 'address';
    return null;
  }

  /** Counts a refused client in the metrics. */
  countRefusal(reason: TapeRefusal): void {
    this.options.metrics.refused.inc({ reason });
  }

  /**
   * Adds a client whose response headers are sent: it gets the backfill at once, then the paced events.
   * @returns a function that removes it (call it when the connection closes; calling it twice is harmless).
   */
  add(address: string, sink: TapeSink): () => void {
    const client: Client = { sink, address, sent: [], lastSeq: 0, waiting: null };
    this.clients.add(client);
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    this.options.metrics.clients.set(this.clients.size);
    if (this.lingerTimer) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    if (this.clients.size === 1) this.startTimers();
    const at = this.now();
    let written = 0;
    for (const event of this.recent) if (this.send(client, event.seq, event.frame, at)) written++;
    if (written > 0) this.options.metrics.eventsSent.inc(written);
    return () => this.remove(client);
  }

  /** Ends every client and stops the reader (service shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    const n = this.clients.size;
    for (const client of [...this.clients]) {
      this.remove(client);
      client.sink.end();
    }
    if (n > 0) this.options.metrics.dropped.inc({ reason: 'shutdown' }, n);
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    await this.options.reader.stop();
  }

  private remove(client: Client): void {
    if (!this.clients.delete(client)) return;
    const left = (this.perAddress.get(client.address) ?? 1) - 1;
    if (left <= 0) this.perAddress.delete(client.address);
    else this.perAddress.set(client.address, left);
    this.options.metrics.clients.set(this.clients.size);
    if (this.clients.size > 0) return;
    this.stopTimers();
    this.pending = [];
    if (this.closed) return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      if (this.clients.size > 0) return;
      // Without a reader the latest events grow old: the next client starts with an empty tape, not old trades.
      this.recent.length = 0;
      void this.options.reader.stop();
    }, this.options.readerLingerMs);
    this.lingerTimer.unref();
  }

  private startTimers(): void {
    this.options.reader.start();
    this.passTimer = setInterval(() => void this.pass(), Math.max(1, Math.floor(1000 / this.options.maxEventsPerS)));
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.options.heartbeatMs);
  }

  private stopTimers(): void {
    if (this.passTimer) clearInterval(this.passTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.passTimer = undefined;
    this.heartbeatTimer = undefined;
  }

  /**
   * One pass: the newest tape trade since the last pass, if any, to every client whose window allows it
   * (else into its waiting slot); without a new trade, the clients' waiting events whose window now allows them.
   */
  private async pass(): Promise<void> {
    if (this.passing) return;
    this.passing = true;
    try {
      let event: { seq: number; frame: Buffer } | null = null;
      if (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        let trade = null;
        for (let i = batch.length - 1; i >= 0 && trade === null; i--) trade = tapeTradeOf(batch[i]!.subject, batch[i]!.seq, batch[i]!.data);
        if (trade !== null) {
          const known = await this.lookup(trade.mint);
          event = { seq: trade.seq, frame: sseFrame(withIdentity(trade, known)) };
          this.recent.push(event);
          if (this.recent.length > this.options.maxEventsPerS) this.recent.shift();
        }
      }
      const at = this.now();
      let written = 0;
      for (const client of [...this.clients]) {
        const next = event ?? client.waiting;
        if (next && this.send(client, next.seq, next.frame, at)) written++;
      }
      // Counted once per pass, not in the per-client loop (docs/style.md §7).
      if (written > 0) this.options.metrics.eventsSent.inc(written);
    } catch (err) {
      this.log.warn({ err }, 'a tape pass failed');
    } finally {
      this.passing = false;
    }
  }

  private async lookup(mint: string): Promise<{ symbol: string | null; name: string | null } | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.options.identity(mint),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), this.options.identityTimeoutMs);
        }),
      ]);
    } catch {
      return null;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Writes one event to a client within its window (else keeps it waiting); drops a client that does not keep up. */
  private send(client: Client, seq: number, frame: Buffer, at: number): boolean {
    if (seq <= client.lastSeq) return false;
    const { sent } = client;
    if (sent.length >= this.options.maxEventsPerS && at - sent[0]! < 1000) {
      client.waiting = { seq, frame };
      return false;
    }
    if (!this.writeOrDrop(client, frame)) return false;
    client.waiting = null;
    client.lastSeq = seq;
    sent.push(at);
    if (sent.length > this.options.maxEventsPerS) sent.shift();
    return true;
  }

  private heartbeat(): void {
    for (const client of [...this.clients]) this.writeOrDrop(client, SSE_HEARTBEAT);
  }

  private writeOrDrop(client: Client, chunk: Buffer): boolean {
    if (client.sink.writableLength > this.options.maxBufferedBytes) {
      this.remove(client);
      this.options.metrics.dropped.inc({ reason: 'slow' });
      this.log.info({ buffered_bytes: client.sink.writableLength }, 'dropped a tape client that does not keep up');
      client.sink.destroy();
      return false;
    }
    client.sink.write(chunk);
    return true;
  }
}
