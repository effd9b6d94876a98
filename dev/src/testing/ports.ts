/**
 * Test and local-stack helpers for real servers: free ports and waiting for a TCP listener.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';

/** The highest port {@link freePort} hands out when the kernel's ephemeral range cannot be read (Linux' default range starts at 32768). */
const DEFAULT_EPHEMERAL_LOW = 32_768;
/** How many ports below the ephemeral range {@link freePort} uses. */
const PORT_SPAN = 12_000;

/** The range {@link freePort} searches (read once per process) and the next port it tries. */
let range: { low: number; high: number; next: number } | undefined;
const handedOut = new Set<number>();

/** The first port of the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`), or 32768. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 ? low : DEFAULT_EPHEMERAL_LOW;
  } catch {
    return DEFAULT_EPHEMERAL_LOW;
  }
}

/** Resolves true when a listener could be bound to `port` on `host` (and closed again). */
function bindable(port: number, host: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port for a server a test or the local stack is about to start.
 *
 * It is taken from just below the kernel's ephemeral range (by default 20768–32767), never from it: the OS
 * gives ephemeral ports to outgoing connections too, so a port from `listen(0)` could be taken by one of the
 * thousands of client sockets a soak or chaos run opens before the server binds it (two fresh-clone CI
 * runs' soak tests met `EADDRINUSE` on such ports, 32877 and 46039). Each process (or worker thread) searches on from a random
 * start and never hands out a port twice; a port is returned only when it can be bound on 127.0.0.1 and on all
 * interfaces. A small race remains until the caller binds it (another process may bind it first).
 * @throws Error when no port in the range can be bound.
 */
export async function freePort(): Promise<number> {
  if (!range) {
    const high = Math.min(ephemeralLow(), 65_536) - 1;
    const low = Math.max(1_025, high - PORT_SPAN + 1);
    range = { low, high, next: low + randomInt(high - low + 1) };
  }
  const r = range;
  const { low, high } = r;
  for (let tried = 0; tried <= high - low; tried++) {
    const port = r.next;
    r.next = port >= high ? low : port + 1;
    if (handedOut.has(port)) continue;
    if ((await bindable(port, '127.0.0.1')) && (await bindable(port, undefined))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port in ${low}–${high}`);
}

/** True when something accepts TCP connections on `host:port`. */
export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Resolves once `host:port` accepts a TCP connection.
 * @param timeoutMs give up after this many ms (default 15 000).
 * @throws Error naming the address when the deadline passes, or when `alive()` turns false (the process died).
 */
export async function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 15_000, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await isListening(port, host)) return;
    if (!alive()) throw new Error(`process for ${host}:${port} exited before listening`);
    if (Date.now() > deadline) throw new Error(`nothing listening on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
