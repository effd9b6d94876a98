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
import {
  DUPLICATE_IN_PROCESS_ERR_CODE,
  OrderedPublisher,
  publisherMetrics,
  resendReason,
  UnconfirmedDuplicateError,
  type OrderedPublisherOptions,
} from '../src/publisher.js';
import { loadRecording } from '../src/replay/recording.js';
import { replayCopy } from '../src/replay/replay-source.js';

/** The trades of the first recorded transaction that has any, as replayed copies (run `run`, pass `loop`). */
async function recordedUnit(run: string, loop = 0) {
  const tx = (await loadRecording(BUNDLED_RECORDING_DIR)).transactions.find((t) => t.trades.length > 0)!;
  return tx.trades.map((trade) => replayCopy(trade, run, 0, loop));
}

/**
 * A JetStream stand-in that answers every publish as TRADES with a staged id would while `state.staged` is true
 * ("duplicate, seq 0", or with `conflicts` every other answer 2.11's 10158 error), and stores (sequence 1, 2, …) once
 * it is false. `state.attempts` lists each publish's msgID.
 */
function stagedStandIn(conflicts = false) {
  const state = { staged: true, seq: 0, attempts: [] as string[] };
  const js = {
    publish: async (_subject: string, _data: Uint8Array, opts: { msgID: string }): Promise<PubAck> => {
      state.attempts.push(opts.msgID);
      await new Promise((r) => setTimeout(r, 1));
      if (state.staged && conflicts && state.attempts.length % 2 === 0) {
        throw Object.assign(new Error('duplicate message id is in process'), { code: DUPLICATE_IN_PROCESS_ERR_CODE });
      }
      return state.staged
        ? ({ stream: 'TRADES', seq: 0, duplicate: true, domain: '' } as PubAck)
        : ({ stream: 'TRADES', seq: ++state.seq, duplicate: false, domain: '' } as PubAck);
    },
  } as unknown as JetStreamClient;
  return { js, state };
}

/** An OrderedPublisher on the JetStream stand-in `js` with silent logs and no per-mint copies; `options` add or override. */
function publisherOn(js: JetStreamClient, options: Partial<OrderedPublisherOptions> & Pick<OrderedPublisherOptions, 'signal'>): OrderedPublisher {
  return new OrderedPublisher({
    js,
    nc: { publish: () => undefined },
    logger: createLogger({ service: 'ingest-test', level: 'silent' }),
    metrics: publisherMetrics(new Registry()),
    maxInFlight: 64,
    ackTimeoutMs: 1_000,
    maxBackoffMs: 50,
    ...options,
  });
}

describe('OrderedPublisher and a duplicate acknowledgement with stream sequence 0', () => {
  it('then the trade is not counted as stored and no onDone runs until a real acknowledgement comes', async () => {
    const unit = await recordedUnit('staged');
    const { js, state } = stagedStandIn();
    const { attempts } = state;
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    const publisher = publisherOn(js, {
      metrics,
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
    state.staged = false;
    expect(await publisher.drained()).toBe(true);
    expect(done).toBe(true);
    expect(await total('published')).toBe(unit.length);
    abort.abort();
    expect(resendReason(new UnconfirmedDuplicateError('x'))).toBe('unconfirmed');
  });

  it('when only staged-id answers come for stagedIdStepdownMs, then the leader is asked to step down once per that long, and not before', async () => {
    const unit = await recordedUnit('stepdown');
    // 2.11 and newer answer a staged id with an error (10158), 2.10 with "duplicate, seq 0": both count.
    const { js, state } = stagedStandIn(true);
    const stepdownsAt: number[] = [];
    const abort = new AbortController();
    const metrics = publisherMetrics(new Registry());
    const start = Date.now();
    const publisher: OrderedPublisher = publisherOn(js, {
      metrics,
      maxBackoffMs: 20,
      signal: abort.signal,
      stagedIdStepdownMs: 300,
      stepdown: async () => {
        stepdownsAt.push(Date.now() - start);
        // The first step-down does not help (the new leader staged it too); the second does, and its election kicks the window.
        if (stepdownsAt.length === 2) {
          state.staged = false;
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
    const units = await Promise.all(Array.from({ length: 40 }, (_, loop) => recordedUnit('mixed', loop)));
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
    const publisher = publisherOn(js, {
      metrics,
      maxInFlight: 8,
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
    const unit = await recordedUnit('elected');
    const { js, state } = stagedStandIn();
    const stepdownsAt: number[] = [];
    const abort = new AbortController();
    const start = Date.now();
    const publisher: OrderedPublisher = publisherOn(js, {
      maxBackoffMs: 20,
      signal: abort.signal,
      stagedIdStepdownMs: 400,
      stepdown: async () => {
        stepdownsAt.push(Date.now() - start);
        state.staged = false;
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
