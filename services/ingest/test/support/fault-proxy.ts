/**
 * A loopback TCP proxy between a NATS client and nats-server that can fail the way networks do, for the
 * publisher's fault tests: `stall()` stops moving bytes both ways with the sockets left open (a frozen
 * route or a stuck leader: nothing is lost, nothing answers), `blackhole()` swallows what the client sends
 * (the client believes it was written: those publishes are lost), `deafen()` swallows what the server sends
 * (publishes are stored, their acknowledgements lost: a leader killed after storing), `cut()` resets every proxied connection
 * (the client reconnects through the proxy), `heal()` forwards again (stalled bytes are delivered).
 */
import net from 'node:net';

/** A running {@link startFaultProxy}. */
export interface FaultProxy {
  /** `nats://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Stop forwarding both ways; bytes are held (paused sockets) until {@link heal}. */
  stall(): void;
  /** Discard every byte the client sends from now on, until {@link heal} or {@link cut}. */
  blackhole(): void;
  /** Discard every byte the server sends from now on (acknowledgements lost), until {@link heal} or {@link cut}. */
  deafen(): void;
  /** Destroy every proxied connection (clients see a reset and reconnect). New connections are forwarded. */
  cut(): void;
  /** Forward normally again. */
  heal(): void;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

type Mode = 'forward' | 'stall' | 'blackhole' | 'deaf';

/** Starts a proxy on a free loopback port to `upstreamPort` on 127.0.0.1. */
export async function startFaultProxy(upstreamPort: number): Promise<FaultProxy> {
  let mode: Mode = 'forward';
  let accepted = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk) => {
      if (mode === 'blackhole') return;
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => {
      if (mode !== 'stall') client.resume();
    });
    upstream.on('data', (chunk) => {
      if (mode === 'deaf') return;
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => {
      if (mode !== 'stall') upstream.resume();
    });
    if (mode === 'stall') {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `nats://127.0.0.1:${port}`,
    stall() {
      mode = 'stall';
      for (const p of pairs) {
        p.client.pause();
        p.upstream.pause();
      }
    },
    blackhole() {
      mode = 'blackhole';
    },
    deafen() {
      mode = 'deaf';
    },
    cut() {
      if (mode === 'blackhole' || mode === 'deaf') mode = 'forward';
      for (const p of [...pairs]) {
        p.client.destroy();
        p.upstream.destroy();
      }
      pairs.clear();
    },
    heal() {
      mode = 'forward';
      for (const p of pairs) {
        p.client.resume();
        p.upstream.resume();
      }
    },
    connections: () => accepted,
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
