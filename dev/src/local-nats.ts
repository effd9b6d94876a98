/**
 * Runs a local nats-server in operator mode from the project's own state directory:
 * used by `npm start` and by every test that needs a real operator-mode server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isListening, waitForPort } from './testing/ports.js';
import { ensureNatsIdentities, type NatsIdentities } from '@tradewind/credential-issuer';
import { renderNatsServerConfig } from '@tradewind/credential-issuer';

/** Path of the nats-server binary; override with NATS_SERVER_BIN. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? 'nats-server';

/** A running local server. */
export interface LocalNats {
  readonly url: string;
  readonly monitorUrl: string;
  readonly identities: NatsIdentities;
  readonly configPath: string;
  readonly process: ChildProcess;
  /** SIGTERM, then waits for exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/**
 * Creates identities (first run) and the server config under `<stateDir>/nats/`, starts
 * nats-server and waits until it accepts connections.
 * @param options.host bind address (default 127.0.0.1).
 * @param options.port client port (docs/architecture.md §4: 4223); options.monitorPort (8223).
 * @param options.logFile where the server logs (default `<stateDir>/nats/nats-server.log`).
 * @throws Error when the binary is missing or the server does not listen within 15 s.
 */
export async function startLocalNats(options: {
  stateDir: string;
  host?: string;
  port: number;
  monitorPort: number;
  maxFileStore?: string;
  logFile?: string;
  /** Run the server in its own process group, so a terminal's Ctrl-C does not reach it directly (npm start stops it last). */
  detached?: boolean;
}): Promise<LocalNats> {
  const identities = await ensureNatsIdentities(options.stateDir);
  const dir = join(options.stateDir, 'nats');
  const host = options.host ?? '127.0.0.1';
  const jetstreamDir = join(dir, 'jetstream');
  const resolverDir = join(dir, 'resolver');
  await mkdir(jetstreamDir, { recursive: true });
  await mkdir(resolverDir, { recursive: true });
  const configPath = join(dir, 'nats-server.conf');
  await writeFile(
    configPath,
    await renderNatsServerConfig(identities, {
      serverName: 'tradewind-local',
      host,
      port: options.port,
      monitorPort: options.monitorPort,
      jetstreamDir,
      resolverDir,
      maxFileStore: options.maxFileStore ?? '10GB',
    }),
    { mode: 0o600 },
  );
  for (const port of [options.port, options.monitorPort]) {
    if (await isListening(port, host)) {
      throw new Error(`port ${port} on ${host} is already in use (another nats-server or Tradewind still running?)`);
    }
  }
  const logFile = options.logFile ?? join(dir, 'nats-server.log');
  const child = spawn(NATS_SERVER_BIN, ['-c', configPath, '-l', logFile], { stdio: ['ignore', 'ignore', 'pipe'], detached: options.detached ?? false });
  let exited = false;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  child.once('error', (err) => {
    exited = true;
    stderr += String(err);
  });
  try {
    await waitForPort(options.port, host, 15_000, () => !exited);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`nats-server did not start (${(err as Error).message}); see ${logFile}${stderr ? `: ${stderr.trim()}` : ''}`);
  }
  const displayHost = host === '0.0.0.0' ? 'localhost' : host;
  return {
    url: `nats://${displayHost}:${options.port}`,
    monitorUrl: `http://${displayHost}:${options.monitorPort}`,
    identities,
    configPath,
    process: child,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}
