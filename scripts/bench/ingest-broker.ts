/**
 * Broker baseline process of the ingest bench (scripts/bench/ingest.ts), forked with an IPC channel so its
 * work never shares an event loop with the bench's own polling: JetStream's own acknowledged publish rate
 * with exactly the messages ingest's replay publishes (scripts/bench/ingest-replay.ts), `window` publishes
 * in flight.
 *
 * Per message, as ingest's publisher does: a `replayCopy` of the next trade of the pass (the run id the parent
 * gives, loop counted up), its JSON text as bytes, headers `Tradewind-Published-Ms` (now) and `Nats-Msg-Id`,
 * `js.publish` on the trade's subject with that `msgID`, then the core NATS copies to its per-mint subjects on
 * the same connection. `window` lanes each await one acknowledgement at a time and take the next message when
 * it comes: the publishes go out in position order and exactly `window` are in flight. A publish that fails is
 * counted, not retried (this is the broker's rate, not a delivery guarantee).
 *
 * One process serves a whole case (importing @tradewind/ingest and decoding the recording takes seconds):
 * it loads the pass and sends `{type: 'ready'}`; then it answers each {@link BrokerRequest} in turn with
 * `{type: 'reply', ok, result | error}`. It exits when the IPC channel closes (the parent ended or let go).
 */
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { TRADE_PUBLISHED_MS_HEADER } from '@tradewind/contracts';
import { connectNats } from '@tradewind/lib';
import { replayCopy } from '@tradewind/ingest';
import { loadBenchReplay, type BenchReplay } from './ingest-replay.js';

/** JetStream's dedup header, set explicitly as ingest's publisher does (so the per-mint copies carry it too). */
const MSG_ID_HEADER = 'Nats-Msg-Id';

/** What the parent asks, one at a time. */
export type BrokerRequest =
  /** Connect to `url` (NATS_URL-style list) with `creds` (creds file contents; absent without auth). */
  | { cmd: 'connect'; url: string; creds?: string | undefined }
  /** Start publishing with `window` acknowledged publishes in flight, message ids `…:replay:<runId>:<loop>`. */
  | { cmd: 'publish'; window: number; runId: string }
  /** Stop taking new messages, wait for those in flight; answers {@link BrokerReport}. */
  | { cmd: 'stop' };

/** The answer to `stop`: one publishing run's counts. */
export interface BrokerReport {
  /** Publishes JetStream acknowledged as stored (not duplicates). */
  acked: number;
  /** Acknowledged as duplicates (should stay 0: every id is new). */
  duplicates: number;
  /** Publishes that failed (timeout, error answer). */
  errors: number;
  /** The first failure's message, if any. */
  firstError?: string;
  /** Core NATS copies sent to per-mint subjects. */
  mintCopies: number;
}

/** Messages this process sends to the parent. */
export type BrokerMessage =
  | { type: 'ready'; tradesPerPass: number }
  | { type: 'reply'; ok: true; result?: BrokerReport }
  | { type: 'reply'; ok: false; error: string };

/** One publishing run: `window` lanes over the pass until stopped. */
function publishRun(nc: NatsConnection, js: JetStreamClient, replay: BenchReplay, window: number, runId: string): () => Promise<BrokerReport> {
  const encoder = new TextEncoder();
  const n = replay.trades.length;
  const report: BrokerReport = { acked: 0, duplicates: 0, errors: 0, mintCopies: 0 };
  let stopping = false;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!stopping && !nc.isClosed()) {
      const position = next++;
      const i = position % n;
      const trade = replayCopy(replay.trades[i]!, runId, Math.floor(position / n), Date.now());
      const data = encoder.encode(JSON.stringify(trade.message));
      const h = natsHeaders();
      h.set(TRADE_PUBLISHED_MS_HEADER, String(Date.now()));
      h.set(MSG_ID_HEADER, trade.msgId);
      const acked = js.publish(trade.subject, data, { msgID: trade.msgId, headers: h });
      const copies = replay.mintSubjects[i]!;
      for (let c = 0; c < copies.length; c++) nc.publish(copies[c]!, data, { headers: h });
      report.mintCopies += copies.length;
      try {
        const ack = await acked;
        if (ack.duplicate) report.duplicates++;
        else report.acked++;
      } catch (err) {
        report.errors++;
        report.firstError ??= String(err);
      }
    }
  };
  const lanes = Promise.all(Array.from({ length: window }, lane));
  return async () => {
    stopping = true;
    await lanes;
    return report;
  };
}

async function main(): Promise<void> {
  const replay = await loadBenchReplay();
  let nc: NatsConnection | undefined;
  let js: JetStreamClient | undefined;
  let stop: (() => Promise<BrokerReport>) | undefined;
  const handle = async (req: BrokerRequest): Promise<BrokerReport | undefined> => {
    switch (req.cmd) {
      case 'connect':
        nc = await connectNats({ url: req.url, creds: req.creds, name: 'bench-ingest-broker' });
        js = jetstream(nc);
        return undefined;
      case 'publish':
        if (!nc || !js) throw new Error('publish before connect');
        if (stop) throw new Error('already publishing');
        if (!Number.isInteger(req.window) || req.window < 1) throw new Error(`window must be a whole number ≥ 1, got ${req.window}`);
        stop = publishRun(nc, js, replay, req.window, req.runId);
        return undefined;
      case 'stop': {
        if (!stop) throw new Error('stop while not publishing');
        const report = await stop();
        stop = undefined;
        return report;
      }
    }
  };
  // One request at a time, in order.
  let queue = Promise.resolve();
  process.on('message', (req: BrokerRequest) => {
    queue = queue.then(() =>
      handle(req).then(
        (result) => void process.send?.({ type: 'reply', ok: true, ...(result ? { result } : {}) } satisfies BrokerMessage),
        (err: unknown) => void process.send?.({ type: 'reply', ok: false, error: err instanceof Error ? err.message : String(err) } satisfies BrokerMessage),
      ),
    );
  });
  process.send?.({ type: 'ready', tradesPerPass: replay.trades.length } satisfies BrokerMessage);
}

// The parent is gone (or let go): nothing is left to report to.
process.once('disconnect', () => process.exit(0));
main().catch((err: unknown) => {
  process.stderr.write(`ingest bench broker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
