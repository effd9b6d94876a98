/**
 * Test and local-stack helpers for real servers: free ports and waiting for a TCP listener.
 */
import { createServer, connect } from 'node:net';

/** Asks the OS for a free TCP port on 127.0.0.1 (there is a small race until the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
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
