/**
 * Child processes and sockets of the benches and the soak. Stopping what a bench or soak started, whatever ends it: the suite's cleanup steps run once, in reverse
 * order of registration, at its normal end, on SIGINT/SIGTERM (then exit 130/143) and on an uncaught exception
 * or unhandled rejection (then exit 1, e.g. EPIPE on a closed stdout or a throw in a callback).
 */
import type { ChildProcess } from 'node:child_process';
import WebSocket from 'ws';

/** A suite's cleanup steps and the process handlers that run them; see {@link stopChildrenOnExit}. */
export interface ChildCleanup {
  /** The steps (stop a process, remove a directory): push to add one; they run last-added first. */
  readonly steps: Array<() => Promise<unknown>>;
  /** Runs every step once (later calls wait for the same run) and removes the process handlers. */
  run(): Promise<void>;
}

/**
 * Installs the handlers for a suite called `name` (used in messages: `<name>: <error>; stopping the child
 * processes`, `<name> cleanup: <error>`). Handlers are `on`, not `once`: `npm run` answers a Ctrl-C by sending its
 * child SIGTERM too, and a second signal must not end the process with the default action while the first one's
 * cleanup still runs. A failing step is logged and the others still run.
 */
export function stopChildrenOnExit(name: string): ChildCleanup {
  const steps: Array<() => Promise<unknown>> = [];
  let ran: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    void run().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  const onFatal = (err: unknown) => {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}; stopping the child processes\n`);
    void run().finally(() => process.exit(1));
  };
  function run(): Promise<void> {
    ran ??= (async () => {
      for (const step of steps.reverse()) await step().catch((err: unknown) => console.error(`${name} cleanup: ${String(err)}`));
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('uncaughtException', onFatal);
      process.off('unhandledRejection', onFatal);
    })();
    return ran;
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  return { steps, run };
}

/**
 * Resolves when `child` (forked with an IPC channel) sends `{ready: true}`.
 * @throws Error `<what> did not start within <timeoutMs> ms`, or `<what> exited (<code>) while starting`.
 */
export function childReady(child: ChildProcess, what: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.on('message', (m: { ready?: boolean }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) while starting`));
    });
  });
}

/** Closes `ws` with 1000 and resolves once it is closed, terminating it when the close handshake takes longer than `graceMs` (default 2 s). */
export function closeWebSocket(ws: WebSocket, graceMs = 2_000): Promise<void> {
  return new Promise<void>((done) => {
    if (ws.readyState === WebSocket.CLOSED) return done();
    const t = setTimeout(() => {
      ws.terminate();
      done();
    }, graceMs);
    ws.once('close', () => {
      clearTimeout(t);
      done();
    });
    ws.close(1000);
  });
}
