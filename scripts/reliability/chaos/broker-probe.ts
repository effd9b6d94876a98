/**
 * How long the cluster itself needs, after a fault, before TRADES accepts a publish again: the baseline
 * every leader-kill recovery is judged against (issue 31: our recovery − the broker's ≤ 1 s).
 *
 * The probe publishes a copy of a message TRADES holds, without a `Nats-Msg-Id` and with a
 * `Nats-Expected-Last-Msg-Id` no message ever has. nats-server checks that expectation when the entry is
 * *applied* (stream.go processJetStreamMsg), so the answer, "wrong last msg ID" (10070), comes only after a
 * stream leader proposed the message and a quorum committed it: the whole path of a real publish, and nothing
 * is stored, so subscribers see nothing and ingest's expectation chain is untouched (a refused entry leaves
 * the stream's last message id as it was).
 *
 * Before 29 Nov 16:30 the probe re-published the stored message with its own `Nats-Msg-Id`, expecting a `duplicate`
 * answer. nats-server (2.10 and 2.11 alike) checks a clustered stream's duplicates only when the leader
 * proposes, against the ids it has *applied*; a new leader that had not yet applied the killed leader's last
 * entries stored the copy (npm run chaos, 29 Nov 13:31: one trade at sequences 5,545 and 5,546, the message
 * at the kill and the probe's copy right after it). Ingest is not exposed to that: every publish of its carries
 * an expectation, checked at apply (docs/decoding.md "Publishing").
 *
 * nats-server 2.14 and newer halt an R3 stream on any refused expectation (docs/reliability.md "Which
 * nats-server"): the chaos clusters run 2.10–2.13 only (scripts/lib/cluster-nats-server.ts), and this probe
 * must not be pointed at a newer one. It runs on its own connection to the nodes that were not killed, so its
 * own reconnect is not part of the figure.
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

/** A stored message whose subject and bytes the probe publishes (refused, never stored), taken before the fault. */
export interface ProbeMessage {
  readonly subject: string;
  readonly data: Uint8Array;
}

/** nats-server's error code for a failed `Nats-Expected-Last-Msg-Id` (JSStreamWrongLastMsgIDErrF): the probe's expected answer. */
export const PROBE_REFUSAL_ERR_CODE = 10070;

/** The probe's expectation: no message of TRADES has this `Nats-Msg-Id`. */
const PROBE_EXPECTED_LAST_MSG_ID = 'chaos-broker-probe:never-stored';

/** The newest message of TRADES, or null when it has none. */
export async function probeMessage(jsm: JetStreamManager): Promise<ProbeMessage | null> {
  const info = await jsm.streams.info(TRADES_STREAM);
  if (info.state.messages === 0) return null;
  const m = await jsm.streams.getMessage(TRADES_STREAM, { seq: info.state.last_seq });
  return m ? { subject: m.subject, data: m.data } : null;
}

/**
 * One probe publish: resolves when TRADES refuses it for its expectation (a leader proposed it and a quorum
 * applied it). @throws Error on anything else: a timeout, no responders, another error, or (impossible unless
 * the expectation matched) an acknowledgement, which means a copy was stored.
 */
async function probePublish(js: ReturnType<typeof jetstream>, probe: ProbeMessage): Promise<void> {
  let ack: unknown;
  try {
    ack = await js.publish(probe.subject, probe.data, { expect: { lastMsgID: PROBE_EXPECTED_LAST_MSG_ID }, timeout: PROBE_ATTEMPT_TIMEOUT_MS });
  } catch (err) {
    if ((err as { code?: unknown }).code === PROBE_REFUSAL_ERR_CODE) return;
    throw err;
  }
  throw new ProbeStoredError(`the broker probe's publish was stored (${JSON.stringify(ack)}): its expectation matched`);
}

/** The probe's publish was acknowledged (stored): the measurement itself wrote to TRADES. Never retried. */
export class ProbeStoredError extends Error {
  override name = 'ProbeStoredError';
}

/** When the cluster could serve again, ms after the fault (null: not within the deadline). */
export interface BrokerRecovery {
  /** TRADES answered a publish through its raft log (a stream leader proposed it, a quorum applied it): what a publisher needs. */
  readonly publishMs: number | null;
  /**
   * A consumer on TRADES could be created, probed from `publishMs` on (the JetStream meta leader assigns
   * consumers): what a reader that must make a new consumer needs besides. The meta leader is elected on its
   * own (the same 4–9 s), so this is seconds later than `publishMs` when the killed node led both.
   */
  readonly consumerMs: number | null;
}

/**
 * Probes, on its own connection to `servers`, until TRADES answers a publish of `probe` through its raft log
 * (refused for its expectation: nothing is stored), then until a consumer on TRADES can be created (an R1 memory consumer, deleted
 * at once), each attempt with a PROBE_ATTEMPT_TIMEOUT_MS timeout, PROBE_INTERVAL_MS apart.
 * @param servers the client URLs of the nodes still running.
 * @param options.creds a `.creds` text for an operator-mode cluster (the account that owns TRADES).
 * @throws ProbeStoredError when a probe publish was stored; nothing else (connection failures count as attempts).
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
    const publishMs = await until(() => probePublish(js, probe));
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
    return { publishMs, consumerMs };
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
