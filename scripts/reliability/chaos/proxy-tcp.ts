/**
 * A loopback TCP proxy (node:net) for network faults between a client and its servers:
 * it forwards bytes both ways, and on demand stalls (stops forwarding in both directions, bytes
 * wait in the kernel buffers, connections stay open — a silent partition) or drops (destroys
 * every socket — a reset partition). Each new client connection goes to the next upstream in
 * round-robin order that accepts, so a client survives the death of one upstream by reconnecting.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** Port the proxy listens on, 127.0.0.1. */
  readonly port: number;
  /** Stops forwarding (in both directions and for new connections) until `heal()`. */
  stall(): void;
  /** Forwards again: paused sockets resume, held connections are connected upstream. */
  heal(): void;
  /** Destroys every open connection (both sides) at once; returns how many client connections were cut. */
  drop(): number;
  /** Client connections currently open. */
  openConnections(): number;
  /** Closes the listener and every connection. Never throws. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1:`port` to `upstreams` (host:port pairs, tried in round-robin order).
 * @throws Error when the port cannot be bound.
 */
export async function startTcpProxy(options: { port: number; upstreams: readonly { host: string; port: number }[] }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  let stalled = false;
  let next = 0;
  const held: Array<() => void> = [];

  function attach(pair: { client: Socket; upstream: Socket | null }, attempt: number): void {
    if (pair.client.destroyed) return;
    if (attempt >= options.upstreams.length) {
      pair.client.destroy();
      return;
    }
    const target = options.upstreams[next++ % options.upstreams.length]!;
    const upstream = connect({ host: target.host, port: target.port });
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      pair.upstream = upstream;
      if (pair.client.destroyed) {
        upstream.destroy();
        return;
      }
      pair.client.pipe(upstream);
      upstream.pipe(pair.client);
      if (stalled) {
        pair.client.pause();
        upstream.pause();
      } else {
        pair.client.resume();
      }
    });
    upstream.on('error', () => {
      if (!connected) attach(pair, attempt + 1);
    });
    upstream.on('close', () => {
      if (connected) pair.client.destroy();
    });
  }

  const server: Server = createServer((client) => {
    client.pause();
    const pair = { client, upstream: null as Socket | null };
    pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (stalled) held.push(() => attach(pair, 0));
    else attach(pair, 0);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: options.port,
    stall() {
      stalled = true;
      for (const p of pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    },
    heal() {
      stalled = false;
      for (const p of pairs) {
        if (p.upstream) {
          p.client.resume();
          p.upstream.resume();
        }
      }
      for (const go of held.splice(0)) go();
    },
    drop() {
      const n = pairs.size;
      for (const p of [...pairs]) {
        p.upstream?.destroy();
        p.client.destroy();
      }
      return n;
    },
    openConnections: () => pairs.size,
    async close() {
      for (const p of [...pairs]) {
        p.upstream?.destroy();
        p.client.destroy();
      }
      held.length = 0;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
