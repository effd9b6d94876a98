/**
 * OrderedPublisher (src/publisher.ts) with another writer on the stream. nats-server checks `Nats-Expected-Last-Msg-Id`
 * when it applies a message, after its leader staged the message's `Nats-Msg-Id`, and keeps a refused id staged (every
 * re-send answered "duplicate, seq 0") until a leader change or the duplicate window's end (v2.10.27 to main,
 * docs/reliability.md "Which nats-server"; reproduced on a real cluster in scripts/test/nats-server-staged-id.int.test.ts).
 * Two pipelined writers with chained expectations refuse each other's messages, so each wedges, and the step-down
 * remedy alone asked leader after leader to go (`npm run chaos`, 29–30 Nov). A stand-in of a clustered stream with
 * exactly those rules answers here, so the load can be repeated and counted.
 */
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { OrderedPublisher, publisherMetrics, WRONG_LAST_MSG_ID_ERR_CODE, type OrderedPublisherOptions, type PublisherMetrics } from '../src/publisher.js';
import type { OutgoingTrade } from '../src/replay/replay-source.js';

/**
 * A clustered stream as nats-server 2.10 runs one, reduced to what ordering and deduplication do: a publish is checked
 * against stored ids (duplicate with its sequence) and staged ids (duplicate, seq 0), staged, then applied in arrival
 * order, where a failed `expect.lastMsgID` refuses it (10070 "wrong last msg ID: <last>") and leaves it staged. A
 * step-down clears the staged ids (a new leader holds none). Each answer takes about a millisecond.
 */
class StreamStandIn {
  /** Stored message ids; sequence = index + 1. */
  readonly stored: string[] = [];
  readonly #seqOf = new Map<string, number>();
  readonly #staged = new Set<string>();
  stepdowns = 0;
  /** Attempts in flight per writer (by msg id prefix), and the most seen at once. */
  readonly inFlight = new Map<string, number>();
  readonly maxInFlight = new Map<string, number>();
  /** The most attempts in flight at once per writer after the first step-down. */
  readonly maxInFlightAfterStepdown = new Map<string, number>();
  /** Every attempt per writer: its id, its expectation, and how many of the writer's other attempts were in flight. */
  readonly attempts = new Map<string, { id: string; expected: string | undefined; othersInFlight: number }[]>();

  client(writer: string): JetStreamClient {
    return {
      publish: async (_subject: string, _data: Uint8Array, opts: { msgID: string; expect?: { lastMsgID?: string } }): Promise<PubAck> => {
        const n = (this.inFlight.get(writer) ?? 0) + 1;
        this.inFlight.set(writer, n);
        this.maxInFlight.set(writer, Math.max(n, this.maxInFlight.get(writer) ?? 0));
        if (this.stepdowns > 0) this.maxInFlightAfterStepdown.set(writer, Math.max(n, this.maxInFlightAfterStepdown.get(writer) ?? 0));
        const list = this.attempts.get(writer) ?? [];
        list.push({ id: opts.msgID, expected: opts.expect?.lastMsgID, othersInFlight: n - 1 });
        this.attempts.set(writer, list);
        try {
          return await this.#publish(opts.msgID, opts.expect?.lastMsgID);
        } finally {
          this.inFlight.set(writer, (this.inFlight.get(writer) ?? 1) - 1);
        }
      },
    } as unknown as JetStreamClient;
  }

  stepdown(): void {
    this.stepdowns++;
    this.#staged.clear();
  }

  async #publish(id: string, expected: string | undefined): Promise<PubAck> {
    await new Promise((r) => setTimeout(r, 1));
    const seq = this.#seqOf.get(id);
    if (seq !== undefined) return { stream: 'TRADES', seq, duplicate: true, domain: '' } as PubAck;
    if (this.#staged.has(id)) return { stream: 'TRADES', seq: 0, duplicate: true, domain: '' } as PubAck;
    this.#staged.add(id);
    // Proposed, then applied in the order proposed (equal timers run in the order they were set).
    await new Promise((r) => setTimeout(r, 1));
    const last = this.stored.at(-1) ?? '';
    if (expected !== undefined && expected !== last) {
      throw Object.assign(new Error(`wrong last msg ID: ${last}`), { code: WRONG_LAST_MSG_ID_ERR_CODE, name: 'JetStreamApiError' });
    }
    this.#staged.delete(id);
    this.stored.push(id);
    this.#seqOf.set(id, this.stored.length);
    return { stream: 'TRADES', seq: this.stored.length, duplicate: false, domain: '' } as PubAck;
  }
}

const trade = (msgId: string): OutgoingTrade => ({ subject: 'basic.pumpfun', msgId, message: { msg: msgId } as unknown as OutgoingTrade['message'] });

function publisherOn(
  stream: StreamStandIn,
  writer: string,
  options: Partial<OrderedPublisherOptions> & Pick<OrderedPublisherOptions, 'signal' | 'metrics'>,
): OrderedPublisher {
  return new OrderedPublisher({
    js: stream.client(writer),
    nc: { publish: () => undefined },
    logger: createLogger({ service: 'ingest-test', level: 'silent' }),
    maxInFlight: 64,
    ackTimeoutMs: 1_000,
    maxBackoffMs: 40,
    stagedIdStepdownMs: 100,
    stepdown: async () => stream.stepdown(),
    ...options,
  });
}

/** Writer `writer` enqueues `count` trades `<writer>-<i>`, `perTurn` per turn, `gapMs` apart; resolves true when all are acknowledged (false when `signal` aborts first). */
async function write(publisher: OrderedPublisher, writer: string, count: number, perTurn: number, gapMs: number): Promise<boolean> {
  for (let i = 0; i < count; i += perTurn) {
    const unit = Array.from({ length: Math.min(perTurn, count - i) }, (_, k) => trade(`${writer}-${i + k}`));
    if (!(await publisher.enqueue(unit))) return false;
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return publisher.drained();
}

/** Resolves what `writers` resolve, or false for each still running after `ms` (then aborts `abort`). */
async function within<T extends boolean[]>(ms: number, abort: AbortController, writers: { [K in keyof T]: Promise<T[K]> }): Promise<boolean[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((r) => (timer = setTimeout(r, ms)));
  const done = writers.map((w) => w.then((ok) => ok));
  const settled = await Promise.race([Promise.all(done), late.then(() => null)]);
  clearTimeout(timer);
  if (settled !== null) return settled;
  abort.abort();
  return Promise.all(done);
}

/** Runs a fast writer `a` (pipelined bursts) and a slow one `b` at once on one stream; returns what happened. */
async function twoWriters(contentionHoldMs: number, ms: number) {
  const stream = new StreamStandIn();
  const abort = new AbortController();
  const metrics: Record<'a' | 'b', PublisherMetrics> = { a: publisherMetrics(new Registry()), b: publisherMetrics(new Registry()) };
  const a = publisherOn(stream, 'a', { signal: abort.signal, metrics: metrics.a, contentionHoldMs });
  const b = publisherOn(stream, 'b', { signal: abort.signal, metrics: metrics.b, contentionHoldMs });
  const [drainedA, drainedB] = await within(ms, abort, [write(a, 'a', 300, 6, 2), write(b, 'b', 30, 1, 15)]);
  const serialA = a.serial;
  abort.abort();
  return { stream, drainedA, drainedB, serialA, contentions: (await metrics.a.contentions.get()).values[0]?.value ?? 0 };
}

/** Each writer's stored ids in stream order, and how often each was stored. */
function perWriter(stored: readonly string[], writer: string): { order: number[]; copies: number } {
  const mine = stored.filter((id) => id.startsWith(`${writer}-`));
  return { order: mine.map((id) => Number(id.slice(writer.length + 1))), copies: mine.length - new Set(mine).size };
}

describe('OrderedPublisher and another writer on the stream', () => {
  it('when another writer publishes between its trades, then both store every trade once and in order, serially, with at most one step-down each', async () => {
    const { stream, drainedA, drainedB, serialA, contentions } = await twoWriters(30_000, 10_000);
    expect([drainedA, drainedB]).toEqual([true, true]);
    for (const [writer, count] of [
      ['a', 300],
      ['b', 30],
    ] as const) {
      const { order, copies } = perWriter(stream.stored, writer);
      expect(copies, `${writer}: stored twice`).toBe(0);
      expect(order, `${writer}: every trade, in order`).toEqual(Array.from({ length: count }, (_, i) => i));
    }
    // The first collision costs a refused (staged) id and one step-down per writer at most; none after.
    expect(stream.stepdowns).toBeLessThanOrEqual(2);
    expect(serialA).toBe(true);
    expect(contentions).toBe(1);
    // Serial: one attempt in flight at a time once the other writer was seen (the pipelined start had more).
    expect(stream.maxInFlight.get('a')).toBeGreaterThan(1);
    expect(stream.maxInFlightAfterStepdown.get('a')).toBe(1);
  });

  it('when the publisher may not go serial (contentionHoldMs 0), then the same load keeps refusing and staging ids: step-downs pile up', async () => {
    const { stream, contentions } = await twoWriters(0, 2_000);
    expect(contentions).toBe(0);
    // What `npm run chaos` saw on nats-server 2.10.27 with the chain alone: leader after leader asked to go.
    expect(stream.stepdowns).toBeGreaterThan(5);
  });

  it('when its own acknowledgements follow each other, then it stays pipelined with chained expectations', async () => {
    const stream = new StreamStandIn();
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    const a = publisherOn(stream, 'a', { signal: abort.signal, metrics, contentionHoldMs: 30_000 });
    expect(await within(6_000, abort, [write(a, 'a', 200, 20, 0)])).toEqual([true]);
    expect(a.serial).toBe(false);
    abort.abort();
    expect((await metrics.contentions.get()).values[0]?.value ?? 0).toBe(0);
    expect(stream.maxInFlight.get('a')).toBeGreaterThan(1);
    // Every publish sent while others were in flight carried its predecessor's id (the chain); one sent alone needs none.
    const attempts = stream.attempts.get('a')!;
    expect(attempts).toHaveLength(200);
    expect(attempts.filter((t) => t.othersInFlight > 0).length).toBeGreaterThan(100);
    for (const [i, t] of attempts.entries()) expect(t.expected).toBe(t.othersInFlight > 0 ? `a-${i - 1}` : undefined);
    expect(perWriter(stream.stored, 'a').order).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('when another writer was seen, then it is serial for contentionHoldMs after the last sign of it, then pipelined again', async () => {
    const stream = new StreamStandIn();
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    const a = publisherOn(stream, 'a', { signal: abort.signal, metrics, contentionHoldMs: 300 });
    expect(await within(2_000, abort, [write(a, 'a', 5, 1, 0)])).toEqual([true]);
    // Another writer's message: the next acknowledgement of ours is two sequences on.
    await publisherOn(stream, 'x', { signal: abort.signal, metrics: publisherMetrics(new Registry()) }).enqueue([trade('x-0')]);
    await new Promise((r) => setTimeout(r, 20));
    expect(await within(2_000, abort, [write(a, 'a-late', 1, 1, 0)])).toEqual([true]);
    expect(a.serial).toBe(true);
    expect((await metrics.contentions.get()).values[0]?.value).toBe(1);
    await new Promise((r) => setTimeout(r, 350));
    expect(a.serial).toBe(false);
    abort.abort();
  });
});
