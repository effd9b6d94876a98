/**
 * `npm start`: the whole local stack in one command (docs/local-stack.md).
 *
 * Installs what is missing (nats-server, redis-server through apt when run as root on
 * Debian/Ubuntu; otherwise prints the exact command), creates the NATS operator keys in the
 * state directory on first run, starts nats-server (operator mode, JetStream; 2.10 or newer, as production runs
 * 2.11: the system's when it is one, else Debian 13's package fetched and verified once into ~/.cache/tradewind,
 * scripts/lib/cluster-nats-server.ts — slot status on the WebSocket needs it), a private
 * redis-server (unless REDIS_URL is set), an embedded PostgreSQL (unless DATABASE_URL is set;
 * dev/bin/local-postgres.ts), the local OpenID Connect provider (unless GOOGLE_CLIENT_ID is set;
 * dev/bin/local-oidc.ts) and the labelled local Stripe stand-in (unless STRIPE_SECRET_KEY is set;
 * dev/bin/local-stripe.ts), then credential-issuer, ingest, ws-fanout, auth and billing, and the local
 * ingress proxy (@tradewind/dev's startIngressProxy, routes from deploy/routes.json); waits until
 * each is ready, checks that a trade reaches a WebSocket client, and prints the URLs and a
 * ready-to-paste example. Ctrl-C (or SIGTERM) stops the proxy, then the services, then the
 * servers they depend on, PostgreSQL last, and leaves no process behind; a run that was killed
 * hard is cleaned up by the next one (pids.json, postgres's postmaster.pid).
 *
 * Flags (they combine):
 * - `--nats-cluster` (`npm start -- --nats-cluster`) starts a 3-node NATS cluster (every node in the
 *   services' NATS_URL, NATS_STREAM_REPLICAS=3) instead of one server.
 * - `--yellowstone` (`npm start -- --yellowstone`) runs ingest on the path production takes,
 *   INGEST_SOURCE=yellowstone, against the LOCAL Geyser gRPC stand-in (dev/bin/local-geyser.ts on
 *   LOCAL_GEYSER_PORT): the recorded mainnet transactions replayed as a live chain with synthetic
 *   signatures and slots, at the LOCAL_GEYSER_STEADY_TPS / _BURST_TPS / _STEADY_MS / _BURST_MS profile
 *   (default 300 tx/s for 60 s, then 3,000 tx/s for 30 s). YELLOWSTONE_ENDPOINT is set to it and
 *   YELLOWSTONE_X_TOKEN is not passed on.
 *
 * Environment: TRADEWIND_STATE_DIR (default .tradewind), REDIS_URL, LOCAL_REDIS_PORT,
 * DATABASE_URL, LOCAL_POSTGRES_PORT, GOOGLE_CLIENT_ID/GOOGLE_CLIENT_SECRET,
 * LOCAL_OIDC_PORT, STRIPE_SECRET_KEY/STRIPE_WEBHOOK_SECRET, LOCAL_STRIPE_PORT, PUBLIC_URL (http://localhost:<ingress port>), REPLAY_TRANSACTIONS_PER_SECOND,
 * LOCAL_GEYSER_PORT and the LOCAL_GEYSER_* profile (with --yellowstone) and
 * the services' own variables, which are passed through (the web server's CSP hosts — WS_PUBLIC_URL,
 * CSP_SIGN_IN_ORIGINS, CSP_CHECKOUT_ORIGINS, CSP_IMAGE_ORIGINS — default to this run's sign-in and
 * checkout: Google and Stripe when configured, else the local stand-ins). Every port's default is in deploy/services.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import WebSocket from 'ws';
import { DEFAULT_STARTUP_DEADLINE_MS, defaultPort } from '@tradewind/lib';
import { DEFAULT_GEYSER_RATE_PROFILE, isListening, waitForPort } from '@tradewind/dev';
import { issueUserCredentials } from '@tradewind/credential-issuer';
import { startLocalNats, type LocalNats } from '@tradewind/dev';
import { ensureAccessTokenKeyFile } from './lib/access-token-key.js';
import { ensureSystemPrograms } from './lib/system-packages.js';
import { ensureClusterNatsServer, natsServerVersion } from './lib/cluster-nats-server.js';
import { loadRouteTable, startIngressProxy, type IngressProxy } from '@tradewind/dev';

const root = resolve(import.meta.dirname, '..');
const stateDir = resolve(root, process.env.TRADEWIND_STATE_DIR ?? '.tradewind');
const logDir = join(stateDir, 'logs');
/**
 * Every port npm start listens on or hands to a service: the local defaults of deploy/services.json
 * (docs/architecture.md §4), the one place they are written down.
 */
const PORTS = {
  nats: defaultPort('nats', 'nats'),
  natsMonitor: defaultPort('nats', 'monitor'),
  ws: defaultPort('ws-fanout', 'websocket'),
  ingress: defaultPort('ingress', 'http'),
  auth: { http: defaultPort('auth', 'http'), grpc: defaultPort('auth', 'grpc') },
  billing: { http: defaultPort('billing', 'http'), grpc: defaultPort('billing', 'grpc') },
  credentialIssuer: defaultPort('credential-issuer', 'http'),
  tokenPrice: { http: defaultPort('token-price', 'http'), grpc: defaultPort('token-price', 'grpc') },
  web: defaultPort('web', 'http'),
  admin: {
    ingest: defaultPort('ingest', 'admin'),
    'credential-issuer': defaultPort('credential-issuer', 'admin'),
    'ws-fanout': defaultPort('ws-fanout', 'admin'),
    auth: defaultPort('auth', 'admin'),
    billing: defaultPort('billing', 'admin'),
    'token-price': defaultPort('token-price', 'admin'),
    web: defaultPort('web', 'admin'),
  },
} as const;

/** Every port number in `ports` (nested objects included). */
function allPorts(ports: object): number[] {
  return Object.values(ports).flatMap((v: unknown) => (typeof v === 'number' ? [v] : v && typeof v === 'object' ? allPorts(v) : []));
}

/** A port from the environment; exits with a clear message on a bad value. */
function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    process.stderr.write(`npm start: ${name} must be a port number 1-65535, got "${raw}"\n`);
    process.exit(1);
  }
  return port;
}
const redisPort = portFromEnv('LOCAL_REDIS_PORT', defaultPort('redis', 'redis'));
const postgresPort = portFromEnv('LOCAL_POSTGRES_PORT', defaultPort('postgres', 'postgres'));
const oidcPort = portFromEnv('LOCAL_OIDC_PORT', defaultPort('local-oidc', 'http'));
const localStripePort = portFromEnv('LOCAL_STRIPE_PORT', defaultPort('local-stripe', 'http'));
const geyserPort = portFromEnv('LOCAL_GEYSER_PORT', defaultPort('local-geyser', 'grpc'));
const postgresDataDir = join(stateDir, 'postgres');
/**
 * `npm start -- --nats-cluster`: a 3-node JetStream cluster instead of one nats-server, as the chart
 * deploys (docs/reliability.md runs its faults on one). `--yellowstone`: ingest on its Yellowstone
 * source against the local Geyser stand-in. Any other argument is refused.
 */
const NATS_CLUSTER_NODES = 3;
/** How long npm start waits for a service's /readyz, ms: past the services' start-up deadline (STARTUP_DEADLINE_MS, CommonConfig). */
const SERVICE_READY_TIMEOUT_MS = (Number(process.env.STARTUP_DEADLINE_MS) || DEFAULT_STARTUP_DEADLINE_MS) + 15_000;
const START_FLAGS = ['--nats-cluster', '--yellowstone'];
const startArgs = process.argv.slice(2);
for (const arg of startArgs) {
  if (!START_FLAGS.includes(arg)) {
    process.stderr.write(`npm start: unknown argument "${arg}" (the flags are ${START_FLAGS.join(', ')})\n`);
    process.exit(1);
  }
}
const natsClusterSize = startArgs.includes('--nats-cluster') ? NATS_CLUSTER_NODES : 1;
const yellowstone = startArgs.includes('--yellowstone');
const publicUrl = process.env.PUBLIC_URL ?? `http://localhost:${PORTS.ingress}`;
const t0 = Date.now();
const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = () => ((Date.now() - t0) / 1000).toFixed(1);

const children: Array<{ name: string; proc: ChildProcess }> = [];
let nats: LocalNats | undefined;
let ingress: IngressProxy | undefined;
let stopping = false;

/** Makes sure nats-server and (when needed) redis-server exist; installs them with apt as root. */
function ensureSystemPackages(): void {
  try {
    ensureSystemPrograms(
      [
        { command: process.env.NATS_SERVER_BIN ?? 'nats-server', pkg: 'nats-server' },
        ...(process.env.REDIS_URL ? [] : [{ command: 'redis-server', pkg: 'redis-server' }]),
      ],
      say,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n(on other systems install nats-server ≥ 2.9 and redis-server from your package manager, or set REDIS_URL)`, {
      cause: err,
    });
  }
}

/** @param options.ipc open an IPC channel (the child reports readiness with `process.send`). */
function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, options: { ipc?: boolean } = {}): ChildProcess {
  const log = openSync(join(logDir, `${name}.log`), 'a');
  // Own process group: a terminal Ctrl-C reaches only this script, which stops the services
  // first and the servers they depend on last.
  const proc = spawn(command, args, { cwd: root, env, stdio: options.ipc ? ['ignore', log, log, 'ipc'] : ['ignore', log, log], detached: true });
  children.push({ name, proc });
  recordPids();
  proc.once('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`\n${name} exited unexpectedly (${signal ?? `code ${code}`}). Last lines of ${join(logDir, `${name}.log`)}:\n`);
      process.stderr.write(tail(join(logDir, `${name}.log`), 15));
      void shutdown(1);
    }
  });
  return proc;
}

const pidFile = join(stateDir, 'pids.json');

/** Remembers our children's pids so a later run can clean up after a run that was killed hard. */
function recordPids(): void {
  writeFileSync(pidFile, JSON.stringify(children.map((c) => c.proc.pid).filter((p) => p !== undefined)));
}

/** Files of the scripts npm start runs as children, recognised in a leftover process's command line. */
const OUR_SCRIPTS = ['dev/bin/local-postgres.ts', 'dev/bin/local-oidc.ts', 'dev/bin/local-stripe.ts', 'dev/bin/local-geyser.ts'];

const isAlive = (pid: number) => existsSync(`/proc/${pid}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The pid of a PostgreSQL server still running on our data directory (its postmaster.pid names
 * it), or undefined. Checks the process's command line, so a stale file whose pid was reused by
 * another program is ignored.
 */
function runningPostmaster(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmd.some((arg) => arg.endsWith('postgres')) && cmd.includes(dataDir) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops a PostgreSQL server left on our data directory: SIGINT (fast shutdown: rolls back open
 * transactions, writes a checkpoint), then SIGQUIT (immediate; crash recovery on next start),
 * then SIGKILL.
 */
async function stopPostmaster(dataDir: string): Promise<void> {
  const pid = runningPostmaster(dataDir);
  if (pid === undefined) return;
  for (const [signal, waitMs] of [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 2_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (isAlive(pid) && Date.now() < deadline) await sleep(100);
    if (!isAlive(pid)) return;
  }
}

/** Stops processes a previous run left behind (it was killed with SIGKILL or lost its terminal). */
async function stopLeftovers(): Promise<void> {
  let pids: number[] = [];
  try {
    pids = JSON.parse(readFileSync(pidFile, 'utf8')) as number[];
  } catch {
    // no earlier run recorded; a server on the data directory may still be left (below)
  }
  const ours = pids.filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return (
        cmd.includes(stateDir) ||
        cmd.includes('nats-server') ||
        cmd.includes('redis-server') ||
        cmd.includes('/src/main.ts') ||
        OUR_SCRIPTS.some((script) => cmd.includes(script))
      );
    } catch {
      return false;
    }
  });
  const postmaster = runningPostmaster(postgresDataDir);
  if (ours.length === 0 && postmaster === undefined) return;
  say(
    `Stopping ${ours.length + (postmaster === undefined ? 0 : 1)} process(es) left over from a previous run${postmaster === undefined ? '' : ' (including PostgreSQL)'}…`,
  );
  for (const pid of ours) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  // The services go first; postgres gets its fast-shutdown request at the same time (they are being stopped anyway).
  const postgresStopped = stopPostmaster(postgresDataDir);
  const deadline = Date.now() + 10_000;
  while (ours.some(isAlive) && Date.now() < deadline) await sleep(100);
  for (const pid of ours) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await postgresStopped;
}

function tail(file: string, lines: number): string {
  try {
    return `${readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}\n`;
  } catch {
    return '';
  }
}

/** Resolves once `url` (default: the admin port's /readyz) answers 2xx. */
async function waitReady(
  name: string,
  adminPort: number,
  proc: ChildProcess,
  timeoutMs = 60_000,
  url = `http://127.0.0.1:${adminPort}/readyz`,
  headers: Record<string, string> = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${name} exited before becoming ready`);
    try {
      const res = await fetch(url, { headers });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${timeoutMs / 1000} s; see ${join(logDir, `${name}.log`)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function shutdown(code: number): Promise<never> {
  if (stopping) return new Promise(() => undefined);
  stopping = true;
  say('\nStopping Tradewind…');
  const terminate = (proc: ChildProcess) =>
    new Promise<void>((r) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return r();
      proc.once('exit', () => r());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 12_000).unref();
    });
  const stop = (names: string[]) => Promise.all(children.filter((c) => names.includes(c.name)).map((c) => terminate(c.proc)));
  // The edge first (no new requests), then the services, then what they depend on; PostgreSQL last.
  await ingress?.close();
  const infra = ['nats-server', 'redis-server', 'local-oidc', 'local-stripe', 'local-geyser', 'local-postgres'];
  await Promise.all(children.filter((c) => !infra.includes(c.name)).map((c) => terminate(c.proc)));
  await stop(['redis-server', 'local-oidc', 'local-stripe', 'local-geyser']);
  await nats?.stop();
  await stop(['local-postgres']);
  // The postgres server outlives its launcher if that was killed; never leave it running.
  await stopPostmaster(postgresDataDir);
  say('Stopped.');
  process.exit(code);
}

/** Connects like a subscriber would and resolves with the first trade message received. */
function firstTradeOverWebSocket(creds: { user_jwt: string; user_nkey_seed: string }, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORTS.ws}`);
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no trade within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    ws.on('open', () => ws.send(JSON.stringify({ jwt: creds.user_jwt, nkey: creds.user_nkey_seed })));
    ws.on('message', (data) => {
      const text = data.toString();
      const msg = JSON.parse(text) as { type?: string; message?: string };
      if (msg.type === 'authenticated') ws.send(JSON.stringify({ subject: 'basic.pumpfun' }));
      else if (msg.type === 'error') {
        clearTimeout(timer);
        ws.close();
        reject(new Error(msg.message));
      } else if (msg.type === undefined || msg.type === 'trade') {
        clearTimeout(timer);
        ws.close();
        resolvePromise(text);
      }
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Starts dev/bin/local-postgres.ts and resolves with its DATABASE_URL once the database exists. */
function startLocalPostgres(): Promise<string> {
  const proc = startChild(
    'local-postgres',
    process.execPath,
    ['--import', 'tsx', 'dev/bin/local-postgres.ts', '--data-dir', postgresDataDir, '--port', String(postgresPort), '--database', 'tradewind'],
    process.env,
    { ipc: true },
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostgreSQL not ready after 120 s; see ${join(logDir, 'local-postgres.log')}`)), 120_000);
    proc.on('message', (msg: { type?: string; url?: string }) => {
      if (msg.type === 'ready' && msg.url) {
        clearTimeout(timer);
        resolvePromise(msg.url);
      }
    });
    proc.once('exit', () => {
      clearTimeout(timer);
      reject(new Error('local PostgreSQL exited before becoming ready'));
    });
  });
}

/**
 * The Geyser stand-in's rate profile as npm start hands it on (LOCAL_GEYSER_* or the defaults), for
 * the banner; dev/bin/local-geyser.ts validates the variables and exits naming a bad one.
 */
function geyserProfileText(): string {
  const value = (name: string, fallback: number) => process.env[name] || String(fallback);
  const p = DEFAULT_GEYSER_RATE_PROFILE;
  return `${value('LOCAL_GEYSER_STEADY_TPS', p.steadyTxPerSecond)} tx/s for ${value('LOCAL_GEYSER_STEADY_MS', p.steadyMs)} ms, then ${value('LOCAL_GEYSER_BURST_TPS', p.burstTxPerSecond)} tx/s for ${value('LOCAL_GEYSER_BURST_MS', p.burstMs)} ms, repeating`;
}

/**
 * Starts dev/bin/local-geyser.ts (the Yellowstone Geyser gRPC stand-in) and resolves with ingest's
 * YELLOWSTONE_ENDPOINT once it listens (it binds after encoding the recording).
 */
async function startLocalGeyser(): Promise<string> {
  const proc = startChild('local-geyser', process.execPath, ['--import', 'tsx', 'dev/bin/local-geyser.ts'], {
    ...process.env,
    LOCAL_GEYSER_PORT: String(geyserPort),
  });
  await waitForPort(geyserPort, '127.0.0.1', 60_000, () => proc.exitCode === null);
  return `http://127.0.0.1:${geyserPort}`;
}

/**
 * The hosts of the web pages' Content Security Policy for this run (web/server/main.ts, docs/web.md
 * "Browser security"): Google's sign-in and avatar hosts when GOOGLE_CLIENT_ID is set, else the
 * local OpenID provider; Stripe's checkout and portal when STRIPE_SECRET_KEY is set, else the local
 * stand-in; the WebSocket endpoint on this run's port. The caller's environment overrides each.
 */
function webSecurityEnv(google: boolean, stripeKeys: boolean): NodeJS.ProcessEnv {
  return {
    WS_PUBLIC_URL: `ws://localhost:${PORTS.ws}`,
    CSP_SIGN_IN_ORIGINS: google ? 'https://accounts.google.com' : `http://localhost:${oidcPort}`,
    CSP_IMAGE_ORIGINS: google ? 'https://*.googleusercontent.com' : '',
    CSP_CHECKOUT_ORIGINS: stripeKeys ? 'https://checkout.stripe.com https://billing.stripe.com' : `http://localhost:${localStripePort}`,
  };
}

/** Starts dev/bin/local-oidc.ts and resolves with its issuer once discovery answers. */
async function startLocalOidc(): Promise<string> {
  const proc = startChild('local-oidc', process.execPath, ['--import', 'tsx', 'dev/bin/local-oidc.ts'], { ...process.env, LOCAL_OIDC_PORT: String(oidcPort) });
  await waitReady('local-oidc', oidcPort, proc, 60_000, `http://127.0.0.1:${oidcPort}/.well-known/openid-configuration`);
  return `http://localhost:${oidcPort}`;
}

/**
 * Starts dev/bin/local-stripe.ts (the Stripe stand-in, its own process) with a test key and
 * webhook secret made for this run, delivering to billing's webhook endpoint; resolves with the
 * settings billing needs (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_URL) once its API answers.
 */
async function startLocalStripeProcess(): Promise<NodeJS.ProcessEnv> {
  const secretKey = `sk_test_local_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_local_${randomBytes(18).toString('hex')}`;
  const proc = startChild('local-stripe', process.execPath, ['--import', 'tsx', 'dev/bin/local-stripe.ts'], {
    ...process.env,
    LOCAL_STRIPE_PORT: String(localStripePort),
    LOCAL_STRIPE_PUBLIC_URL: `http://localhost:${localStripePort}`,
    STRIPE_SECRET_KEY: secretKey,
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    STRIPE_WEBHOOK_URL: `http://127.0.0.1:${PORTS.billing.http}/api/stripe/webhook`,
  });
  await waitReady('local-stripe', localStripePort, proc, 60_000, `http://127.0.0.1:${localStripePort}/v1/prices?limit=1`, {
    authorization: `Bearer ${secretKey}`,
  });
  return { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: `http://127.0.0.1:${localStripePort}` };
}

/**
 * The ES256 key auth signs access tokens with: a P-256 private key, PKCS#8 PEM, mode 0600, made
 * once so sessions survive restarts. @returns its path.
 */
function ensureJwtKey(): string {
  const file = join(stateDir, 'auth', 'jwt-es256.pem');
  if (ensureAccessTokenKeyFile(file)) say(`Created the access-token signing key ${relative(root, file) || file} (ES256).`);
  return file;
}

/** A connection URL fit for the terminal: the password replaced by ***. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

/**
 * Builds web/dist in a child process unless it already holds a build of the current inputs
 * (web/scripts/build.ts --if-stale). @throws Error with the build's last output lines on failure.
 */
function buildWebIfStale(): Promise<void> {
  return new Promise((ok, fail) => {
    const log = join(logDir, 'web-build.log');
    const out = openSync(log, 'a');
    const proc = spawn(process.execPath, ['--import', 'tsx', 'web/scripts/build.ts', '--if-stale'], { cwd: root, stdio: ['ignore', out, out] });
    proc.once('error', fail);
    proc.once('exit', (code) => {
      if (code === 0) {
        const last = tail(log, 1).trim();
        say(last.startsWith('web: built') ? `Built the web app (${last.replace(/^web: /, '')}).` : 'Web app build is current.');
        ok();
      } else fail(new Error(`the web app build failed (exit ${code}). Last lines of ${log}:\n${tail(log, 20)}`));
    });
  });
}

async function main(): Promise<void> {
  // 'on', not 'once': npm and tsx relay the terminal's signal again; a second one must not kill us mid-shutdown.
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGHUP', () => void shutdown(0));

  const externalDatabaseUrl = process.env.DATABASE_URL || undefined;
  const google = Boolean(process.env.GOOGLE_CLIENT_ID);
  const stripeKeys = Boolean(process.env.STRIPE_SECRET_KEY);
  if (!google && process.env.NODE_ENV === 'production') {
    throw new Error('NODE_ENV=production needs GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET: the local sign-in provider is refused in production');
  }
  const routeTable = loadRouteTable();
  ensureSystemPackages();
  mkdirSync(logDir, { recursive: true });
  await stopLeftovers();

  const ports: Array<[string, number]> = [
    ['web/API ingress proxy', PORTS.ingress],
    ['WebSocket', PORTS.ws],
    ['NATS', PORTS.nats],
    ['NATS monitoring', PORTS.natsMonitor],
    ['auth HTTP', PORTS.auth.http],
    ['auth gRPC', PORTS.auth.grpc],
    ['billing HTTP', PORTS.billing.http],
    ['billing gRPC', PORTS.billing.grpc],
    ['credential-issuer HTTP', PORTS.credentialIssuer],
    ['token-price HTTP', PORTS.tokenPrice.http],
    ['token-price gRPC', PORTS.tokenPrice.grpc],
    ['web', PORTS.web],
    ...Object.entries(PORTS.admin).map(([name, port]): [string, number] => [`${name} admin`, port]),
  ];
  if (!externalDatabaseUrl) ports.push(['local PostgreSQL; set LOCAL_POSTGRES_PORT or DATABASE_URL', postgresPort]);
  if (!google) ports.push(['local OpenID Connect provider; set LOCAL_OIDC_PORT', oidcPort]);
  if (!stripeKeys) ports.push(['local Stripe stand-in; set LOCAL_STRIPE_PORT', localStripePort]);
  if (!process.env.REDIS_URL) ports.push(['local redis; set LOCAL_REDIS_PORT or REDIS_URL', redisPort]);
  if (yellowstone) ports.push(['local Geyser stand-in; set LOCAL_GEYSER_PORT', geyserPort]);
  for (const [what, port] of ports) {
    if (await isListening(port)) throw new Error(`port ${port} (${what}) is already in use — is Tradewind already running?`);
  }

  // The web app builds (only when its inputs changed) while everything else starts.
  const webBuilt = buildWebIfStale();
  webBuilt.catch(() => undefined);

  // PostgreSQL and the sign-in provider start alongside NATS and Redis; awaited before auth.
  let databaseUrl: Promise<string>;
  if (externalDatabaseUrl) {
    say(`Using PostgreSQL from DATABASE_URL (${withoutPassword(externalDatabaseUrl)}); no local database is started.`);
    databaseUrl = Promise.resolve(externalDatabaseUrl);
  } else {
    say(`Starting PostgreSQL on ${postgresPort} (LOCAL embedded server, data in ${relative(root, postgresDataDir) || postgresDataDir})…`);
    databaseUrl = startLocalPostgres();
  }
  let oidcIssuer: Promise<string | undefined> = Promise.resolve(undefined);
  if (google) {
    say('Sign-in: Google (GOOGLE_CLIENT_ID is set).');
  } else {
    say(`Starting the LOCAL OpenID Connect provider on ${oidcPort} (stands in for Google: GOOGLE_CLIENT_ID is not set)…`);
    oidcIssuer = startLocalOidc();
  }
  let geyserEndpoint: Promise<string | undefined> = Promise.resolve(undefined);
  if (yellowstone) {
    say(
      `Starting the LOCAL Yellowstone (Geyser gRPC) stand-in on ${geyserPort} (recorded mainnet transactions, SYNTHETIC signatures and slots; ${geyserProfileText()})…`,
    );
    geyserEndpoint = startLocalGeyser();
  }
  // Awaited later; a failure meanwhile must not surface as an unhandled rejection.
  databaseUrl.catch(() => undefined);
  oidcIssuer.catch(() => undefined);
  geyserEndpoint.catch(() => undefined);

  // 2.10+ (production runs 2.11): one consumer on two subjects, which slot status on the WebSocket needs. Without
  // it (no package reachable) the system's server runs and a subscription with "slots" is refused as unavailable.
  const natsBin = await ensureClusterNatsServer(say).catch((err: unknown) => {
    say(`WARNING: no nats-server 2.10 or newer (${(err as Error).message}); using the system's, without slot status on the WebSocket`);
    return undefined;
  });
  const natsVersion = natsServerVersion(natsBin ?? process.env.NATS_SERVER_BIN ?? 'nats-server');
  if (natsClusterSize > 1)
    say(`Starting a ${natsClusterSize}-node nats-server ${natsVersion} cluster (operator mode, JetStream, streams with ${natsClusterSize} replicas)…`);
  else say(`Starting nats-server ${natsVersion} (operator mode, JetStream)…`);
  nats = await startLocalNats({
    ...(natsBin ? { bin: natsBin } : {}),
    stateDir,
    port: PORTS.nats,
    monitorPort: PORTS.natsMonitor,
    detached: true,
    clusterSize: natsClusterSize,
    // The extra nodes' free ports must not be ones the stack binds later (e.g. a gRPC port in the ephemeral range).
    reservedPorts: [...allPorts(PORTS), redisPort, postgresPort, oidcPort, localStripePort, geyserPort],
  });
  for (const proc of nats.processes) children.push({ name: 'nats-server', proc });
  recordPids();
  if (natsClusterSize > 1) say(`  nodes: ${nats.urls}`);

  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    say(`Starting redis-server on ${redisPort} (local, nothing persisted)…`);
    const redisDir = join(stateDir, 'redis');
    mkdirSync(redisDir, { recursive: true });
    const proc = startChild(
      'redis-server',
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir],
      process.env,
    );
    await waitForPort(redisPort, '127.0.0.1', 15_000, () => proc.exitCode === null);
    redisUrl = `redis://127.0.0.1:${redisPort}`;
  }

  const natsDir = join(stateDir, 'nats');
  // Every node in NATS_URL; on a cluster, the streams and buckets the services create get a replica on each node.
  const common = {
    ...process.env,
    NATS_URL: nats.urls,
    TRADEWIND_STATE_DIR: stateDir,
    ...(natsClusterSize > 1 ? { NATS_STREAM_REPLICAS: String(natsClusterSize) } : {}),
  };
  const authEnv: NodeJS.ProcessEnv = {
    ...common,
    DATABASE_URL: await databaseUrl,
    NATS_CREDS: join(natsDir, 'service.creds'),
    PORT: String(PORTS.auth.http),
    GRPC_PORT: String(PORTS.auth.grpc),
    ADMIN_PORT: String(PORTS.admin.auth),
    PUBLIC_URL: publicUrl,
    AUTH_JWT_PRIVATE_KEY_FILE: ensureJwtKey(),
  };
  const billingEnv: NodeJS.ProcessEnv = {
    ...common,
    DATABASE_URL: authEnv.DATABASE_URL,
    NATS_CREDS: join(natsDir, 'service.creds'),
    PORT: String(PORTS.billing.http),
    GRPC_PORT: String(PORTS.billing.grpc),
    ADMIN_PORT: String(PORTS.admin.billing),
    PUBLIC_URL: publicUrl,
    AUTH_JWKS_URL: `http://127.0.0.1:${PORTS.auth.http}/auth/.well-known/jwks.json`,
    AUTH_ADDR: `127.0.0.1:${PORTS.auth.grpc}`,
    ...(stripeKeys ? {} : await startLocalStripeProcess()),
  };
  const issuer = await oidcIssuer;
  if (issuer) authEnv.LOCAL_OIDC_ISSUER = issuer;
  else delete authEnv.LOCAL_OIDC_ISSUER; // auth refuses it next to GOOGLE_CLIENT_ID
  const ingestEnv: NodeJS.ProcessEnv = {
    ...common,
    ADMIN_PORT: String(PORTS.admin.ingest),
    NATS_CREDS: join(natsDir, 'service.creds'),
    // The replay's slots say what the recording says (confirmed), so slot status on the WebSocket works locally.
    REPLAY_SLOT_STATUS: process.env.REPLAY_SLOT_STATUS ?? 'true',
  };
  const geyser = await geyserEndpoint;
  if (geyser) {
    // The production path (INGEST_SOURCE=yellowstone) against the local stand-in; a real provider's token stays here.
    Object.assign(ingestEnv, { INGEST_SOURCE: 'yellowstone', YELLOWSTONE_ENDPOINT: geyser });
    delete ingestEnv.YELLOWSTONE_X_TOKEN;
  }
  const services: Array<[name: Exclude<keyof typeof PORTS.admin, 'web'>, env: NodeJS.ProcessEnv]> = [
    [
      'credential-issuer',
      {
        ...common,
        ADMIN_PORT: String(PORTS.admin['credential-issuer']),
        PORT: String(PORTS.credentialIssuer),
        DATABASE_URL: authEnv.DATABASE_URL,
        PUBLIC_URL: publicUrl,
        AUTH_JWKS_URL: billingEnv.AUTH_JWKS_URL,
        NATS_PUBLIC_URL: `nats://localhost:${PORTS.nats}`,
        // GET /api/usage reads ws-fanout's connection leases and request counters there.
        REDIS_URL: redisUrl,
        // Usage figures lag at most 10 s locally (60 s by default), so the dashboard's Usage page moves while you watch.
        USAGE_REPORT_INTERVAL_MS: process.env.USAGE_REPORT_INTERVAL_MS ?? '10000',
        USAGE_NATS_POLL_INTERVAL_MS: process.env.USAGE_NATS_POLL_INTERVAL_MS ?? '10000',
      },
    ],
    ['ingest', ingestEnv],
    [
      'ws-fanout',
      {
        ...common,
        ADMIN_PORT: String(PORTS.admin['ws-fanout']),
        PORT: String(PORTS.ws),
        REDIS_URL: redisUrl,
        USAGE_REPORT_INTERVAL_MS: process.env.USAGE_REPORT_INTERVAL_MS ?? '10000',
        NATS_CREDS: join(natsDir, 'service.creds'),
        NATS_SYSTEM_CREDS: join(natsDir, 'sys.creds'),
        NATS_OPERATOR_JWT: join(natsDir, 'operator.jwt'),
      },
    ],
    [
      'token-price',
      {
        ...common,
        ADMIN_PORT: String(PORTS.admin['token-price']),
        PORT: String(PORTS.tokenPrice.http),
        GRPC_PORT: String(PORTS.tokenPrice.grpc),
        REDIS_URL: redisUrl,
        NATS_CREDS: join(natsDir, 'service.creds'),
      },
    ],
  ];
  const startService = (name: Exclude<keyof typeof PORTS.admin, 'web'>, env: NodeJS.ProcessEnv) => {
    say(`Starting ${name}…`);
    const proc = startChild(name, process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], env);
    // A service waiting for NATS (a cluster still electing its meta leader) is alive but not ready; it gives up on
    // its own at STARTUP_DEADLINE_MS with a `fatal:` line, which the exit handler shows: wait a little longer than that.
    return waitReady(name, PORTS.admin[name], proc, SERVICE_READY_TIMEOUT_MS);
  };
  // auth and billing depend on none of the others: they start alongside them.
  const authReady = startService('auth', authEnv);
  const billingReady = startService('billing', billingEnv);
  authReady.catch(() => undefined);
  billingReady.catch(() => undefined);
  for (const [name, env] of services) await startService(name, env);
  await authReady;
  await billingReady;
  await webBuilt;
  say('Starting web…');
  await waitReady(
    'web',
    PORTS.admin.web,
    startChild('web', process.execPath, ['--import', 'tsx', 'web/server/main.ts'], {
      ...webSecurityEnv(google, stripeKeys),
      ...process.env,
      PORT: String(PORTS.web),
      ADMIN_PORT: String(PORTS.admin.web),
    }),
  );

  // Synchronous appends: nothing is lost when shutdown ends the process.
  const ingressLog = openSync(join(logDir, 'ingress-proxy.log'), 'a');
  ingress = await startIngressProxy({
    table: routeTable,
    port: PORTS.ingress,
    log: (entry) => writeSync(ingressLog, `${JSON.stringify({ level: 'info', service: 'ingress-proxy', msg: 'request', ...entry })}\n`),
  });
  say(`Local ingress proxy on ${PORTS.ingress} (routes from deploy/routes.json).`);

  const example = await issueUserCredentials(nats.identities, {
    plan: 'starter',
    natsUrl: `nats://localhost:${PORTS.nats}`,
    email: 'example@localhost',
    ttlSeconds: 30 * 24 * 3600,
  });
  writeFileSync(join(stateDir, 'example-creds.json'), JSON.stringify(example, null, 2), { mode: 0o600 });
  const probe = await issueUserCredentials(nats.identities, { plan: 'starter', natsUrl: nats.url, email: 'start-check@localhost', ttlSeconds: 600 });
  const firstTrade = await firstTradeOverWebSocket(probe, 60_000);
  const firstAt = seconds();

  const ingestSource = process.env.INGEST_SOURCE || 'replay';
  const source = geyser
    ? `Source: LIVE path, INGEST_SOURCE=yellowstone, against the LOCAL Yellowstone (Geyser gRPC) stand-in ${geyser}
(dev/bin/local-geyser.ts, log ${join(logDir, 'local-geyser.log')}): the recorded mainnet transactions replayed as a
live chain with SYNTHETIC signatures, slots and block times — not the Solana chain. Profile: ${geyserProfileText()}
(LOCAL_GEYSER_STEADY_TPS, _BURST_TPS, _STEADY_MS, _BURST_MS). For a real node run without --yellowstone and set
INGEST_SOURCE=yellowstone, YELLOWSTONE_ENDPOINT (and YELLOWSTONE_X_TOKEN); see docs/live-sources.md.`
    : ingestSource === 'replay'
      ? `Source: REPLAY of recorded real mainnet transactions (services/ingest/recording), looped;
every message carries "replayed": true. For live Solana data set INGEST_SOURCE=yellowstone
(YELLOWSTONE_ENDPOINT, YELLOWSTONE_X_TOKEN) or INGEST_SOURCE=rpc (SOLANA_RPC_URL); see docs/live-sources.md.
\`npm start -- --yellowstone\` runs that Yellowstone path against a local Geyser stand-in (synthetic signatures and slots).`
      : `Source: LIVE Solana (INGEST_SOURCE=${ingestSource}); see docs/live-sources.md.`;
  const database = externalDatabaseUrl
    ? `${withoutPassword(externalDatabaseUrl)}   (external, from DATABASE_URL)`
    : `${await databaseUrl}   (LOCAL embedded PostgreSQL, data in ${postgresDataDir}; set DATABASE_URL to use your own)`;
  const signIn = issuer
    ? `LOCAL OpenID Connect provider ${issuer} — NOT Google.
              GOOGLE_CLIENT_ID is not set, so sign-in shows a page labelled "Local sign-in — not Google"
              where any email works. For Google set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET
              (redirect URI ${publicUrl}/auth/callback).`
    : `Google (GOOGLE_CLIENT_ID is set; redirect URI ${publicUrl}/auth/callback)`;
  const payments = stripeKeys
    ? `Stripe (STRIPE_SECRET_KEY is set; webhook endpoint ${publicUrl}/api/stripe/webhook)`
    : `LOCAL Stripe stand-in http://localhost:${localStripePort} — NO REAL PAYMENT.
              STRIPE_SECRET_KEY is not set, so checkout opens a page labelled "Test checkout — no real
              payment"; paying there sends signed webhooks to billing. For Stripe set STRIPE_SECRET_KEY
              and STRIPE_WEBHOOK_SECRET (docs/billing.md).`;

  const ticker = process.env.BIRDEYE_API_KEY
    ? 'Birdeye token list first (BIRDEYE_API_KEY is set), our own figures when it fails.'
    : process.env.SOL_USD_PRICE
      ? `Prices from our own trades; USD at SOL_USD_PRICE=${process.env.SOL_USD_PRICE} until the stream shows a WSOL/USDC swap.`
      : `Prices from our own trades, in SOL. USD figures are null: the recording has no WSOL/USDC swap
              to read SOL/USD from; set SOL_USD_PRICE (USD per SOL) or BIRDEYE_API_KEY (docs/token-price.md).`;
  const client = `node -e "const ws=new (require('ws'))('ws://localhost:${PORTS.ws}');ws.on('open',()=>ws.send(JSON.stringify({jwt:'${example.user_jwt}',nkey:'${example.user_nkey_seed}'})));ws.on('message',m=>{const d=JSON.parse(m);if(d.type==='authenticated'){ws.send(JSON.stringify({subject:'basic.pumpfun'}));ws.send(JSON.stringify({subject:'basic.bonk'}))}console.log(m.toString())})"`;
  say(`
Tradewind is running: the first trade reached a WebSocket client ${firstAt} s after start.

  Web / API   http://localhost:${PORTS.ingress}   (local ingress proxy, routes in deploy/routes.json)
              /auth/* works now: open ${publicUrl}/auth/login?tier=plus&period=yearly to sign in.
              Billing answers /api/checkout-sessions, /api/upgrade-preview, /api/create-portal-session, /api/get-subscription.
              ${publicUrl}/api/birdeye/tokens is the live token ticker (token-price).
              Every other path is the web app (web/, served by web/server on :${PORTS.web}):
              the site, sign-in, payment and the dashboard at ${publicUrl}/dashboard.
  WebSocket   ws://localhost:${PORTS.ws}
  NATS        nats://localhost:${PORTS.nats}   (operator mode, JetStream; monitoring http://localhost:${PORTS.natsMonitor})
  Postgres    ${database}
  Sign-in     ${signIn}
  Payments    ${payments}
  Auth        HTTP :${PORTS.auth.http} (behind the proxy at /auth/*), gRPC 127.0.0.1:${PORTS.auth.grpc}
  Billing     HTTP :${PORTS.billing.http} (behind the proxy at /api/...), gRPC 127.0.0.1:${PORTS.billing.grpc}
  Credentials HTTP :${PORTS.credentialIssuer} (behind the proxy at /api/nats: signed-in users' own NATS account and credentials)
  Ticker      HTTP :${PORTS.tokenPrice.http} (behind the proxy at /api/birdeye/tokens), gRPC 127.0.0.1:${PORTS.tokenPrice.grpc}
              ${ticker}
  Metrics     http://localhost:${PORTS.admin['ws-fanout']}/metrics (ws-fanout), :${PORTS.admin.ingest} (ingest), :${PORTS.admin['credential-issuer']} (credential-issuer), :${PORTS.admin.auth} (auth), :${PORTS.admin.billing} (billing), :${PORTS.admin['token-price']} (token-price), :${PORTS.admin.web} (web)
  Logs        ${logDir}/

${source}

Starter credentials (also in ${join(stateDir, 'example-creds.json')}; more with: npm run -s creds -- --plan pro):
${JSON.stringify(example)}

Watch trades — paste this in another terminal, from this directory:
${client}

First trade seen by the start check:
${firstTrade}

Press Ctrl-C to stop.`);
}

main().catch((err: unknown) => {
  process.stderr.write(`\nnpm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
  void shutdown(1);
});
