/**
 * Starts a private nats-server (JetStream on, file store in a temp dir) for one test file, so
 * files can create streams such as EVENTS without colliding with each other or with the
 * machine's shared server on :4222.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from './ports.js';

/** A running private nats-server. `stop()` kills it and removes its store. */
export interface TestNatsServer {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Stops the server (SIGKILL when `crash`), keeping the store when `keepStore`; for restart tests. */
  stop(options?: { crash?: boolean; keepStore?: boolean }): Promise<void>;
  storeDir: string;
}

/**
 * Spawns `nats-server -js` on a free port (or `options.port`) with `options.storeDir` (default a
 * new temp dir). Looks for the binary on PATH, then /usr/sbin.
 * @throws when the server exits or does not accept connections within 10 s (the process is killed and a temporary store removed).
 */
export async function startNatsServer(options: { port?: number; storeDir?: string } = {}): Promise<TestNatsServer> {
  const port = options.port ?? (await freePort());
  const storeDir = options.storeDir ?? (await mkdtemp(join(tmpdir(), 'tw-nats-')));
  const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: 'ignore',
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/local/bin` },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    // Fails at once when the process exits (port taken, bad store) instead of waiting out the bound.
    await waitForPort(port, '127.0.0.1', 10_000, () => child.exitCode === null);
  } catch (err) {
    if (child.exitCode === null) child.kill('SIGKILL');
    if (!options.storeDir) await rm(storeDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop(stopOptions = {}) {
      if (child.exitCode === null) {
        child.kill(stopOptions.crash ? 'SIGKILL' : 'SIGTERM');
        await exited;
      }
      if (!stopOptions.keepStore) await rm(storeDir, { recursive: true, force: true });
    },
  };
}
