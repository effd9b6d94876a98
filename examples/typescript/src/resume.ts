/**
 * Tradewind native NATS: a resumable reader (Pro). Every trade of one subject, in order, with no
 * gap across restarts of this program, disconnects and server restarts.
 *
 *   TRADEWIND_CREDS=./tradewind.creds npm run resume -- basic.pumpfun
 *   TRADEWIND_CREDS=./tradewind.creds npm run resume -- basic.pumpfun --state ./pumpfun.seq --from 1234
 *
 * The stream sequence: every message a JetStream consumer delivers carries its TRADES stream
 * sequence in its metadata, `m.seq` (= `m.info.streamSequence`) — the same number WebSocket
 * clients get as "seq" (docs/nats.md, "Stream sequence and resuming natively"). This program
 * saves the last one it printed to a state file (write + rename, after every message) and, at
 * start, creates its replay consumer from the next one: `deliver_policy: by_start_sequence`,
 * `opt_start_seq: last + 1` (first run: `--from <seq>`, else new trades only).
 *
 * While running it does what an ordered consumer does: `ack_policy: none`, and the consumer
 * sequence (`m.info.deliverySequence`) must go up by exactly one per message; on a jump (a
 * message lost in flight during a reconnect), missed heartbeats, a reconnect or a deleted
 * consumer it recreates the consumer from last + 1. It cannot use nats.js's own ordered consumer
 * (`js.consumers.get('TRADES', { opt_start_seq })`): that names its consumers `oc_<nuid>_<n>`,
 * and Tradewind's replay API only lets you create the one consumer named after your account.
 *
 * stdout: one trade per line, `{"seq":<stream sequence>,…the JSON as published…}` (the WebSocket
 * format). A crash between printing a line and saving its sequence prints that trade again at the
 * next start (same seq): deduplicate on `seq` downstream if that matters. stderr: status.
 *
 * Environment: TRADEWIND_CREDS (or TRADEWIND_JWT + TRADEWIND_NKEY_SEED) and TRADEWIND_NATS_URL, as main.ts.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connect, credsAuthenticator, jwtAuthenticator, type Authenticator, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy, type ConsumerConfig, type JsMsg } from '@nats-io/jetstream';

const DEFAULT_NATS_URL = 'nats://localhost:4223';
const TRADES_STREAM = 'TRADES';
const REPLAY_API_PREFIX = '$JS.REPLAY.API';
/** The server deletes the consumer this long after the last pull (a stopped program leaves nothing behind), ns. */
const CONSUMER_INACTIVE_NS = 300e9;
/**
 * Wait before creating the consumer again after a failure, ms (doubling up to BACKOFF_MAX_MS). Short: after a
 * NATS server dies its streams elect new leaders within 4–9 s (nats-server's raft election timeout), and the
 * consumer can be created again the moment they have; a long backoff would add its own wait to that.
 */
const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 2_000;
/**
 * Idle heartbeat of each pull, ms: two missed in a row (1 s) mean the consumer's server died or the pull was
 * lost, and the consumer is made again from last + 1. nats.js' default (half of its 30 s pull expiry) would
 * notice only after 30 s.
 */
const IDLE_HEARTBEAT_MS = 500;
/** How long one pull waits on the server, ms (nats.js requires at least 1 s). */
const PULL_EXPIRES_MS = 2_000;
/**
 * JetStream API timeout, ms: a consumer delete/create sent while the cluster elects a leader gets no answer;
 * it is retried after this instead of nats.js' default 5 s.
 */
const API_TIMEOUT_MS = 1_000;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An authenticator, the user JWT and the NATS URL from TRADEWIND_CREDS (.creds or JSON) or TRADEWIND_JWT + TRADEWIND_NKEY_SEED. */
function loadCredentials(env: NodeJS.ProcessEnv): { authenticator: Authenticator; jwt: string; url: string | undefined } | undefined {
  const enc = new TextEncoder();
  if (env.TRADEWIND_CREDS) {
    const text = readFileSync(env.TRADEWIND_CREDS, 'utf8');
    if (text.trimStart().startsWith('{')) {
      const json = JSON.parse(text) as { user_jwt?: string; user_nkey_seed?: string; nats_connection?: string };
      if (!json.user_jwt || !json.user_nkey_seed) return undefined;
      return { authenticator: jwtAuthenticator(json.user_jwt, enc.encode(json.user_nkey_seed)), jwt: json.user_jwt, url: json.nats_connection };
    }
    const jwt = /-----BEGIN NATS USER JWT-----\s*(\S+)\s*-+END NATS USER JWT-+/.exec(text)?.[1];
    return jwt ? { authenticator: credsAuthenticator(enc.encode(text)), jwt, url: undefined } : undefined;
  }
  if (env.TRADEWIND_JWT && env.TRADEWIND_NKEY_SEED) {
    return { authenticator: jwtAuthenticator(env.TRADEWIND_JWT, enc.encode(env.TRADEWIND_NKEY_SEED)), jwt: env.TRADEWIND_JWT, url: undefined };
  }
  return undefined;
}

/** The account public key of a user JWT (`nats.issuer_account`, else `iss`): the only consumer name the replay API allows. */
function accountOf(jwt: string): string {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: string; nats?: { issuer_account?: string } };
  const account = payload.nats?.issuer_account ?? payload.iss;
  if (!account) throw new Error('the user JWT names no account');
  return account;
}

/** The last stream sequence saved in `path`; undefined when the file does not exist. @throws Error on a file that holds no sequence. */
function readLastSeq(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (!/^[0-9]+$/.test(text)) throw new Error(`${path} should hold one stream sequence (a number), not ${JSON.stringify(text.slice(0, 40))}`);
  return Number(text);
}

/** Saves `seq` so that a crash never leaves a half-written file (write a temporary file, then rename it over). */
function saveLastSeq(path: string, seq: number): void {
  writeFileSync(`${path}.tmp`, `${seq}\n`);
  renameSync(`${path}.tmp`, path);
}

/** Where the consumer starts: after the saved sequence, else at `--from`, else at new trades. */
function startOf(last: number | undefined, from: number | undefined): Pick<ConsumerConfig, 'deliver_policy' | 'opt_start_seq'> {
  if (last !== undefined) return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: last + 1 };
  if (from !== undefined) return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from };
  return { deliver_policy: DeliverPolicy.New };
}

/** `{"seq":N,…}`: the published JSON with its stream sequence first, as WebSocket clients get it. */
function withSeq(m: JsMsg): string {
  const body = m.string();
  return body === '{}' || !body.startsWith('{') ? `{"seq":${m.seq}}` : `{"seq":${m.seq},${body.slice(1)}`;
}

/**
 * Prints `subject` through consumers created from `last + 1`, one after another, until `stopped()`
 * or the connection closes; saves each printed sequence in `statePath`.
 */
async function follow(
  nc: NatsConnection,
  account: string,
  subject: string,
  statePath: string,
  from: number | undefined,
  stopped: () => boolean,
  onStop: (stop: () => void) => void,
): Promise<void> {
  const opts = { apiPrefix: REPLAY_API_PREFIX, checkAPI: false, timeout: API_TIMEOUT_MS };
  const jsm = await jetstreamManager(nc, opts);
  const js = jetstream(nc, opts);
  let last = readLastSeq(statePath);
  let backoffMs = BACKOFF_START_MS;
  let current: { stop(): void } | undefined;
  // A reconnect may have lost messages in flight (ack none): start a new consumer from last + 1.
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'reconnect') {
        log('reconnected; recreating the consumer');
        current?.stop();
      }
    }
  })();
  while (!stopped() && !nc.isClosed()) {
    try {
      // One replay consumer per account: replace whatever a previous run or generation left.
      await jsm.consumers.delete(TRADES_STREAM, account).catch(() => undefined);
      await jsm.consumers.add(TRADES_STREAM, {
        name: account,
        filter_subject: subject,
        ack_policy: AckPolicy.None,
        inactive_threshold: CONSUMER_INACTIVE_NS,
        ...startOf(last, from),
      });
      log(last !== undefined ? `resuming ${subject} after stream sequence ${last}` : `reading ${subject} from ${from ?? 'new trades'}`);
      const messages = await (await js.consumers.get(TRADES_STREAM, account)).consume({ idle_heartbeat: IDLE_HEARTBEAT_MS, expires: PULL_EXPIRES_MS });
      current = messages;
      onStop(() => messages.stop());
      void (async () => {
        for await (const s of messages.status()) {
          if (s.type === 'heartbeats_missed' || s.type === 'consumer_deleted' || s.type === 'consumer_not_found') {
            log(`consumer ${s.type}; recreating it after ${last ?? 'the start'}`);
            messages.stop();
          }
        }
      })();
      let delivered = 0;
      for await (const m of messages) {
        // m.info.deliverySequence counts this consumer's deliveries: a jump means one was lost in flight.
        if (m.info.deliverySequence !== delivered + 1) {
          log(`consumer sequence jumped from ${delivered} to ${m.info.deliverySequence}; recreating it after ${last ?? 'the start'}`);
          messages.stop();
          break;
        }
        delivered = m.info.deliverySequence;
        if (last !== undefined && m.seq <= last) continue; // belt and braces: never print a sequence twice
        process.stdout.write(`${withSeq(m)}\n`);
        last = m.seq; // = m.info.streamSequence
        saveLastSeq(statePath, last);
      }
      backoffMs = BACKOFF_START_MS;
    } catch (err) {
      if (stopped()) break;
      log(`replay consumer failed: ${(err as Error).message} (native replay needs Pro credentials from the dashboard); retrying in ${backoffMs} ms`);
      await sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
    }
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { state: { type: 'string' }, from: { type: 'string' } }, allowPositionals: true });
  const creds = loadCredentials(process.env);
  if (!creds) {
    log('No credentials. Set TRADEWIND_CREDS to a .creds file (dashboard → Download .creds), or TRADEWIND_JWT and TRADEWIND_NKEY_SEED.');
    return 2;
  }
  const [subject, ...extra] = positionals;
  if (!subject || extra.length > 0) {
    log('give exactly one subject (one replay consumer per account), e.g. basic.pumpfun');
    return 2;
  }
  const from = values.from === undefined ? undefined : Number(values.from);
  if (from !== undefined && !(Number.isSafeInteger(from) && from > 0)) {
    log(`--from ${values.from}: give a TRADES stream sequence (a positive integer)`);
    return 2;
  }
  const statePath = values.state ?? `./${subject}.last-seq`;
  try {
    readLastSeq(statePath);
  } catch (err) {
    log((err as Error).message);
    return 2;
  }
  const servers = process.env.TRADEWIND_NATS_URL || creds.url || DEFAULT_NATS_URL;
  let stopping = false;
  let stopCurrent: () => void = () => undefined;
  let nc: NatsConnection | undefined;
  const stop = () => {
    stopping = true;
    stopCurrent();
    if (nc) void nc.drain().catch(() => nc?.close());
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  let backoffMs = BACKOFF_START_MS;
  while (!stopping) {
    try {
      log(`connecting to ${servers}`);
      nc = await connect({ servers, authenticator: creds.authenticator, name: 'tradewind-resumable-reader', maxReconnectAttempts: -1 });
    } catch (err) {
      if (/authorization|authentication/i.test((err as Error).message)) {
        log(`not connecting again: the server refused the credentials (${(err as Error).message})`);
        return 1;
      }
      log(`connect failed: ${(err as Error).message}; retrying in ${backoffMs} ms`);
      await sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
      continue;
    }
    backoffMs = BACKOFF_START_MS;
    await follow(
      nc,
      accountOf(creds.jwt),
      subject,
      statePath,
      from,
      () => stopping,
      (s) => {
        stopCurrent = s;
      },
    );
    await nc.closed();
  }
  const last = readLastSeq(statePath);
  log(`stopped; last stream sequence ${last ?? 'none'} saved in ${statePath}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`error: ${(err as Error).message}`);
    process.exit(1);
  },
);
