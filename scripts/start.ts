/**
 * `npm start`: the whole local stack in one command.
 *
 * Installs what is missing (nats-server, redis-server through apt when run as root on
 * Debian/Ubuntu; otherwise prints the exact command), creates the NATS operator keys in the
 * state directory on first run, starts nats-server (operator mode, JetStream, :4223), a private
 * redis-server (unless REDIS_URL is set), then ingest, credential-issuer and ws-fanout; waits
 * until each is ready, checks that a trade reaches a WebSocket client, and prints the URLs and a
 * ready-to-paste example. Ctrl-C (or SIGTERM) stops everything and leaves no process behind.
 *
 * Environment: TRADEWIND_STATE_DIR (default .tradewind), REDIS_URL, LOCAL_REDIS_PORT (6390),
 * REPLAY_TRANSACTIONS_PER_SECOND and the services' own variables, which are passed through.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { isListening, waitForPort } from '@tradewind/lib';
import { issueUserCredentials, startLocalNats, type LocalNats } from '@tradewind/credential-issuer';

const root = resolve(import.meta.dirname, '..');
const stateDir = resolve(root, process.env.TRADEWIND_STATE_DIR ?? '.tradewind');
const logDir = join(stateDir, 'logs');
const PORTS = { nats: 4223, natsMonitor: 8223, ws: 9223, admin: { ingest: 9303, 'credential-issuer': 9302, 'ws-fanout': 9301 } } as const;
const redisPort = Number(process.env.LOCAL_REDIS_PORT ?? 6390);
const t0 = Date.now();
const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = () => ((Date.now() - t0) / 1000).toFixed(1);

const children: Array<{ name: string; proc: ChildProcess }> = [];
let nats: LocalNats | undefined;
let stopping = false;

function isDebianLike(): boolean {
  try {
    const os = readFileSync('/etc/os-release', 'utf8');
    return /^(ID|ID_LIKE)=.*(debian|ubuntu)/m.test(os);
  } catch {
    return false;
  }
}

function has(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

/** Makes sure nats-server and (when needed) redis-server exist; installs them with apt as root. */
function ensureSystemPackages(): void {
  const missing: string[] = [];
  if (!has(process.env.NATS_SERVER_BIN ?? 'nats-server')) missing.push('nats-server');
  if (!process.env.REDIS_URL && !has('redis-server')) missing.push('redis-server');
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() === 0 && isDebianLike() && has('apt-get')) {
    say(`Installing ${missing.join(', ')} with apt…`);
    const r = spawnSync('sh', ['-c', command], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`apt-get failed (exit ${r.status}); run: sudo ${command}`);
    return;
  }
  throw new Error(`missing ${missing.join(', ')}. Install ${missing.length > 1 ? 'them' : 'it'} first:\n  sudo sh -c '${command}'\n(on other systems install nats-server ≥ 2.9 and redis-server from your package manager, or set REDIS_URL)`);
}

function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const log = openSync(join(logDir, `${name}.log`), 'a');
  // Own process group: a terminal Ctrl-C reaches only this script, which stops the services
  // first and the servers they depend on last.
  const proc = spawn(command, args, { cwd: root, env, stdio: ['ignore', log, log], detached: true });
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

/** Stops processes a previous run left behind (it was killed with SIGKILL or lost its terminal). */
async function stopLeftovers(): Promise<void> {
  let pids: number[] = [];
  try {
    pids = JSON.parse(readFileSync(pidFile, 'utf8')) as number[];
  } catch {
    return;
  }
  const ours = pids.filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmd.includes(stateDir) || cmd.includes('nats-server') || cmd.includes('redis-server') || cmd.includes('/src/main.ts');
    } catch {
      return false;
    }
  });
  if (ours.length === 0) return;
  say(`Stopping ${ours.length} process(es) left over from a previous run…`);
  for (const pid of ours) {
    try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
  }
  const deadline = Date.now() + 10_000;
  while (ours.some((pid) => existsSync(`/proc/${pid}`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of ours) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

function tail(file: string, lines: number): string {
  try {
    return `${readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}\n`;
  } catch {
    return '';
  }
}

async function waitReady(name: string, adminPort: number, proc: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${name} exited before becoming ready`);
    try {
      const res = await fetch(`http://127.0.0.1:${adminPort}/readyz`);
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
  const terminate = (proc: ChildProcess) => new Promise<void>((r) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return r();
    proc.once('exit', () => r());
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 12_000).unref();
  });
  const infra = new Set(['nats-server', 'redis-server']);
  await Promise.all(children.filter((c) => !infra.has(c.name)).map((c) => terminate(c.proc)));
  await Promise.all(children.filter((c) => c.name === 'redis-server').map((c) => terminate(c.proc)));
  await nats?.stop();
  say('Stopped.');
  process.exit(code);
}

/** Connects like a subscriber would and resolves with the first trade message received. */
function firstTradeOverWebSocket(creds: { user_jwt: string; user_nkey_seed: string }, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORTS.ws}`);
    const timer = setTimeout(() => { ws.terminate(); reject(new Error(`no trade within ${timeoutMs / 1000} s`)); }, timeoutMs);
    ws.on('open', () => ws.send(JSON.stringify({ jwt: creds.user_jwt, nkey: creds.user_nkey_seed })));
    ws.on('message', (data) => {
      const text = data.toString();
      const msg = JSON.parse(text) as { type?: string; message?: string };
      if (msg.type === 'authenticated') ws.send(JSON.stringify({ subject: 'basic.pumpfun' }));
      else if (msg.type === 'error') { clearTimeout(timer); ws.close(); reject(new Error(msg.message)); }
      else if (msg.type === undefined) { clearTimeout(timer); ws.close(); resolvePromise(text); }
    });
    ws.on('error', (err) => { clearTimeout(timer); reject(err); });
  });
}

async function main(): Promise<void> {
  // 'on', not 'once': npm and tsx relay the terminal's signal again; a second one must not kill us mid-shutdown.
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGHUP', () => void shutdown(0));
  ensureSystemPackages();
  mkdirSync(logDir, { recursive: true });
  await stopLeftovers();

  for (const [what, port] of [['WebSocket', PORTS.ws], ['NATS', PORTS.nats], ['NATS monitoring', PORTS.natsMonitor], ...Object.entries(PORTS.admin)] as const) {
    if (await isListening(port)) throw new Error(`port ${port} (${what}) is already in use — is Tradewind already running?`);
  }

  say('Starting nats-server (operator mode, JetStream)…');
  nats = await startLocalNats({ stateDir, port: PORTS.nats, monitorPort: PORTS.natsMonitor, detached: true });
  children.push({ name: 'nats-server', proc: nats.process });
  recordPids();

  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    if (await isListening(redisPort)) throw new Error(`port ${redisPort} (local redis) is already in use; set LOCAL_REDIS_PORT or REDIS_URL`);
    say(`Starting redis-server on ${redisPort} (local, nothing persisted)…`);
    const redisDir = join(stateDir, 'redis');
    mkdirSync(redisDir, { recursive: true });
    const proc = startChild('redis-server', 'redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir], process.env);
    await waitForPort(redisPort, '127.0.0.1', 15_000, () => proc.exitCode === null);
    redisUrl = `redis://127.0.0.1:${redisPort}`;
  }

  const natsDir = join(stateDir, 'nats');
  const common = { ...process.env, NATS_URL: nats.url, TRADEWIND_STATE_DIR: stateDir };
  const services: Array<[name: keyof typeof PORTS.admin, env: NodeJS.ProcessEnv]> = [
    ['credential-issuer', { ...common, ADMIN_PORT: String(PORTS.admin['credential-issuer']) }],
    ['ingest', { ...common, ADMIN_PORT: String(PORTS.admin.ingest), NATS_CREDS: join(natsDir, 'service.creds') }],
    ['ws-fanout', {
      ...common, ADMIN_PORT: String(PORTS.admin['ws-fanout']), PORT: String(PORTS.ws), REDIS_URL: redisUrl,
      NATS_CREDS: join(natsDir, 'service.creds'), NATS_SYSTEM_CREDS: join(natsDir, 'sys.creds'), NATS_OPERATOR_JWT: join(natsDir, 'operator.jwt'),
    }],
  ];
  for (const [name, env] of services) {
    say(`Starting ${name}…`);
    const proc = startChild(name, process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], env);
    await waitReady(name, PORTS.admin[name], proc);
  }

  const example = await issueUserCredentials(nats.identities, { plan: 'starter', natsUrl: 'nats://localhost:4223', email: 'example@localhost', ttlSeconds: 30 * 24 * 3600 });
  writeFileSync(join(stateDir, 'example-creds.json'), JSON.stringify(example, null, 2), { mode: 0o600 });
  const probe = await issueUserCredentials(nats.identities, { plan: 'starter', natsUrl: nats.url, email: 'start-check@localhost', ttlSeconds: 600 });
  const firstTrade = await firstTradeOverWebSocket(probe, 60_000);
  const firstAt = seconds();

  const client = `node -e "const ws=new (require('ws'))('ws://localhost:9223');ws.on('open',()=>ws.send(JSON.stringify({jwt:'${example.user_jwt}',nkey:'${example.user_nkey_seed}'})));ws.on('message',m=>{const d=JSON.parse(m);if(d.type==='authenticated'){ws.send(JSON.stringify({subject:'basic.pumpfun'}));ws.send(JSON.stringify({subject:'basic.bonk'}))}console.log(m.toString())})"`;
  say(`
Tradewind is running: the first trade reached a WebSocket client ${firstAt} s after start.

  WebSocket   ws://localhost:${PORTS.ws}
  NATS        nats://localhost:${PORTS.nats}   (operator mode, JetStream; monitoring http://localhost:${PORTS.natsMonitor})
  Metrics     http://localhost:${PORTS.admin['ws-fanout']}/metrics (ws-fanout), :${PORTS.admin.ingest} (ingest), :${PORTS.admin['credential-issuer']} (credential-issuer)
  Web app     not part of this build yet (http://localhost:8080 comes with the web app)
  Logs        ${logDir}/

Source: REPLAY of recorded real mainnet transactions (services/ingest/recording), looped;
every message carries "replayed": true. Live Solana sources are not implemented yet.

Starter credentials (also in ${join(stateDir, 'example-creds.json')}; more with: npm run creds -- --plan pro):
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
