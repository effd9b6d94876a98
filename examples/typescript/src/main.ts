/**
 * Tradewind native NATS starter (Node.js ≥ 22, @nats-io/transport-node + @nats-io/jetstream).
 *
 *   TRADEWIND_CREDS=./tradewind.creds npm start -- basic.pumpfun basic.bonk
 *   TRADEWIND_CREDS=./tradewind.creds npm start -- basic.pumpfun --replay 2026-11-21T10:00:00Z   (Pro)
 *
 * Live trades: a plain NATS subscription per subject (the server enforces your plan's subjects).
 * --replay <from>: Pro only, one subject; a JetStream pull consumer of your own on the TRADES
 * mirror under the API prefix $JS.REPLAY.API, named after your account public key, starting at an
 * ISO-8601 date-time with a time zone or at a TRADES stream sequence, then carrying on live
 * (docs/nats.md, "Native replay").
 *
 * stdout: one trade per line, the JSON exactly as published. stderr: status and errors.
 *
 * Environment:
 *   TRADEWIND_CREDS      path of a .creds file (dashboard → Download .creds) or of the JSON that
 *                        `npm run creds` / GET /api/nats print (user_jwt, user_nkey_seed)
 *   TRADEWIND_JWT        user JWT            } instead of TRADEWIND_CREDS
 *   TRADEWIND_NKEY_SEED  user NKey seed (SU…) }
 *   TRADEWIND_NATS_URL   default: nats_connection of a JSON creds file, else nats://localhost:4223
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  connect,
  credsAuthenticator,
  jwtAuthenticator,
  AuthorizationError,
  PermissionViolationError,
  type Authenticator,
  type NatsConnection,
} from '@nats-io/transport-node';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy, type ConsumerConfig } from '@nats-io/jetstream';

const DEFAULT_NATS_URL = 'nats://localhost:4223';
const TRADES_STREAM = 'TRADES';
const REPLAY_API_PREFIX = '$JS.REPLAY.API';
/** A disconnect not followed by a reconnect within this time: connect again ourselves (docs/nats.md). */
const RECONNECT_WATCHDOG_MS = 10_000;
const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Credentials {
  authenticator: Authenticator;
  jwt: string;
  url: string | undefined;
}

/** Credentials from TRADEWIND_CREDS (.creds file or JSON) or TRADEWIND_JWT + TRADEWIND_NKEY_SEED; undefined when none. */
function loadCredentials(env: NodeJS.ProcessEnv): Credentials | undefined {
  const enc = new TextEncoder();
  if (env.TRADEWIND_CREDS) {
    const text = readFileSync(env.TRADEWIND_CREDS, 'utf8');
    if (text.trimStart().startsWith('{')) {
      const json = JSON.parse(text) as { user_jwt?: string; user_nkey_seed?: string; nats_connection?: string };
      if (!json.user_jwt || !json.user_nkey_seed) return undefined;
      return { authenticator: jwtAuthenticator(json.user_jwt, enc.encode(json.user_nkey_seed)), jwt: json.user_jwt, url: json.nats_connection };
    }
    const jwt = /-----BEGIN NATS USER JWT-----\s*(\S+)\s*-+END NATS USER JWT-+/.exec(text)?.[1];
    if (!jwt) return undefined;
    return { authenticator: credsAuthenticator(enc.encode(text)), jwt, url: undefined };
  }
  if (env.TRADEWIND_JWT && env.TRADEWIND_NKEY_SEED) {
    return { authenticator: jwtAuthenticator(env.TRADEWIND_JWT, enc.encode(env.TRADEWIND_NKEY_SEED)), jwt: env.TRADEWIND_JWT, url: undefined };
  }
  return undefined;
}

/** The account public key of a user JWT (`nats.issuer_account`, else `iss`): the only consumer name replay allows. */
function accountOf(jwt: string): string {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: string; nats?: { issuer_account?: string } };
  const account = payload.nats?.issuer_account ?? payload.iss;
  if (!account) throw new Error('the user JWT names no account');
  return account;
}

/** `--replay` value → consumer start: a positive integer is a stream sequence, else an ISO-8601 date-time with a time zone. */
function replayStart(from: string): Pick<ConsumerConfig, 'deliver_policy' | 'opt_start_seq' | 'opt_start_time'> {
  if (/^[1-9][0-9]*$/.test(from)) return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Number(from) };
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(from) && !Number.isNaN(Date.parse(from))) {
    return { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(from).toISOString() };
  }
  throw new Error(`--replay ${from}: give an ISO-8601 date-time with a time zone (2026-11-21T10:00:00Z) or a stream sequence (a positive integer)`);
}

/** Prints live messages of one core subscription until it ends. */
async function printLive(nc: NatsConnection, subject: string): Promise<void> {
  const sub = nc.subscribe(subject);
  log(`subscribed to ${subject}`);
  try {
    for await (const m of sub) process.stdout.write(`${m.string()}\n`);
  } catch (err) {
    // e.g. "Permissions Violation for Subscription to "premium.pumpswap"": the subject is not in your plan.
    log(`subscription ${subject} ended: ${(err as Error).message}`);
  }
}

/** Pro: history of `subject` from `from`, then live, through a consumer named after the account (docs/nats.md). */
async function printReplay(nc: NatsConnection, subject: string, from: string, account: string): Promise<void> {
  const opts = { apiPrefix: REPLAY_API_PREFIX, checkAPI: false };
  const jsm = await jetstreamManager(nc, opts);
  // One replay consumer per customer: drop the one a previous run left (it would have another start point).
  await jsm.consumers.delete(TRADES_STREAM, account).catch(() => undefined);
  await jsm.consumers.add(TRADES_STREAM, {
    name: account,
    filter_subject: subject,
    ...replayStart(from),
    ack_policy: AckPolicy.None,
    inactive_threshold: 300e9, // the server deletes it 5 min after the last pull
  });
  log(`replaying ${subject} from ${from} (consumer ${account})`);
  const consumer = await jetstream(nc, opts).consumers.get(TRADES_STREAM, account);
  let caughtUp = false;
  for await (const m of await consumer.consume()) {
    process.stdout.write(`${m.string()}\n`);
    if (!caughtUp && m.info.pending === 0) {
      caughtUp = true;
      log(`replay caught up at stream sequence ${m.seq}; live trades from here`);
    }
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { replay: { type: 'string' } }, allowPositionals: true });
  const creds = loadCredentials(process.env);
  if (!creds) {
    log('No credentials. Set TRADEWIND_CREDS to a .creds file (dashboard → Download .creds, or the JSON of `npm run -s creds -- --plan starter`),');
    log('or TRADEWIND_JWT and TRADEWIND_NKEY_SEED.');
    return 2;
  }
  const subjects = positionals.length > 0 ? positionals : ['basic.pumpfun', 'basic.bonk'];
  if (values.replay !== undefined) {
    if (subjects.length !== 1) {
      log('--replay takes exactly one subject (one replay consumer per account)');
      return 2;
    }
    replayStart(values.replay); // validate before connecting
  }
  const servers = process.env.TRADEWIND_NATS_URL || creds.url || DEFAULT_NATS_URL;
  let stopping = false;
  let current: NatsConnection | undefined;
  const stop = () => {
    stopping = true;
    if (current) void current.drain().catch(() => current?.close());
    else process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  let backoffMs = BACKOFF_START_MS;
  while (!stopping) {
    let nc: NatsConnection;
    try {
      log(`connecting to ${servers}`);
      nc = await connect({ servers, authenticator: creds.authenticator, name: 'tradewind-typescript-starter', maxReconnectAttempts: -1 });
    } catch (err) {
      if (err instanceof AuthorizationError || /authorization|authentication/i.test((err as Error).message)) {
        log(`not connecting again: the server refused the credentials (${(err as Error).message}); get new ones from the dashboard`);
        return 1;
      }
      log(`connect failed: ${(err as Error).message}; retrying in ${backoffMs} ms`);
      await sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
      continue;
    }
    current = nc;
    backoffMs = BACKOFF_START_MS;
    log(`connected to ${nc.getServer()}`);

    let watchdog: NodeJS.Timeout | undefined;
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') {
          log('disconnected; the client reconnects by itself');
          watchdog = setTimeout(() => {
            log(`no reconnect within ${RECONNECT_WATCHDOG_MS} ms; connecting afresh`);
            void nc.close();
          }, RECONNECT_WATCHDOG_MS);
        } else if (s.type === 'reconnect') {
          clearTimeout(watchdog);
          log(`reconnected to ${s.server}`);
        } else if (s.type === 'error') {
          const e = s.error;
          log(
            e instanceof PermissionViolationError
              ? `permission refused: ${e.operation} ${e.subject} (not allowed for these credentials)`
              : `server error: ${e.message}`,
          );
        }
      }
    })();

    for (const subject of subjects) {
      if (values.replay !== undefined) {
        void printReplay(nc, subject, values.replay, accountOf(creds.jwt)).catch((err: unknown) => {
          log(`replay failed: ${(err as Error).message} (native replay needs Pro credentials from the dashboard)`);
          void nc.close();
        });
      } else {
        void printLive(nc, subject);
      }
    }

    const closedWith = await nc.closed();
    clearTimeout(watchdog);
    current = undefined;
    if (stopping) break;
    log(`connection closed${closedWith ? `: ${closedWith.message}` : ''}`);
    if (values.replay !== undefined && !closedWith) return 1; // the replay failed; the reason is above
    await sleep(backoffMs);
  }
  log('stopped');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`error: ${(err as Error).message}`);
    process.exit(1);
  },
);
