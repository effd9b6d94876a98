/**
 * Per-connection send queue (docs/websocket.md §6, "Delivery").
 *
 * Every frame for a client (trades and control messages alike, so their order is kept) goes through
 * its outbox. Frames are shared, pre-built Buffers (frame.ts); queuing one costs a pointer. At most
 * `highWaterBytes` are handed to the socket at a time; all frames queued during one turn of the event
 * loop are written together, corked, so Node issues one `writev` per socket per turn instead of
 * one write per message. The rest waits here until the socket drains.
 *
 * Slow-consumer policy: when the bytes queued here plus the bytes the socket still holds exceed
 * `maxBytes`, the outbox drops its queue at once (the memory is freed, not kept for a client that
 * will be disconnected) and calls `onSlow` exactly once; nothing more is queued after that.
 */
import type { Socket } from 'node:net';

/** Limits of one outbox, bytes. */
export interface OutboxLimits {
  /** Bytes handed to the socket at once (WS_SOCKET_HIGH_WATER_BYTES). */
  readonly highWaterBytes: number;
  /** Bytes queued here plus in the socket beyond which the client is a slow consumer (WS_MAX_BUFFERED_BYTES). */
  readonly maxBytes: number;
}

/**
 * Collects the outboxes that got frames during this turn of the event loop and flushes each once,
 * in a setImmediate after the turn's I/O callbacks (a JetStream batch is fanned out completely first).
 */
export class FlushScheduler {
  private readonly dirty = new Set<Outbox>();
  private scheduled = false;
  private readonly run = () => {
    this.scheduled = false;
    for (const outbox of this.dirty) {
      outbox.marked = false;
      outbox.flush();
    }
    this.dirty.clear();
  };

  /** Flushes `outbox` at the end of this turn. */
  mark(outbox: Outbox): void {
    this.dirty.add(outbox);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  }
}

/** The send queue of one WebSocket connection. */
export class Outbox {
  private queue: Buffer[] = [];
  private head = 0;
  private bytes = 0;
  private slow = false;
  private closed = false;
  /** True once a frame was queued since the last {@link takeActivity}: the heartbeat timer reads and resets it. */
  private active = false;
  /** Set while the scheduler holds this outbox for the end of the turn. */
  marked = false;
  /**
   * Frames handed to the socket since the usage meter last took them (usage-meter.ts resets it): what the
   * client is sent. Frames dropped from the queue (slow consumer, close) are never counted.
   */
  writtenFrames = 0;
  /** UTF-8 payload bytes of those frames (the text the client receives, without the WebSocket frame header). */
  writtenPayloadBytes = 0;

  /**
   * @param socket the connection's TCP socket (the one ws upgraded): frames are written to it directly.
   * @param onSlow called once when the slow-consumer limit is crossed; the queue is already dropped.
   */
  constructor(
    private readonly socket: Socket,
    private readonly limits: OutboxLimits,
    private readonly scheduler: FlushScheduler,
    private readonly onSlow: () => void,
  ) {
    socket.on('drain', () => this.flush());
  }

  /** Bytes queued here and not yet handed to the socket, plus the socket's own unsent bytes. */
  get bufferedBytes(): number {
    return this.bytes + this.socket.writableLength;
  }

  /** Whether the slow-consumer policy has fired. */
  get isSlow(): boolean {
    return this.slow;
  }

  /**
   * Queues one frame, to be written at the end of this turn.
   * @returns false when nothing was queued: the outbox is closed, or this frame made the client a slow consumer.
   */
  push(frame: Buffer): boolean {
    if (this.closed) return false;
    if (this.bytes + frame.byteLength + this.socket.writableLength > this.limits.maxBytes) {
      this.markSlow();
      return false;
    }
    if (!this.marked) {
      this.marked = true;
      this.scheduler.mark(this);
    }
    this.queue.push(frame);
    this.bytes += frame.byteLength;
    this.active = true;
    return true;
  }

  /** Whether anything was queued since the last call (and resets it). */
  takeActivity(): boolean {
    const was = this.active;
    this.active = false;
    return was;
  }

  /**
   * Hands queued frames to the socket, corked (one writev), while the socket holds less than
   * `highWaterBytes`; `all` writes everything (before a close frame, which must follow them).
   */
  flush(all = false): void {
    if (this.closed || this.bytes === 0 || !this.socket.writable) return;
    const limit = this.limits.highWaterBytes;
    if (!all && this.socket.writableLength >= limit) return;
    this.socket.cork();
    while (this.head < this.queue.length && (all || this.socket.writableLength < limit)) {
      const frame = this.queue[this.head]!;
      this.queue[this.head++] = EMPTY;
      this.bytes -= frame.byteLength;
      this.socket.write(frame);
      this.writtenFrames++;
      // Header of an unmasked server frame: 2, 4 or 10 bytes by its 7-bit length field (RFC 6455 §5.2, frame.ts).
      this.writtenPayloadBytes += frame.byteLength - (frame[1]! < 126 ? 2 : frame[1] === 126 ? 4 : 10);
    }
    this.socket.uncork();
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** Drops everything queued and queues nothing more (the connection is closing). */
  close(): void {
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.bytes = 0;
  }

  private markSlow(): void {
    if (this.slow) return;
    this.slow = true;
    this.close();
    this.onSlow();
  }
}

const EMPTY = Buffer.alloc(0);
