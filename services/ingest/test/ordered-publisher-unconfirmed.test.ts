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
import { OrderedPublisher, publisherMetrics, resendReason, UnconfirmedDuplicateError } from '../src/publisher.js';
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
});
