import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '@tradewind/dev';

function ephemeralLow(): number {
  return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
}

describe('freePort', () => {
  it('hands out distinct bindable ports below the kernel ephemeral range (outgoing sockets never take them)', async () => {
    const low = ephemeralLow();
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeLessThan(low);
      expect(port).toBeGreaterThan(1024);
    }
    // Each can be bound on 127.0.0.1 right away.
    const servers = await Promise.all(
      ports.slice(0, 5).map(
        (port) =>
          new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
            const srv = createServer();
            srv.once('error', reject);
            srv.listen(port, '127.0.0.1', () => resolve(srv));
          }),
      ),
    );
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('skips a port that is already bound', async () => {
    const first = await freePort();
    // Whatever listens on the next ports, the answer is never a port in use.
    const held = await Promise.all(
      Array.from({ length: 5 }, (_, i) => first + 1 + i).map(
        (port) =>
          new Promise<ReturnType<typeof createServer> | null>((resolve) => {
            const srv = createServer();
            srv.once('error', () => resolve(null));
            srv.listen(port, '127.0.0.1', () => resolve(srv));
          }),
      ),
    );
    const heldPorts = new Set(held.flatMap((s, i) => (s ? [first + 1 + i] : [])));
    expect(heldPorts.size).toBeGreaterThan(0);
    const next = await freePort();
    expect(heldPorts.has(next)).toBe(false);
    await Promise.all(held.map((s) => (s ? new Promise((r) => s.close(r)) : null)));
  });
});
