/**
 * OrderedPublisher (src/publisher.ts) when TRADES answers "duplicate" with stream sequence 0: nats-server 2.10
 * stages a clustered stream's message ids at proposal, and a proposal lost in a leader change keeps answering so
 * (UnconfirmedDuplicateError). The server state that produces it takes a cluster and a lost proposal, so a
 * JetStream client stand-in answers here: first "duplicate, seq 0" for every attempt, then real acknowledgements.
 */
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { DUPLICATE_IN_PROCESS_ERR_CODE, OrderedPublisher, publisherMetrics, resendReason, UnconfirmedDuplicateError } from '../src/publisher.js';
import { loadRecording } from '../src/replay/recording.js';
import { replayCopy } from '../src/replay/replay-source.js';

describe('OrderedPublisher and a duplicate acknowledgement with stream sequence 0', () => {
  it('then the trade is not counted as stored and no onDone runs until a real acknowledgement comes', async () => {
    const tx = (await loadRecording(BUNDLED_RECORDING_DIR)).transactions.find((t) => t.trades.length > 0)!;
    const unit = tx.trades.map((trade) => replayCopy(trade, 'staged', 0, 0));
    let staged = true;
    let seq = 0;
    const attempts: string[] = [];
    const js = {
      publish: async (_subject: string, _data: Uint8Array, opts: { msgID: string }): Promise<PubAck> => {
        attempts.push(opts.msgID);
        await new Promise((r) => setTimeout(r, 1));
        return staged
          ? ({ stream: 'TRADES', seq: 0, duplicate: true, domain: '' } as PubAck)
          : ({ stream: 'TRADES', seq: ++seq, duplicate: false, domain: '' } as PubAck);
      },
    } as unknown as JetStreamClient;
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    const publisher = new OrderedPublisher({
      js,
      nc: { publish: () => undefined },
      logger: createLogger({ service: 'ingest-test', level: 'silent' }),
      metrics,
      maxInFlight: 64,
      ackTimeoutMs: 1_000,
      maxBackoffMs: 50,
      signal: abort.signal,
    });
    let done = false;
    await publisher.enqueue(unit, () => (done = true));
    // Several rounds of "duplicate, seq 0": still unacknowledged.
    const deadline = Date.now() + 5_000;
    while (attempts.length < unit.length * 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(attempts.length).toBeGreaterThanOrEqual(unit.length * 3);
    expect(done).toBe(false);
    expect(publisher.size).toBe(unit.length);
    const total = async (name: 'published' | 'duplicates') => (await metrics[name].get()).values.reduce((n, v) => n + v.value, 0);
    expect(await total('duplicates')).toBe(0);
    expect((await metrics.resends.get()).values.find((v) => v.labels.reason === 'unconfirmed')?.value).toBeGreaterThanOrEqual(1);
    // The staged ids are gone (the duplicate window passed, or the proposal committed): stored now.
    staged = false;
    expect(await publisher.drained()).toBe(true);
    expect(done).toBe(true);
    expect(await total('published')).toBe(unit.length);
    abort.abort();
    expect(resendReason(new UnconfirmedDuplicateError('x'))).toBe('unconfirmed');
  });

  it('when only staged-id answers come for stagedIdStepdownMs, then the leader is asked to step down once per that long, and not before', async () => {
    const tx = (await loadRecording(BUNDLED_RECORDING_DIR)).transactions.find((t) => t.trades.length > 0)!;
    const unit = tx.trades.map((trade) => replayCopy(trade, 'stepdown', 0, 0));
    let staged = true;
    let seq = 0;
    const stepdownsAt: number[] = [];
    const js = {
      publish: async (): Promise<PubAck> => {
        await new Promise((r) => setTimeout(r, 1));
        // 2.11 and newer answer a staged id with an error (10158), 2.10 with "duplicate, seq 0": both count.
        if (staged && seq % 2 === 0) throw Object.assign(new Error('duplicate message id is in process'), { code: DUPLICATE_IN_PROCESS_ERR_CODE });
        if (staged) return { stream: 'TRADES', seq: 0, duplicate: true, domain: '' } as PubAck;
        return { stream: 'TRADES', seq: ++seq, duplicate: false, domain: '' } as PubAck;
      },
    } as unknown as JetStreamClient;
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    const start = Date.now();
    const publisher: OrderedPublisher = new OrderedPublisher({
      js,
      nc: { publish: () => undefined },
      logger: createLogger({ service: 'ingest-test', level: 'silent' }),
      metrics,
      maxInFlight: 64,
      ackTimeoutMs: 1_000,
      maxBackoffMs: 20,
      signal: abort.signal,
      stagedIdStepdownMs: 300,
      stepdown: async () => {
        stepdownsAt.push(Date.now() - start);
        // The first step-down does not help (the new leader staged it too); the second does, and its election kicks the window.
        if (stepdownsAt.length === 2) {
          staged = false;
          publisher.kick('stream_leader_elected');
        }
      },
    });
    await publisher.enqueue(unit);
    expect(await publisher.drained()).toBe(true);
    abort.abort();
    expect(stepdownsAt).toHaveLength(2);
    // Not before 300 ms of staged answers, and the second at least 300 ms after the first.
    expect(stepdownsAt[0]).toBeGreaterThanOrEqual(300);
    expect(stepdownsAt[1]! - stepdownsAt[0]!).toBeGreaterThanOrEqual(300);
    expect((await metrics.stepdowns.get()).values[0]?.value).toBe(2);
    expect(resendReason(Object.assign(new Error('x'), { code: DUPLICATE_IN_PROCESS_ERR_CODE }))).toBe('unconfirmed');
  });

  it('when staged-id answers are interleaved with stored ones, then no step-down is asked for', async () => {
    const tx = (await loadRecording(BUNDLED_RECORDING_DIR)).transactions.find((t) => t.trades.length > 0)!;
    const units = Array.from({ length: 40 }, (_, loop) => tx.trades.map((trade) => replayCopy(trade, 'mixed', 0, loop)));
    let n = 0;
    let seq = 0;
    const js = {
      publish: async (): Promise<PubAck> => {
        await new Promise((r) => setTimeout(r, 5));
        // Every other answer is a re-send overtaking its first attempt (seq 0), the rest are stored: progress.
        return n++ % 2 === 0
          ? ({ stream: 'TRADES', seq: 0, duplicate: true, domain: '' } as PubAck)
          : ({ stream: 'TRADES', seq: ++seq, duplicate: false, domain: '' } as PubAck);
      },
    } as unknown as JetStreamClient;
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    let stepdowns = 0;
    const publisher = new OrderedPublisher({
      js,
      nc: { publish: () => undefined },
      logger: createLogger({ service: 'ingest-test', level: 'silent' }),
      metrics,
      maxInFlight: 8,
      ackTimeoutMs: 1_000,
      maxBackoffMs: 1,
      signal: abort.signal,
      stagedIdStepdownMs: 100,
      stepdown: async () => {
        stepdowns++;
      },
    });
    for (const unit of units) await publisher.enqueue(unit);
    expect(await publisher.drained()).toBe(true);
    abort.abort();
    expect(stepdowns).toBe(0);
  });

  it('when the stream elects a leader during staged-id answers, then the new leader gets the whole interval before it is asked to step down', async () => {
    const tx = (await loadRecording(BUNDLED_RECORDING_DIR)).transactions.find((t) => t.trades.length > 0)!;
    const unit = tx.trades.map((trade) => replayCopy(trade, 'elected', 0, 0));
    let staged = true;
    let seq = 0;
    const stepdownsAt: number[] = [];
    const js = {
      publish: async (): Promise<PubAck> => {
        await new Promise((r) => setTimeout(r, 1));
        return staged
          ? ({ stream: 'TRADES', seq: 0, duplicate: true, domain: '' } as PubAck)
          : ({ stream: 'TRADES', seq: ++seq, duplicate: false, domain: '' } as PubAck);
      },
    } as unknown as JetStreamClient;
    const abort = new AbortController();
    const start = Date.now();
    const publisher: OrderedPublisher = new OrderedPublisher({
      js,
      nc: { publish: () => undefined },
      logger: createLogger({ service: 'ingest-test', level: 'silent' }),
      metrics: publisherMetrics(new Registry()),
      maxInFlight: 64,
      ackTimeoutMs: 1_000,
      maxBackoffMs: 20,
      signal: abort.signal,
      stagedIdStepdownMs: 400,
      stepdown: async () => {
        stepdownsAt.push(Date.now() - start);
        staged = false;
        publisher.kick('stream_leader_elected');
      },
    });
    await publisher.enqueue(unit);
    // An election 250 ms into the staged answers (a node restarted, say): the streak starts again from there.
    await new Promise((r) => setTimeout(r, 250));
    publisher.kick('stream_leader_elected');
    expect(await publisher.drained()).toBe(true);
    abort.abort();
    expect(stepdownsAt).toHaveLength(1);
    expect(stepdownsAt[0]).toBeGreaterThanOrEqual(250 + 400);
  });
});
