import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FlushScheduler, Outbox } from './outbox.js';

/** A socket that records writes and cork/uncork batches and holds what it was given (nothing drains). */
class RecordingSocket extends EventEmitter {
  writable = true;
  writableLength = 0;
  corked = 0;
  batches: number[] = [];
  private inBatch = 0;
  cork() {
    this.corked++;
    this.inBatch = 0;
  }
  uncork() {
    this.batches.push(this.inBatch);
  }
  write(chunk: Buffer) {
    this.inBatch++;
    this.writableLength += chunk.byteLength;
    return true;
  }
  /** The peer read everything. */
  drain() {
    this.writableLength = 0;
    this.emit('drain');
  }
}

const turn = () => new Promise((r) => setImmediate(r));
const frame = (bytes: number) => Buffer.alloc(bytes, 1);

describe('outbox', () => {
  it('when many frames are queued in one turn, then they are written in one corked batch at the end of the turn', async () => {
    const socket = new RecordingSocket();
    const outbox = new Outbox(socket as unknown as Socket, { highWaterBytes: 1 << 20, maxBytes: 8 << 20 }, new FlushScheduler(), () => {
      throw new Error('not slow');
    });
    for (let i = 0; i < 50; i++) outbox.push(frame(100));
    expect(socket.batches).toEqual([]);
    await turn();
    expect(socket.batches).toEqual([50]);
    expect(socket.writableLength).toBe(5000);
  });

  it('when the socket holds the high-water bytes, then the rest waits in the outbox until the socket drains', async () => {
    const socket = new RecordingSocket();
    const outbox = new Outbox(socket as unknown as Socket, { highWaterBytes: 1000, maxBytes: 1 << 20 }, new FlushScheduler(), () => undefined);
    for (let i = 0; i < 30; i++) outbox.push(frame(100));
    await turn();
    expect(socket.writableLength).toBe(1000);
    expect(outbox.bufferedBytes).toBe(3000);
    socket.drain();
    expect(socket.writableLength).toBe(1000);
    socket.drain();
    socket.drain();
    expect(outbox.bufferedBytes).toBe(0);
    expect(socket.batches).toEqual([10, 10, 10]);
  });

  it('when the queued bytes would pass the limit, then the slow-consumer callback fires once, the queue is dropped and nothing more is queued', async () => {
    const socket = new RecordingSocket();
    let slow = 0;
    const outbox = new Outbox(socket as unknown as Socket, { highWaterBytes: 500, maxBytes: 2000 }, new FlushScheduler(), () => slow++);
    for (let i = 0; i < 15; i++) outbox.push(frame(100));
    await turn();
    expect(slow).toBe(0);
    expect(outbox.push(frame(600))).toBe(false);
    expect(slow).toBe(1);
    expect(outbox.isSlow).toBe(true);
    expect(outbox.bufferedBytes).toBe(500); // only what the socket already held
    expect(outbox.push(frame(1))).toBe(false);
    expect(slow).toBe(1);
  });

  it('when a flush of everything is asked (before a close frame), then the high-water bound does not hold it back', async () => {
    const socket = new RecordingSocket();
    const outbox = new Outbox(socket as unknown as Socket, { highWaterBytes: 100, maxBytes: 1 << 20 }, new FlushScheduler(), () => undefined);
    for (let i = 0; i < 5; i++) outbox.push(frame(100));
    outbox.flush(true);
    expect(socket.writableLength).toBe(500);
    expect(outbox.takeActivity()).toBe(true);
    expect(outbox.takeActivity()).toBe(false);
  });
});
