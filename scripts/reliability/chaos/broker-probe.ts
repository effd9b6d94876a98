/**
 * How long the cluster itself needs, after a fault, before TRADES accepts a publish again: the baseline
 * every leader-kill recovery is judged against (issue 31: our recovery − the broker's ≤ 1 s).
 *
 * The probe re-publishes a message TRADES stored {@link PROBE_SEQS_BACK} sequences before the newest, with
 * its own `Nats-Msg-Id` and no expectation: only a stream leader can answer, it answers `duplicate` from its
 * record of the ids it has applied, and it writes nothing (no proposal, nothing in the raft log), so
 * subscribers see nothing and neither ingest's expectation chain nor the replicas' state is touched.
 *
 * Why not the newest message: nats-server (2.10 and 2.11 alike) checks a clustered stream's duplicates only
 * when the leader proposes, against the ids it has *applied*; a leader elected a moment ago that has not yet
 * applied its predecessor's last entries stores such a re-publish again. Until 29 Nov the probe re-published
 * the newest message and did exactly that (npm run chaos, 13:31: one trade at sequences 5,545 and 5,546, the
 * message at the kill and the probe's copy right after it). A message from seconds before the kill was
 * applied by every replica long before it. An answer that stored the copy all the same throws
 * {@link ProbeStoredError}. A probe that gets its answer through the raft log instead (an expectation no
 * message meets, refused when applied) was tried and dropped: it adds refused entries to every failover, and
 * the one full run with it saw 2.10.27's replicas diverge ("last sequence mismatch", "Resetting stream
 * cluster state") in round 3; nothing showed that the probe caused it, but the baseline should not add to it.
 *
 * It runs on its own connection to the nodes that were not killed, so its own reconnect is not part of the figure.
 */
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';

/** One attempt's acknowledgement timeout, ms: short, so an attempt sent into the election does not hide its end. */
export const PROBE_ATTEMPT_TIMEOUT_MS = 250;
/** Pause between failed attempts, ms. */
export const PROBE_INTERVAL_MS = 50;
/** One consumer-creation attempt's timeout, ms (attempts overlap, PROBE_INTERVAL_MS apart). */
export const CONSUMER_ATTEMPT_TIMEOUT_MS = 2_000;

/** How far behind the newest message the probe's message is, sequences (the suite publishes 40–200 trades a second: 2.5–12 s before the kill, inside the 2 min duplicate window). */
export const PROBE_SEQS_BACK = 500;

/** A stored message to re-publish, taken before the fault. */
export interface ProbeMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly msgId: string;
  /** Its stream sequence. */
  readonly seq: number;
}

/**
 * The message {@link PROBE_SEQS_BACK} sequences before the newest of TRADES (the first one when there are fewer),
 * or null when TRADES is empty or that message has no Nats-Msg-Id.
 */
export async function probeMessage(jsm: JetStreamManager): Promise<ProbeMessage | null> {
  const info = await jsm.streams.info(TRADES_STREAM);
  if (info.state.messages === 0) return null;
  const seq = Math.max(info.state.first_seq, info.state.last_seq - PROBE_SEQS_BACK);
  const m = await jsm.streams.getMessage(TRADES_STREAM, { seq });
  const msgId = m?.header?.get('Nats-Msg-Id');
  return m && msgId ? { subject: m.subject, data: m.data, msgId, seq: m.seq } : null;
}

/**
 * One probe publish: resolves when TRADES answers it as a duplicate. @throws ProbeStoredError when the answer
 * is not a duplicate (a copy was stored); the nats.js error on a timeout, no responders or another error.
 */
async function probePublish(js: ReturnType<typeof jetstream>, probe: ProbeMessage): Promise<void> {
  const ack = await js.publish(probe.subject, probe.data, { msgID: probe.msgId, timeout: PROBE_ATTEMPT_TIMEOUT_MS });
  if (!ack.duplicate) throw new ProbeStoredError(`the broker probe's re-publish of seq ${probe.seq} was stored at seq ${ack.seq}`, ack.seq);
}

/** The probe's re-publish was stored: the measurement itself wrote to TRADES. Never retried. */
export class ProbeStoredError extends Error {
  override name = 'ProbeStoredError';
  constructor(
    message: string,
    /** Where TRADES stored the copy. */
    readonly storedSeq: number,
  ) {
    super(message);
  }
}

/** When the cluster could serve again, ms after the fault (null: not within the deadline). */
export interface BrokerRecovery {
  /** TRADES answered a publish (its stream leader is back): what a publisher needs. */
  readonly publishMs: number | null;
  /**
   * A consumer on TRADES could be created, probed from `publishMs` on (the JetStream meta leader assigns
   * consumers): what a reader that must make a new consumer needs besides. The meta leader is elected on its
   * own (the same 4–9 s), so this is seconds later than `publishMs` when the killed node led both.
   */
  readonly consumerMs: number | null;
  /**
   * Set when the probe's re-publish was stored instead of answered as a duplicate: TRADES no longer held the
   * probed message's id, i.e. the new leader's stream had lost it (acknowledged messages gone, a broker defect
   * seen on 2.9 and 2.10, docs/reliability.md). `publishMs` is then the time of that store. The copy is one
   * more message in TRADES: the round's readers count it as a duplicate of the probed message.
   */
  readonly stored?: { readonly probeSeq: number; readonly storedSeq: number };
}

/**
 * Probes, on its own connection to `servers`, until TRADES acknowledges a re-publish of `probe` (as a
 * duplicate: nothing is stored), then until a consumer on TRADES can be created (an R1 memory consumer, deleted
 * at once), each attempt with a PROBE_ATTEMPT_TIMEOUT_MS timeout, PROBE_INTERVAL_MS apart.
 * @param servers the client URLs of the nodes still running.
 * @param options.creds a `.creds` text for an operator-mode cluster (the account that owns TRADES).
 * Never throws (connection failures count as attempts; a stored probe ends the publish probe, {@link BrokerRecovery.stored}).
 */
export async function brokerRecoveryMs(
  servers: readonly string[],
  probe: ProbeMessage,
  faultMs: number,
  deadlineMs: number,
  options: { creds?: string } = {},
): Promise<BrokerRecovery> {
  const nc = await connect({
    servers: [...servers],
    name: 'chaos-broker-probe',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 100,
    ...(options.creds ? { authenticator: credsAuthenticator(new TextEncoder().encode(options.creds)) } : {}),
  }).catch(() => null);
  if (!nc) return { publishMs: null, consumerMs: null };
  const until = async (attempt: () => Promise<unknown>): Promise<number | null> => {
    while (Date.now() - faultMs < deadlineMs) {
      try {
        await attempt();
        return Date.now() - faultMs;
      } catch (err) {
        if (err instanceof ProbeStoredError) throw err;
        await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
      }
    }
    return null;
  };
  try {
    const js = jetstream(nc, { timeout: PROBE_ATTEMPT_TIMEOUT_MS });
    const jsmSlow = await jetstreamManager(nc, { timeout: CONSUMER_ATTEMPT_TIMEOUT_MS, checkAPI: false });
    let n = 0;
    let stored: BrokerRecovery['stored'];
    const publishMs = await until(() => probePublish(js, probe)).catch((err: unknown) => {
      if (!(err instanceof ProbeStoredError)) throw err;
      stored = { probeSeq: probe.seq, storedSeq: err.storedSeq };
      return Date.now() - faultMs;
    });
    // From then on (a consumer created before the cluster noticed the death says nothing): the first creation that works.
    // Hedged: a creation takes a meta-leader proposal, longer than one publish; an attempt starts every
    // PROBE_INTERVAL_MS, each given CONSUMER_ATTEMPT_TIMEOUT_MS, and the first to succeed gives the time.
    const hedged = (attempt: () => Promise<unknown>) =>
      new Promise<number | null>((resolve) => {
        let done = false;
        const finish = (v: number | null) => {
          if (done) return;
          done = true;
          clearInterval(timer);
          resolve(v);
        };
        const start = () => {
          if (Date.now() - faultMs >= deadlineMs) return finish(null);
          attempt().then(
            () => finish(Date.now() - faultMs),
            () => undefined,
          );
        };
        const timer = setInterval(start, PROBE_INTERVAL_MS);
        start();
      });
    const consumerMs =
      publishMs === null
        ? null
        : await hedged(async () => {
            const name = `chaos_probe_${process.pid}_${faultMs}_${n++}`;
            await jsmSlow.consumers.add(TRADES_STREAM, {
              name,
              ack_policy: AckPolicy.None,
              mem_storage: true,
              num_replicas: 1,
              inactive_threshold: 5_000_000_000,
            });
            void jsmSlow.consumers.delete(TRADES_STREAM, name).catch(() => undefined);
          });
    // Let the attempts still in flight answer before the connection closes.
    await new Promise((r) => setTimeout(r, CONSUMER_ATTEMPT_TIMEOUT_MS));
    return { publishMs, consumerMs, ...(stored ? { stored } : {}) };
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/**
 * The first message TRADES stored at or after `faultMs`: its store time minus `faultMs` (ms: when the
 * publisher got its first trade in after the fault) and its sequence. Scans from `afterSeq + 1` (the last
 * sequence before the fault); null when nothing was stored after it.
 */
export async function publisherRecoveryMs(jsm: JetStreamManager, afterSeq: number, faultMs: number): Promise<{ ms: number; seq: number } | null> {
  const info = await jsm.streams.info(TRADES_STREAM);
  for (let seq = afterSeq + 1; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(TRADES_STREAM, { seq }).catch(() => null);
    if (m && m.time.getTime() >= faultMs) return { ms: m.time.getTime() - faultMs, seq };
  }
  return null;
}
