/**
 * TapeHub alone, with sinks that stand for client connections: a client that does not take what is
 * written is dropped (nothing is buffered for it beyond TAPE_MAX_BUFFERED_BYTES), and the reader runs
 * only while clients are open.
 */
import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Registry } from 'prom-client';
import { createLogger } from '@tradewind/lib';
import { TapeHub, type TapeSink } from './tape-hub.js';

/** A connection whose unsent bytes are `stuck` (a client that stopped reading) or zero. */
function sink(stuck = false): TapeSink & { chunks: string[]; destroyed: boolean; ended: boolean } {
  const s = {
    chunks: [] as string[],
    destroyed: false,
    ended: false,
    get writableLength() {
      return stuck ? s.chunks.reduce((n, c) => n + c.length, 0) : 0;
    },
    write(chunk: Buffer) {
      s.chunks.push(chunk.toString());
      return true;
    },
    end() {
      s.ended = true;
    },
    destroy() {
      s.destroyed = true;
    },
  };
  return s;
}

function hub(overrides: { maxBufferedBytes?: number; readerLingerMs?: number } = {}) {
  const registry = new Registry();
  const reader = { starts: 0, stops: 0, start: () => void reader.starts++, stop: async () => void reader.stops++ };
  const dropped = new Counter({ name: 'd_total', help: 'h', labelNames: ['reason'], registers: [registry] });
  const h = new TapeHub({
    maxEventsPerS: 50,
    maxConnections: 10,
    maxConnectionsPerAddress: 10,
    heartbeatMs: 10,
    maxBufferedBytes: overrides.maxBufferedBytes ?? 100,
    readerLingerMs: overrides.readerLingerMs ?? 0,
    reader,
    identity: async () => null,
    identityTimeoutMs: 10,
    logger: createLogger({ service: 'tape-hub-test', level: 'silent' }),
    metrics: {
      clients: new Gauge({ name: 'c', help: 'h', registers: [registry] }),
      eventsSent: new Counter({ name: 'e_total', help: 'h', registers: [registry] }),
      refused: new Counter({ name: 'r_total', help: 'h', labelNames: ['reason'], registers: [registry] }),
      dropped,
    },
  });
  return { h, reader, dropped: async (reason: string) => (await dropped.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0 };
}

const TRADE = (seq: number) =>
  new TextEncoder().encode(
    JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY', side: 'buy', signature: `sig${seq}`, mint: 'M1nt', sol_amount_ui: 1, block_time_ms: 1 }),
  );

const until = async (ok: () => boolean, ms = 2_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('TapeHub', () => {
  it('when a client stops taking what is written, then once more than TAPE_MAX_BUFFERED_BYTES wait for it, it is dropped; the others keep their events', async () => {
    const { h, dropped } = hub({ maxBufferedBytes: 100 });
    const slow = sink(true);
    const fast = sink(false);
    h.add('10.0.0.1', slow);
    h.add('10.0.0.2', fast);
    for (let seq = 1; seq <= 20; seq++) {
      h.offer('basic.pumpfun', seq, TRADE(seq));
      await new Promise((r) => setTimeout(r, 25));
    }
    await until(() => slow.destroyed);
    expect(h.size).toBe(1);
    expect(await dropped('slow')).toBe(1);
    // What was written to it stopped at the limit: one chunk past 100 bytes at most.
    expect(slow.chunks.join('').length).toBeLessThan(100 + 400);
    const events = fast.chunks.filter((c) => c.startsWith('data: ')).length;
    expect(events).toBeGreaterThan(5);
    await h.close();
    expect(fast.ended).toBe(true);
  });

  it('when the first client comes, then the reader starts; when the last leaves, then it stops after the linger', async () => {
    const { h, reader } = hub({ readerLingerMs: 50 });
    const release = h.add('10.0.0.1', sink());
    expect(reader.starts).toBe(1);
    const release2 = h.add('10.0.0.1', sink());
    expect(reader.starts).toBe(1);
    release();
    release();
    expect(h.size).toBe(1);
    release2();
    expect(reader.stops).toBe(0);
    await until(() => reader.stops === 1);
    // A client within the linger keeps the reader running (start() is idempotent on the real reader).
    const { h: h2, reader: r2 } = hub({ readerLingerMs: 200 });
    h2.add('a', sink())();
    h2.add('a', sink());
    await new Promise((r) => setTimeout(r, 250));
    expect(r2.stops).toBe(0);
    expect(r2.starts).toBe(2);
    await h2.close();
    expect(r2.stops).toBe(1);
  });
});
