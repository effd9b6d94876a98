/**
 * A private redis-server for the edge chaos runs (scripts/reliability/chaos/edge.ts): no
 * persistence (`--save '' --appendonly no`), on a port chosen once, so it can be stopped and
 * started again on the same address while the services keep their Redis URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, waitForPort } from '@tradewind/dev';

/** A redis-server that can be stopped and restarted on the same port. */
export interface RestartableRedis {
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** True while the server process runs. */
  running(): boolean;
  /** Stops the server: SIGKILL when `hard`, else SIGTERM (SIGKILL after 5 s). Resolves when it has exited. */
  stop(hard?: boolean): Promise<void>;
  /** Starts it again (empty: no persistence). Resolves once it accepts connections. @throws Error when it does not within 10 s. */
  start(): Promise<void>;
}

/** Waits for `proc` to exit; SIGKILL after `graceMs` if it has not. */
export async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((ok) => proc.once('exit', () => ok()));
  proc.kill(signal);
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Starts a private redis-server on a free port. @throws Error when it does not accept connections within 10 s. */
export async function startRestartableRedis(): Promise<RestartableRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) return;
    output = '';
    const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc = child;
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    try {
      await waitForPort(port, '127.0.0.1', 10_000, () => child.exitCode === null);
    } catch (err) {
      await stopProcess(child, 'SIGKILL');
      throw new Error(`redis-server did not start on ${port}: ${(err as Error).message}\n${output}`, { cause: err });
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    running: () => proc !== undefined && proc.exitCode === null && proc.signalCode === null,
    start,
    async stop(hard = false) {
      if (proc) await stopProcess(proc, hard ? 'SIGKILL' : 'SIGTERM');
    },
  };
}
